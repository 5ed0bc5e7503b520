package dev.durablestore.r2dbc.internal;

import io.r2dbc.postgresql.api.PostgresqlConnection;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.Wrapped;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * {@code LISTEN} on one dedicated PostgreSQL connection: every notification on the store's channel
 * wakes this instance's claim streams, so rows staged, retried, re-armed or redriven on another
 * node arrive without waiting for the poll interval. The connection is made outside any pool when
 * the factory is a pool over r2dbc-postgresql (it is held for the store's lifetime). When it is
 * lost, the listener reconnects with a growing delay (1 s to 30 s) and wakes the streams, which
 * meanwhile fall back to polling. Only loaded when r2dbc-postgresql is on the class path.
 */
final class PgNotifications implements Disposable {

    private static final Logger log = LoggerFactory.getLogger(PgNotifications.class);
    private static final Duration FIRST_RETRY = Duration.ofSeconds(1);
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
        return listen().onErrorResume(e -> {
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
        retry = Schedulers.parallel()
                .schedule(
                        () -> {
                            if (!disposed) {
                                listen().subscribe(null, e -> {
                                    log.warn("store {}: LISTEN {} failed again: {}", storeName, channel, e.toString());
                                    scheduleRetry();
                                });
                            }
                        },
                        delay.toMillis(),
                        TimeUnit.MILLISECONDS);
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
