package dev.durablestore.sqlite.internal;

import dev.durablestore.api.BackendException;
import dev.durablestore.api.StoreClosedException;
import dev.durablestore.api.StoreException;
import dev.durablestore.core.codec.EventCodec;
import dev.durablestore.core.internal.Wakeups;
import dev.durablestore.core.storage.Storage;
import dev.durablestore.sqlite.SqliteStoreConfig;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The storage of {@code dev.durablestore.sqlite.SqliteReactiveStore}: opens the file and applies the
 * schema, wires the history, timer and outbox parts to one {@link Writer} and one
 * {@link ReaderPool}, owns them, the {@link Backups} and the store's emit threads, and closes them.
 * The store's behaviour is {@link dev.durablestore.core.AbstractReactiveStore}'s. Not part of the
 * public API.
 */
public final class Backend {

    /** How long close waits for queued writes. */
    private static final Duration WRITES_WAIT = Duration.ofSeconds(30);

    private final String name;
    private final Scheduler emit;
    private final Writer writer;
    private final ReaderPool readers;
    private final Backups backups;
    private final Storage storage;
    private final Wakeups wakeups;
    private final Clock clock;

    private Backend(
            String name,
            Scheduler emit,
            Writer writer,
            ReaderPool readers,
            Backups backups,
            Storage storage,
            Wakeups wakeups,
            Clock clock) {
        this.name = name;
        this.emit = emit;
        this.writer = writer;
        this.readers = readers;
        this.backups = backups;
        this.storage = storage;
        this.wakeups = wakeups;
        this.clock = clock;
    }

    /**
     * Opens (creating when missing) the database file, checks the schema version it records, applies
     * pragmas, schema and migrations (S6–S9, S16–S20, S29), and starts the writer and readers.
     *
     * @param config the configuration (not null)
     * @param name the store's name, for threads, logs and errors
     * @return the open backend
     * @throws dev.durablestore.api.SchemaVersionException when the file records a newer schema
     *     version than this library's (S29); nothing is written to the file
     * @throws BackendException when the file cannot be opened or migrated
     */
    public static Backend open(SqliteStoreConfig config, String name) {
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
        SqliteHistory history = new SqliteHistory(writer, readers, new EventRows(codec), outboxRows, config.clock());
        Storage storage = new Storage(
                history,
                new SqliteTimers(writer, readers),
                writes,
                new OutboxReads(readers, outboxRows, config.clock()),
                new Claims(writer, outboxRows, config.clock(), config.metrics()),
                new SqliteRetention(writer, readers, history.heads()));
        Backups backups = new Backups(connections, config.journalMode(), emit, config.metrics(), name);
        return new Backend(name, emit, writer, readers, backups, storage, wakeups, config.clock());
    }

    /** Wakes the claim streams on the emit scheduler; once the store is closing there are none to wake. */
    private static void wake(Scheduler emit, Wakeups wakeups) {
        try {
            emit.schedule(wakeups);
        } catch (RejectedExecutionException e) {
            // the store is closing: no claim stream is left to wake
        }
    }

    /** @return commands waiting for the writer thread (a gauge for metrics) */
    public int writerQueueDepth() {
        return writer.queueDepth();
    }

    /**
     * Copies the store's file to {@code target} while the store goes on (S30); see
     * {@code SqliteReactiveStore.backup}.
     *
     * @param target where the copy goes; must not exist, its directory must
     * @return a cold Mono signalled once the copy is at {@code target}, checked and synced
     */
    public Mono<Backups.Copy> backup(Path target) {
        return backups.backup(target);
    }

    /**
     * Once the claim streams have ended: stops a running backup and refuses queued ones, answers
     * queued reads with {@link StoreClosedException}, lets every queued write finish (waiting up to
     * 30 s), then closes the write connection and the store's threads.
     *
     * @return completes when closed
     */
    public Mono<Void> closeStorage() {
        // backups and readers first: the writer's connection is then the last one, which checkpoints the WAL
        return backups.closeAsync()
                .then(readers.closeAsync())
                .then(writer.closeAsync(WRITES_WAIT))
                // let the signals of the last operations reach their subscribers before the threads stop
                .then(emit.disposeGracefully().timeout(Duration.ofSeconds(10)).onErrorResume(e -> Mono.empty()));
    }

    /** @return the error the claim streams end with when the store closes */
    public StoreClosedException streamsClosedError() {
        return new StoreClosedException("claim stream ended: store " + name + " is closed");
    }

    /** @return the parts the store's behaviour runs on */
    public Storage storage() {
        return storage;
    }

    /** @return the wake-ups the writer signals after commits that may make rows claimable */
    public Wakeups wakeups() {
        return wakeups;
    }

    /** @return the store clock */
    public Clock clock() {
        return clock;
    }

    @Override
    public String toString() {
        return "SqliteReactiveStore[" + name + "]";
    }
}
