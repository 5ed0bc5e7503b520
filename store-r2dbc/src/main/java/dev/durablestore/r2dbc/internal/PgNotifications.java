package dev.durablestore.r2dbc.internal;

import io.r2dbc.postgresql.api.PostgresqlConnection;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.Wrapped;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Flux;
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
 * retry (X13). Once listening again it wakes the streams, which meanwhile fall back to polling.
 *
 * <p>A connection whose server vanished silently (its machine gone without a FIN or a reset, as in a
 * cloud failover) neither errors nor delivers: the kernel may take many minutes to give it up. So
 * while listening, every {@value #PROBE_INTERVAL_SECONDS} s ({@link #PROBE_INTERVAL}) the listener
 * runs {@code SELECT 1} on its connection; an error, or no answer within {@value
 * #PROBE_TIMEOUT_SECONDS} s ({@link #PROBE_TIMEOUT}), counts as a lost connection: it is closed and
 * replaced as above. A silent server is thus noticed within the sum of both (15 s). A probe belongs
 * to its connection: it stops when that connection is closed or replaced, or the listener disposed,
 * and its verdict never touches a successor. An attempt to connect and listen that gets no answer
 * within {@link #ATTEMPT_TIMEOUT} fails and is retried like any other. Only loaded when r2dbc-postgresql is on the class path.
 */
final class PgNotifications implements Disposable {

    private static final Logger log = LoggerFactory.getLogger(PgNotifications.class);
    private static final long FIRST_RETRY_SECONDS = 1;
    private static final Duration FIRST_RETRY = Duration.ofSeconds(FIRST_RETRY_SECONDS);
    private static final Duration MAX_RETRY = Duration.ofSeconds(30);

    private static final long PROBE_INTERVAL_SECONDS = 10;
    /** How often the listening connection is probed with {@code SELECT 1}. */
    private static final Duration PROBE_INTERVAL = Duration.ofSeconds(PROBE_INTERVAL_SECONDS);

    /** How long one attempt to connect and {@code LISTEN} may take before it counts as failed. */
    private static final Duration ATTEMPT_TIMEOUT = Duration.ofSeconds(10);

    private static final long PROBE_TIMEOUT_SECONDS = 5;
    /** How long a probe may wait for its answer before the connection counts as lost. */
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(PROBE_TIMEOUT_SECONDS);

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
    /** The connection listened on, with its notification and probe subscriptions; null when not listening. */
    private final AtomicReference<Listening> listening = new AtomicReference<>();

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

    /**
     * One attempt: connect, {@code LISTEN}, start the subscriptions. Bounded by {@link
     * #ATTEMPT_TIMEOUT}: a server that goes silent during the handshake or the {@code LISTEN} fails
     * the attempt (which schedules the next) instead of holding the only one in flight forever; a
     * connection the attempt made by then is closed.
     */
    private Mono<Void> listen() {
        return Mono.from(dedicatedFactory().create())
                .flatMap(c -> listenOn(c)
                        .doOnCancel(() -> Mono.from(c.close())
                                .subscribe(null, e -> log.debug("closing a timed-out LISTEN connection failed", e))))
                .timeout(
                        ATTEMPT_TIMEOUT,
                        Mono.error(() -> new IllegalStateException(
                                "no LISTEN within " + ATTEMPT_TIMEOUT + " (connect, log in, LISTEN)")));
    }

    private Mono<Void> listenOn(Connection c) {
        return Mono.defer(() -> {
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
                        Listening l = new Listening(c, Disposables.composite());
                        listening.set(l);
                        if (!nextDelay.equals(FIRST_RETRY) || lostOnce) {
                            log.info("store {}: listening on {} again", storeName, channel);
                        }
                        nextDelay = FIRST_RETRY;
                        // a subscription added once l is closed is disposed at once (Disposable.Composite)
                        l.subscriptions()
                                .add(pg.getNotifications()
                                        .subscribe(
                                                n -> (SETTLED.equals(n.getParameter()) ? settled : wake).run(),
                                                e -> lost(l, e),
                                                () -> lost(
                                                        l,
                                                        new IllegalStateException("notification stream completed"))));
                        l.subscriptions().add(probes(pg).subscribe(null, e -> lost(l, e)));
                        if (disposed && listening.compareAndSet(l, null)) {
                            l.close();
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

    /**
     * @param pg the listening connection
     * @return a {@code SELECT 1} on {@code pg} every {@link #PROBE_INTERVAL}, one at a time; fails
     *     when one fails or takes longer than {@link #PROBE_TIMEOUT}
     */
    private static Flux<Long> probes(PostgresqlConnection pg) {
        return Flux.interval(PROBE_INTERVAL)
                .onBackpressureDrop() // a tick while a probe waits is skipped, not queued
                .concatMap(
                        tick -> pg.createStatement("SELECT 1")
                                .execute()
                                .flatMap(r -> r.getRowsUpdated())
                                .then(Mono.just(tick))
                                .timeout(
                                        PROBE_TIMEOUT,
                                        Mono.error(() -> new IllegalStateException("no answer to the liveness probe"
                                                + " (SELECT 1) within " + PROBE_TIMEOUT))),
                        1);
    }

    /**
     * The connection {@code l} failed: unless it was replaced meanwhile or the listener disposed,
     * closes it and schedules a new attempt.
     */
    private void lost(Listening l, Throwable e) {
        if (disposed || !listening.compareAndSet(l, null)) {
            return; // disposed, or already lost or replaced: a late verdict on a closed connection
        }
        lostOnce = true;
        log.warn("store {}: lost the LISTEN connection on {}; reconnecting: {}", storeName, channel, e.toString());
        l.close();
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
        if (listening.get() != null || disposed || connecting.get()) {
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

    /**
     * A connection listened on, with what reads it: its notifications and its probes.
     *
     * @param connection the dedicated connection
     * @param subscriptions the notification and probe subscriptions
     */
    private record Listening(Connection connection, Disposable.Composite subscriptions) {

        /** Stops reading and closes the connection, without waiting (a silent server may never answer). */
        void close() {
            subscriptions.dispose();
            Mono.from(connection.close()).subscribe(null, e -> log.debug("closing the LISTEN connection failed", e));
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
        Listening l = listening.getAndSet(null);
        if (l != null) {
            l.close();
        }
    }

    @Override
    public boolean isDisposed() {
        return disposed;
    }
}
