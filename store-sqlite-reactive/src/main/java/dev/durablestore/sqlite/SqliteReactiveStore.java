package dev.durablestore.sqlite;

import dev.durablestore.api.BackendException;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.StoreClosedException;
import dev.durablestore.core.AbstractReactiveStore;
import dev.durablestore.sqlite.internal.Backend;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Mono;

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

    private final Backend backend;

    private SqliteReactiveStore(Backend backend) {
        super(backend.storage(), backend.wakeups(), backend.clock());
        this.backend = backend;
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
        return new SqliteReactiveStore(Backend.open(config, String.valueOf(INSTANCES.incrementAndGet())));
    }

    /** @return commands waiting for the writer thread (a gauge for metrics) */
    public int writerQueueDepth() {
        return backend.writerQueueDepth();
    }

    /**
     * Once the claim streams have ended: answers queued reads with {@link StoreClosedException},
     * lets every queued write finish (waiting up to 30 s), then closes the write connection and the
     * store's threads.
     */
    @Override
    protected Mono<Void> closeStorage() {
        return backend.closeStorage();
    }

    @Override
    protected StoreClosedException streamsClosedError() {
        return backend.streamsClosedError();
    }

    @Override
    public String toString() {
        return backend.toString();
    }
}
