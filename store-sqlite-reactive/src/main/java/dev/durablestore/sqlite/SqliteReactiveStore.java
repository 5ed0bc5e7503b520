package dev.durablestore.sqlite;

import dev.durablestore.api.BackendException;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.StoreClosedException;
import dev.durablestore.api.StoreException;
import dev.durablestore.core.AbstractReactiveStore;
import dev.durablestore.core.codec.EventCodec;
import dev.durablestore.core.internal.Wakeups;
import dev.durablestore.core.storage.Storage;
import dev.durablestore.sqlite.internal.Claims;
import dev.durablestore.sqlite.internal.Connections;
import dev.durablestore.sqlite.internal.DbConnection;
import dev.durablestore.sqlite.internal.EventRows;
import dev.durablestore.sqlite.internal.FileIdentity;
import dev.durablestore.sqlite.internal.OutboxReads;
import dev.durablestore.sqlite.internal.OutboxRows;
import dev.durablestore.sqlite.internal.OutboxWrites;
import dev.durablestore.sqlite.internal.ReaderPool;
import dev.durablestore.sqlite.internal.Schema;
import dev.durablestore.sqlite.internal.SqliteHistory;
import dev.durablestore.sqlite.internal.SqliteTimers;
import dev.durablestore.sqlite.internal.Writer;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The embedded store: one SQLite file, one writer with group commit, a bounded pool of read-only
 * connections.
 *
 * <p>Every mutation is a command queued to the single writer, which owns the only write
 * connection. The writer takes every waiting command (up to
 * {@link SqliteStoreConfig#maxBatchCommands()}), runs them in one {@code BEGIN IMMEDIATE}
 * transaction and commits once; each subscriber is signalled only after that commit returned.
 * Reads run on the store's own reader threads against WAL snapshots. No JDBC call runs on a
 * caller's thread or on Reactor's schedulers.
 *
 * <p><b>Where results arrive.</b> Read results are emitted on the store's
 * {@code durable-store-emit} threads. Write results are signalled by the writer thread that
 * committed them, at once: the writer has two threads ({@code durable-store-writer-<name>-1} and
 * {@code -2}), one at a time holding the connection, and while one runs subscribers' code a command
 * submitted from any other thread makes the other one the writer, so downstream operators never
 * hold up the queue. All of these threads are non-blocking for subscribers' code: Reactor refuses
 * {@code block()} on them, and BlockHound, when installed, checks that code there (the writer's own
 * statements and waits are declared to it). Move slow or blocking downstream work elsewhere with
 * {@code publishOn}.
 *
 * <pre>{@code
 * try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(Path.of("app.db")))) {
 *     store.appendWithOutbox(workflowId, events, 0, rows).block();
 * }
 * }</pre>
 */
public final class SqliteReactiveStore extends AbstractReactiveStore {

    private static final AtomicInteger INSTANCES = new AtomicInteger();
    /** How long close waits for queued writes. */
    private static final Duration WRITES_WAIT = Duration.ofSeconds(30);

    private final String name;
    private final Scheduler emit;
    private final Writer writer;
    private final ReaderPool readers;

    private SqliteReactiveStore(
            String name,
            Scheduler emit,
            Writer writer,
            ReaderPool readers,
            Storage storage,
            Wakeups wakeups,
            Clock clock) {
        super(storage, wakeups, clock);
        this.name = name;
        this.emit = emit;
        this.writer = writer;
        this.readers = readers;
    }

    /**
     * Opens (creating when missing) the database file, checks the schema version it records, applies
     * pragmas, schema and migrations (S6–S9, S16–S20, S29), and starts the writer and readers.
     *
     * @param config the configuration
     * @return the open store
     * @throws dev.durablestore.api.SchemaVersionException when the file records a newer schema
     *     version than this library's (S29); nothing is written to the file
     * @throws BackendException when the file cannot be opened or migrated
     */
    public static SqliteReactiveStore open(SqliteStoreConfig config) {
        InvalidArgumentException.requireNonNull(config, "config");
        String name = String.valueOf(INSTANCES.incrementAndGet());
        Connections connections = new Connections(config.path(), config.journalMode(), config.synchronous(), (int)
                config.busyTimeout().toMillis());
        DbConnection writeConnection = connections.openWriter(config.checkpointPages(), config.writerCacheKib());
        try {
            Schema.apply(writeConnection, connections.file());
        } catch (SQLException | RuntimeException e) {
            writeConnection.close();
            throw e instanceof StoreException se
                    ? se
                    : new BackendException("cannot apply the schema to " + config.path() + ": " + e.getMessage(), e);
        }
        Scheduler emit = Schedulers.newParallel(
                "durable-store-emit-" + name, Math.max(2, Runtime.getRuntime().availableProcessors()), true);
        ReaderPool readers;
        try {
            readers = new ReaderPool(config.readerPoolSize(), connections::openReader, emit, name, config.metrics());
        } catch (RuntimeException e) {
            writeConnection.close();
            emit.dispose();
            throw e;
        }
        EventCodec codec = EventCodec.create();
        Wakeups wakeups = new Wakeups();
        Writer writer = new Writer(
                writeConnection, config.maxBatchCommands(), emit, () -> wake(emit, wakeups), config.metrics(), name);
        OutboxRows outboxRows = new OutboxRows(codec);
        FileIdentity identity = FileIdentity.of(config.path().toAbsolutePath());
        if (identity != null) {
            writer.addListener(identity);
        }
        OutboxWrites writes = new OutboxWrites(writer, outboxRows, config.clock());
        Storage storage = new Storage(
                new SqliteHistory(writer, readers, new EventRows(codec), outboxRows, config.clock()),
                new SqliteTimers(writer, readers),
                writes,
                new OutboxReads(readers, outboxRows, config.clock()),
                new Claims(writer, outboxRows, config.clock(), config.metrics()));
        return new SqliteReactiveStore(name, emit, writer, readers, storage, wakeups, config.clock());
    }

    /** @return commands waiting for the writer thread (a gauge for metrics) */
    public int writerQueueDepth() {
        return writer.queueDepth();
    }

    /**
     * Once the claim streams have ended: answers queued reads with {@link StoreClosedException},
     * lets every queued write finish (waiting up to 30 s), then closes the write connection and the
     * store's threads.
     */
    @Override
    protected Mono<Void> closeStorage() {
        // readers first: the writer's connection is then the last one, which checkpoints the WAL
        return readers.closeAsync()
                .then(writer.closeAsync(WRITES_WAIT))
                // let the signals of the last operations reach their subscribers before the threads stop
                .then(emit.disposeGracefully().timeout(Duration.ofSeconds(10)).onErrorResume(e -> Mono.empty()));
    }

    @Override
    protected StoreClosedException streamsClosedError() {
        return new StoreClosedException("claim stream ended: store " + name + " is closed");
    }

    /** Wakes the claim streams on the emit scheduler; once the store is closing there are none to wake. */
    private static void wake(Scheduler emit, Wakeups wakeups) {
        try {
            emit.schedule(wakeups);
        } catch (RejectedExecutionException e) {
            // the store is closing: no claim stream is left to wake
        }
    }

    @Override
    public String toString() {
        return "SqliteReactiveStore[" + name + "]";
    }
}
