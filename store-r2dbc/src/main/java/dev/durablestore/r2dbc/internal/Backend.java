package dev.durablestore.r2dbc.internal;

import dev.durablestore.api.BackendException;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.StoreClosedException;
import dev.durablestore.api.StoreException;
import dev.durablestore.api.StoreMetrics;
import dev.durablestore.core.codec.EventCodec;
import dev.durablestore.core.internal.Wakeups;
import dev.durablestore.core.storage.Storage;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Clock;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The storage of {@code dev.durablestore.r2dbc.R2dbcReactiveStore}: wires the history, timer and
 * outbox parts to one {@link Db}, applies the schema on open, owns the listener and (for a
 * blocking driver) the scheduler, and closes them. The store's behaviour is
 * {@link dev.durablestore.core.AbstractReactiveStore}'s. Not part of the public API.
 */
public final class Backend {

    private static final Logger log = LoggerFactory.getLogger(Backend.class);
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(30);

    private final String name;
    private final Db db;
    private final Scheduler scheduler;
    private final Wakeups wakeups;
    private final R2dbcHistory history;
    private final R2dbcTimers timers;
    private final OutboxWrites writes;
    private final OutboxReads reads;
    private final Claims claims;
    private final Clock clock;
    private volatile Disposable listener;
    /** Tells the other nodes that this one settled rows (see {@link #announceSettled}). */
    private final Runnable settleNotify;

    private Backend(String name, Db db, Scheduler scheduler, Clock clock, StoreMetrics metrics) {
        this.name = name;
        this.db = db;
        this.scheduler = scheduler;
        this.clock = clock;
        this.wakeups = new Wakeups();
        // after a commit that made rows claimable: this instance's streams, then the other nodes
        Runnable notify = db.notifyChannel() == null
                ? () -> {}
                : new ClaimNotifier(db, db.notifyChannel(), PgNotifications.STAGED);
        this.settleNotify = db.notifyChannel() == null
                ? () -> {}
                : new ClaimNotifier(db, db.notifyChannel(), PgNotifications.SETTLED);
        Runnable wake = () -> {
            Schedulers.parallel().schedule(wakeups);
            notify.run();
        };
        EventCodec codec = EventCodec.create();
        OutboxRows outboxRows = new OutboxRows(codec);
        this.history = new R2dbcHistory(db, new EventRows(codec), outboxRows, clock, wake);
        this.timers = new R2dbcTimers(db);
        this.writes = new OutboxWrites(db, outboxRows, clock, wake);
        this.reads = new OutboxReads(db, outboxRows, clock);
        this.claims = new Claims(db, outboxRows, clock, metrics);
    }

    /**
     * Checks the recorded schema version and applies the schema (S6–S9, S20, S29), then, on
     * PostgreSQL with a channel, starts listening.
     *
     * @param factory the connection factory (not owned)
     * @param postgres true for PostgreSQL, false for H2
     * @param clock the store clock
     * @param notifyChannel the {@code LISTEN/NOTIFY} channel, or {@code null} for none
     * @param metrics the metrics sink
     * @param operationTimeout the longest one operation may take
     * @param name the store's name, for threads, logs and errors
     * @return the open backend; fails with {@link dev.durablestore.api.SchemaVersionException} when the
     *     database records a newer schema version, and with {@link BackendException} when the schema
     *     cannot be applied ({@link dev.durablestore.api.TransientBackendException} when the failure may
     *     pass: the server away, or read-only, X13)
     */
    public static Mono<Backend> open(
            ConnectionFactory factory,
            boolean postgres,
            Clock clock,
            String notifyChannel,
            StoreMetrics metrics,
            Duration operationTimeout,
            String name) {
        return Mono.defer(() -> {
            SqlDialect dialect = postgres ? SqlDialect.POSTGRES : SqlDialect.H2;
            String channel = postgres ? notifyChannel : null;
            if (channel != null && !PgNotifications.driverPresent()) {
                log.warn("store {}: r2dbc-postgresql is not on the class path; NOTIFY wake-ups are off", name);
                channel = null;
            }
            Scheduler scheduler = dialect.blockingDriver()
                    ? Schedulers.newBoundedElastic(
                            Math.max(4, 2 * Runtime.getRuntime().availableProcessors()),
                            100_000,
                            "durable-store-r2dbc-" + name,
                            60,
                            true)
                    : null;
            Db db = new Db(factory, dialect, scheduler, metrics, name, channel, operationTimeout);
            Backend backend = new Backend(name, db, scheduler, clock, metrics);
            String database = "the " + dialect.name() + " database of store " + name;
            Mono<Void> schema = Mono.usingWhen(
                    Mono.from(factory.create()), c -> Schema.apply(c, dialect, database), c -> Mono.from(c.close()));
            if (scheduler != null) {
                schema = schema.subscribeOn(scheduler);
            }
            String listenChannel = channel;
            // a server that is away or read-only (a standby) fails the open with a transient error
            return schema.onErrorMap(
                            e -> !(e instanceof StoreException),
                            e -> Failures.backend("applying the schema to " + database, e))
                    .then(Mono.defer(
                            () -> listenChannel == null ? Mono.empty() : backend.listen(factory, listenChannel)))
                    .thenReturn(backend)
                    .doOnError(e -> {
                        if (scheduler != null) {
                            scheduler.dispose();
                        }
                    });
        });
    }

    private Mono<Void> listen(ConnectionFactory factory, String channel) {
        PgNotifications notifications = new PgNotifications(
                factory, channel, () -> Schedulers.parallel().schedule(wakeups), wakeups::settledLater, name);
        listener = notifications;
        db.onWriteCommitted(notifications::primaryAnswered);
        return notifications.start();
    }

    /**
     * Validates a channel name: a lower-case SQL identifier, so {@code LISTEN} and {@code pg_notify}
     * agree on it without quoting.
     *
     * @param channel the name
     * @return the name
     */
    public static String requireChannel(String channel) {
        InvalidArgumentException.requireNonNull(channel, "notifyChannel");
        if (!channel.matches("[a-z_][a-z0-9_]{0,62}")) {
            throw new InvalidArgumentException(
                    "notifyChannel",
                    "must be a lower-case identifier of 1 to 63 letters, digits or '_', was '" + channel + "'");
        }
        return channel;
    }

    /**
     * Once the claim streams have ended: refuses new operations, waits (up to 30 s) for those in
     * flight, stops listening and releases the store's threads. The connection factory is left open.
     *
     * @return completes when closed
     */
    public Mono<Void> closeStorage() {
        return db.closeAsync(CLOSE_WAIT)
                .then(Mono.fromRunnable(() -> {
                    Disposable l = listener;
                    if (l != null) {
                        l.dispose();
                    }
                }))
                .then(
                        scheduler == null
                                ? Mono.empty()
                                : scheduler
                                        .disposeGracefully()
                                        .timeout(Duration.ofSeconds(5))
                                        .onErrorResume(e -> Mono.empty()));
    }

    /** @return the error the claim streams end with when the store closes */
    public StoreClosedException streamsClosedError() {
        return db.closedError("claimStream");
    }

    /**
     * Tells the other nodes that this one settled rows: a {@link PgNotifications#SETTLED}
     * notification, coalesced (at most one in flight and one pending per store), which wakes only
     * their streams that wait for settles; nothing without notifications.
     */
    public void announceSettled() {
        settleNotify.run();
    }

    /** @return the parts the store's behaviour runs on */
    public Storage storage() {
        return new Storage(history, timers, writes, reads, claims, new R2dbcRetention(db));
    }

    /** @return the wake-ups this storage signals after commits that may make rows claimable */
    public Wakeups wakeups() {
        return wakeups;
    }

    /** @return the store clock */
    public Clock clock() {
        return clock;
    }

    @Override
    public String toString() {
        return "R2dbcReactiveStore[" + name + ", " + db.dialect().name() + "]";
    }
}
