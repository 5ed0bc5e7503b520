package dev.durablestore.r2dbc;

import dev.durablestore.api.BackendException;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.StoreClosedException;
import dev.durablestore.core.AbstractReactiveStore;
import dev.durablestore.r2dbc.internal.Backend;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Mono;

/**
 * The scale-out store: the whole {@link ReactiveStore} contract over the R2DBC SPI, on PostgreSQL
 * (production: several engine and dispatcher nodes on one server) or on H2 in
 * {@code MODE=PostgreSQL} (an in-process test double). Non-blocking end to end on PostgreSQL.
 *
 * <ul>
 *   <li><b>Transactions.</b> Every multi-statement write runs in one transaction on a connection of
 *       its own (S21); a success signal is emitted only after the commit returned.</li>
 *   <li><b>The expected-head guard across nodes.</b> An append reads the head and inserts its
 *       events in one transaction; the primary key (workflow id, seq) makes a duplicate
 *       {@code seq} impossible, so of two nodes racing on one head the second gets a unique
 *       violation, which becomes a {@link dev.durablestore.api.SequenceConflictException} once the
 *       committed head has been re-read (E13–E15).</li>
 *   <li><b>Claims</b> take due rows in one statement; on PostgreSQL a CTE selects them
 *       {@code FOR UPDATE SKIP LOCKED} and updates them {@code RETURNING} the rows, so concurrent
 *       claimers on any node never receive a row twice (O21) and never wait for each other.</li>
 *   <li><b>Claim-stream wake-ups</b> come from this instance's own commits and, on PostgreSQL, from
 *       {@code NOTIFY} on the configured channel, sent after the commit of the staging, retry,
 *       re-arm or redrive that made rows claimable, on its own statement and coalesced (at most one
 *       in flight and one pending per store), so notifying never serializes commits; the poll
 *       interval is the fallback ({@link R2dbcStoreConfig#withNotifications(boolean)}).</li>
 *   <li><b>Settles</b> of one row (the fenced {@code settle(row, …)}, and {@code settleKeys} of
 *       one key) made concurrently on one PostgreSQL store are written together, one statement per group, each
 *       caller's {@code Mono} completing once that statement committed.</li>
 *   <li><b>Timestamps</b> are {@code BIGINT} epoch nanoseconds (S10); payloads {@code BYTEA}; text
 *       columns compare in code-point order ({@code COLLATE "C"} on PostgreSQL).</li>
 * </ul>
 *
 * <pre>{@code
 * ConnectionPool pool = new ConnectionPool(ConnectionPoolConfiguration
 *         .builder(ConnectionFactories.get("r2dbc:postgresql://app@db:5432/workflows"))
 *         .maxSize(16).build());
 * R2dbcReactiveStore store = R2dbcReactiveStore.open(R2dbcStoreConfig.of(pool)).block();
 * store.appendWithOutbox(workflowId, events, 0, rows).block();
 * store.close();      // the pool stays open: close it after the store
 * pool.dispose();
 * }</pre>
 */
public final class R2dbcReactiveStore extends AbstractReactiveStore {

    private static final AtomicInteger INSTANCES = new AtomicInteger();

    private final Backend backend;

    private R2dbcReactiveStore(Backend backend) {
        super(backend.storage(), backend.wakeups(), backend.clock());
        this.backend = backend;
    }

    /**
     * Opens a store: detects the dialect when the configuration names none, checks the schema
     * version the database records (S29), creates the schema idempotently (S6; on an existing
     * database it only adds what is missing, S7–S9) and, on PostgreSQL with notifications on, starts
     * listening.
     *
     * @param config the configuration
     * @return a Mono of the open store; it fails with {@link InvalidArgumentException} when the
     *     dialect cannot be detected or an H2 database is not in {@code MODE=PostgreSQL} (naming
     *     {@code connectionFactory}, before anything is written), with
     *     {@link dev.durablestore.api.SchemaVersionException} when the database records a newer
     *     schema version than this library's (S29; nothing is written to it), and with
     *     {@link BackendException} when the schema cannot be applied (S20): a
     *     {@link dev.durablestore.api.TransientBackendException} when that may pass (the server away,
     *     or read-only, a standby: X13), so opening again later may succeed
     */
    public static Mono<R2dbcReactiveStore> open(R2dbcStoreConfig config) {
        return Mono.defer(() -> {
            InvalidArgumentException.requireNonNull(config, "config");
            R2dbcDialect dialect =
                    config.dialect() != null ? config.dialect() : R2dbcDialect.detect(config.connectionFactory());
            String name = String.valueOf(INSTANCES.incrementAndGet());
            return Backend.open(
                            config.connectionFactory(),
                            dialect == R2dbcDialect.POSTGRESQL,
                            config.clock(),
                            config.notifications() ? config.notifyChannel() : null,
                            config.metrics(),
                            config.operationTimeout(),
                            name)
                    .map(R2dbcReactiveStore::new);
        });
    }

    /**
     * Once the claim streams have ended: refuses new operations, waits (up to 30 s) for those in
     * flight, stops listening and releases the store's threads. The connection factory is left
     * open: close it after the store.
     */
    @Override
    protected Mono<Void> closeStorage() {
        return backend.closeStorage();
    }

    @Override
    protected StoreClosedException streamsClosedError() {
        return backend.streamsClosedError();
    }

    /** On PostgreSQL with notifications, a {@code settled} notification to the other nodes. */
    @Override
    protected void announceSettled() {
        backend.announceSettled();
    }

    @Override
    public String toString() {
        return backend.toString();
    }
}
