package dev.durablestore.r2dbc.internal;

import io.r2dbc.postgresql.api.PostgresqlConnection;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.Wrapped;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * {@code LISTEN} on one dedicated PostgreSQL connection: every notification on the store's channel
 * wakes this instance's claim streams, so rows staged, retried, re-armed or redriven on another
 * node arrive without waiting for the poll interval. The connection is made outside any pool when
 * the factory is a pool over r2dbc-postgresql (it is held for the store's lifetime); with
 * r2dbc-postgresql's failover URL and {@code targetServerType=primary} it goes to the primary. When it
 * is lost, the listener reconnects with a growing delay (1 s to 30 s), or sooner when a write of the
 * store commits meanwhile ({@link #primaryAnswered}: at once, or a second after the latest attempt):
 * after a failover it listens on the new primary as soon as the store writes there, not at its next
 * retry (X13). Once listening again it wakes the streams, which meanwhile fall back to polling. Only
 * loaded when r2dbc-postgresql is on the class path.
 */
final class PgNotifications implements Disposable {

    private static final Logger log = LoggerFactory.getLogger(PgNotifications.class);
    private static final long FIRST_RETRY_SECONDS = 1;
    private static final Duration FIRST_RETRY = Duration.ofSeconds(FIRST_RETRY_SECONDS);
    private static final Duration MAX_RETRY = Duration.ofSeconds(30);

    /** The payload of a notification that rows were staged or made claimable again: wakes every stream. */
    static final String STAGED = "";

    /**
     * The payload of a notification that claimed rows were settled by a node that claims under a
     * dispatch policy: wakes only the streams that wait for settles (a freed workflow or slot, O63,
     * O64).
     */
    static final String SETTLED = "settled";

    private final ConnectionFactory factory;
    private final String channel;
    private final Runnable wake;
    private final Runnable settled;
    private final String storeName;
    private volatile boolean disposed;
    private volatile Connection connection;
    private volatile Disposable notifications;
    private volatile Disposable retry;
    private volatile Duration nextDelay = FIRST_RETRY;
    /** True once a {@code LISTEN} connection was lost: its replacement is logged. */
    private volatile boolean lostOnce;
    /** True while a {@code LISTEN} attempt is in flight: one at a time. */
    private final AtomicBoolean connecting = new AtomicBoolean();
    /** When the latest attempt began ({@link System#nanoTime()}). */
    private volatile long attemptedAt = System.nanoTime();
    /** When the scheduled retry is due ({@link System#nanoTime()}); {@link #primaryAnswered} may move it sooner. */
    private final AtomicLong retryAt = new AtomicLong(System.nanoTime());

    /**
     * @param factory the store's connection factory (a pool is unwrapped to its driver factory)
     * @param channel a validated lower-case identifier
     * @param wake wakes the claim streams
     * @param settled wakes the claim streams that wait for settles
     * @param storeName for logs
     */
    PgNotifications(ConnectionFactory factory, String channel, Runnable wake, Runnable settled, String storeName) {
        this.factory = factory;
        this.channel = channel;
        this.wake = wake;
        this.settled = settled;
        this.storeName = storeName;
    }

    /** @return true when r2dbc-postgresql's API is on the class path */
    static boolean driverPresent() {
        try {
            Class.forName(
                    "io.r2dbc.postgresql.api.PostgresqlConnection", false, PgNotifications.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /**
     * Listens once; on failure logs it and keeps retrying in the background.
     *
     * @return completes when the first {@code LISTEN} succeeded or failed
     */
    Mono<Void> start() {
        return Mono.defer(() -> {
                    connecting.set(true);
                    attemptedAt = System.nanoTime();
                    return listen();
                })
                .doOnTerminate(() -> connecting.set(false))
                .onErrorResume(e -> {
                    log.warn(
                            "store {}: LISTEN {} failed; claim streams poll until it succeeds: {}",
                            storeName,
                            channel,
                            e.toString());
                    scheduleRetry();
                    return Mono.empty();
                });
    }

    private Mono<Void> listen() {
        return Mono.from(dedicatedFactory().create()).flatMap(c -> {
            PostgresqlConnection pg = unwrap(c);
            if (pg == null) {
                return Mono.from(c.close())
                        .then(Mono.error(
                                new IllegalStateException("the connection is not an r2dbc-postgresql connection: "
                                        + c.getClass().getName())));
            }
            return pg.createStatement("LISTEN " + channel)
                    .execute()
                    .flatMap(r -> r.getRowsUpdated())
                    .then(Mono.fromRunnable(() -> {
                        connection = c;
                        if (!nextDelay.equals(FIRST_RETRY) || lostOnce) {
                            log.info("store {}: listening on {} again", storeName, channel);
                        }
                        nextDelay = FIRST_RETRY;
                        notifications = pg.getNotifications()
                                .subscribe(
                                        n -> (SETTLED.equals(n.getParameter()) ? settled : wake).run(),
                                        this::lost,
                                        () -> lost(new IllegalStateException("notification stream completed")));
                        if (disposed) {
                            closeQuietly();
                        }
                        wake.run(); // anything staged while not listening
                    }))
                    .onErrorResume(e -> Mono.from(c.close())
                            .onErrorResume(x -> Mono.empty())
                            .then(Mono.error(e)))
                    .then();
        });
    }

    private ConnectionFactory dedicatedFactory() {
        Object f = factory;
        while (!(f instanceof io.r2dbc.postgresql.PostgresqlConnectionFactory) && f instanceof Wrapped<?> w) {
            Object inner = w.unwrap();
            if (inner == null || inner == f) {
                break;
            }
            f = inner;
        }
        return f instanceof ConnectionFactory cf ? cf : factory;
    }

    private static PostgresqlConnection unwrap(Connection c) {
        Object o = c;
        while (!(o instanceof PostgresqlConnection) && o instanceof Wrapped<?> w) {
            Object inner = w.unwrap();
            if (inner == null || inner == o) {
                break;
            }
            o = inner;
        }
        return o instanceof PostgresqlConnection pg ? pg : null;
    }

    private void lost(Throwable e) {
        if (disposed) {
            return;
        }
        lostOnce = true;
        log.warn("store {}: lost the LISTEN connection on {}; reconnecting: {}", storeName, channel, e.toString());
        closeQuietly();
        scheduleRetry();
    }

    private void scheduleRetry() {
        if (disposed) {
            return;
        }
        Duration delay = nextDelay;
        Duration doubled = delay.multipliedBy(2);
        nextDelay = doubled.compareTo(MAX_RETRY) > 0 ? MAX_RETRY : doubled;
        long now = System.nanoTime();
        retryAt.set(now + delay.toNanos());
        retry = retryIn(delay.toNanos());
    }

    /** @return the retry, in {@code nanos} from now, unless an attempt is in flight then */
    private Disposable retryIn(long nanos) {
        return Schedulers.parallel()
                .schedule(
                        () -> {
                            if (!disposed && connecting.compareAndSet(false, true)) {
                                attempt();
                            } // else an attempt is in flight, which schedules the next one if it fails
                        },
                        nanos,
                        TimeUnit.NANOSECONDS);
    }

    /**
     * Called after every write of the store that committed: the database the store reaches is a
     * primary. When not listening (the connection was lost and the next retry waits), moves that
     * retry to now, or to {@value #FIRST_RETRY_SECONDS} s after the latest attempt began when that is
     * later (a primary that refuses the listener's connection is not asked again at every commit).
     */
    void primaryAnswered() {
        if (connection != null || disposed || connecting.get()) {
            return;
        }
        long now = System.nanoTime();
        long at = Math.max(now, attemptedAt + FIRST_RETRY.toNanos());
        long due = retryAt.get();
        if (due - at <= 0 || !retryAt.compareAndSet(due, at)) {
            return; // the retry is due by then anyway, or another commit moved it
        }
        Disposable r = retry;
        if (r != null) {
            r.dispose();
        }
        retry = retryIn(at - now);
    }

    /** One {@code LISTEN} attempt; the caller has set {@link #connecting}. */
    private void attempt() {
        if (disposed) {
            connecting.set(false);
            return;
        }
        attemptedAt = System.nanoTime();
        listen().subscribe(
                        null,
                        e -> {
                            connecting.set(false);
                            log.warn("store {}: LISTEN {} failed again: {}", storeName, channel, e.toString());
                            scheduleRetry();
                        },
                        () -> connecting.set(false));
    }

    private void closeQuietly() {
        Disposable n = notifications;
        if (n != null) {
            n.dispose();
        }
        Connection c = connection;
        connection = null;
        if (c != null) {
            Mono.from(c.close()).subscribe(null, e -> log.debug("closing the LISTEN connection failed", e));
        }
    }

    /** Stops listening and closes the connection (asynchronously). Idempotent. */
    @Override
    public void dispose() {
        disposed = true;
        Disposable r = retry;
        if (r != null) {
            r.dispose();
        }
        closeQuietly();
    }

    @Override
    public boolean isDisposed() {
        return disposed;
    }
}
