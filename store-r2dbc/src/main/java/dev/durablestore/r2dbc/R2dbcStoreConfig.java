package dev.durablestore.r2dbc;

import com.google.errorprone.annotations.CheckReturnValue;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.StoreConfig;
import dev.durablestore.api.StoreMetrics;
import dev.durablestore.r2dbc.internal.Backend;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import reactor.core.publisher.Mono;

/**
 * Configuration of an {@link R2dbcReactiveStore}. Immutable and validated when built: each
 * {@code with*} method returns a checked copy and leaves this one unchanged, so its result must be
 * used (a {@code with*} call as a statement does nothing; Error Prone reports it).
 *
 * <pre>{@code
 * ConnectionFactory pool = ConnectionFactories.get("r2dbc:pool:postgresql://app@db:5432/workflows");
 * R2dbcStoreConfig config = R2dbcStoreConfig.of(pool)
 *         .withNotifications(false);   // behind PgBouncer in transaction-pooling mode
 * R2dbcReactiveStore store = config.open().block();   // or compose it: open() is a cold Mono
 * }</pre>
 */
@CheckReturnValue
public final class R2dbcStoreConfig implements StoreConfig<R2dbcReactiveStore> {

    /** The default {@link #operationTimeout}. */
    public static final Duration DEFAULT_OPERATION_TIMEOUT = Duration.ofSeconds(30);

    /** The default {@code LISTEN/NOTIFY} channel. */
    public static final String DEFAULT_CHANNEL = "durable_store_outbox";

    private final ConnectionFactory connectionFactory;
    private final R2dbcDialect dialect;
    private final Clock clock;
    private final boolean notifications;
    private final String notifyChannel;
    private final StoreMetrics metrics;
    private final Duration operationTimeout;

    private R2dbcStoreConfig(
            ConnectionFactory connectionFactory,
            R2dbcDialect dialect,
            Clock clock,
            boolean notifications,
            String notifyChannel,
            StoreMetrics metrics,
            Duration operationTimeout) {
        InvalidArgumentException.requireNonNull(connectionFactory, "connectionFactory");
        InvalidArgumentException.requireNonNull(clock, "clock");
        Backend.requireChannel(notifyChannel);
        InvalidArgumentException.requireNonNull(metrics, "metrics");
        InvalidArgumentException.requireNonNull(operationTimeout, "operationTimeout");
        if (operationTimeout.isNegative() || operationTimeout.isZero()) {
            throw new InvalidArgumentException("operationTimeout", "must be positive, was " + operationTimeout);
        }
        this.connectionFactory = connectionFactory;
        this.dialect = dialect;
        this.clock = clock;
        this.notifications = notifications;
        this.notifyChannel = notifyChannel;
        this.metrics = metrics;
        this.operationTimeout = operationTimeout;
    }

    /**
     * @param connectionFactory the connection factory
     * @return the defaults: dialect detected, UTC system clock, notifications on over
     *     {@value #DEFAULT_CHANNEL}, no metrics, operations time out after 30 s
     */
    public static R2dbcStoreConfig of(ConnectionFactory connectionFactory) {
        return new R2dbcStoreConfig(
                connectionFactory,
                null,
                Clock.systemUTC(),
                true,
                DEFAULT_CHANNEL,
                StoreMetrics.NONE,
                DEFAULT_OPERATION_TIMEOUT);
    }

    /**
     * Opens a store as {@link R2dbcReactiveStore#open} does, once per subscription.
     *
     * @return the open store
     */
    @Override
    public Mono<R2dbcReactiveStore> open() {
        return R2dbcReactiveStore.open(this);
    }

    /**
     * @return where connections come from; in production an r2dbc-pool
     *     {@code ConnectionPool} over r2dbc-postgresql. The store never closes it.
     */
    public ConnectionFactory connectionFactory() {
        return connectionFactory;
    }

    /**
     * @return the database, or {@code null} to detect it from the factory's metadata when the
     *     store opens ({@link R2dbcDialect#detect})
     */
    public R2dbcDialect dialect() {
        return dialect;
    }

    /**
     * @return the store's clock, read once per operation for {@code now}; UTC system clock by default
     */
    public Clock clock() {
        return clock;
    }

    /**
     * @return on PostgreSQL: whether writes that make rows claimable {@code NOTIFY} the
     *     channel and the store {@code LISTEN}s on it (one extra connection per store), so claim streams
     *     on every node wake at once; on by default. Turn it off where {@code LISTEN} cannot work (PgBouncer
     *     in transaction-pooling mode): claim streams then rely on in-process wake-ups and their poll
     *     interval. Ignored on H2.
     */
    public boolean notifications() {
        return notifications;
    }

    /**
     * @return the {@code LISTEN/NOTIFY} channel: a lower-case identifier of at most 63
     *     characters; {@code durable_store_outbox} by default. Stores sharing a database but not an
     *     outbox (different schemas) should use different channels.
     */
    public String notifyChannel() {
        return notifyChannel;
    }

    /**
     * @return where operation timings, claim counts and commits are reported;
     *     {@link StoreMetrics#NONE} by default
     */
    public StoreMetrics metrics() {
        return metrics;
    }

    /**
     * @return the longest one operation may take, from subscription (getting a
     *     connection included) to its result (for a stream of rows: to its first row, since later rows
     *     come at the subscriber's pace); past it the operation fails with
     *     {@link dev.durablestore.api.BackendException} instead of waiting for a database that does not
     *     answer (a network that drops packets without a reset leaves a statement waiting as long as
     *     TCP does). A write that timed out may still commit: read it back, as after a cancel. 30 s by
     *     default; must be positive
     */
    public Duration operationTimeout() {
        return operationTimeout;
    }

    /**
     * @param value the database, or {@code null} to detect it
     * @return a copy with the dialect set
     */
    public R2dbcStoreConfig withDialect(R2dbcDialect value) {
        return new R2dbcStoreConfig(
                connectionFactory, value, clock, notifications, notifyChannel, metrics, operationTimeout);
    }

    /**
     * @param value the clock the store reads {@code now} from
     * @return a copy with the clock set
     */
    public R2dbcStoreConfig withClock(Clock value) {
        return new R2dbcStoreConfig(
                connectionFactory, dialect, value, notifications, notifyChannel, metrics, operationTimeout);
    }

    /**
     * @param value true to {@code NOTIFY}/{@code LISTEN} on PostgreSQL, false to rely on polling
     * @return a copy with notifications switched
     */
    public R2dbcStoreConfig withNotifications(boolean value) {
        return new R2dbcStoreConfig(connectionFactory, dialect, clock, value, notifyChannel, metrics, operationTimeout);
    }

    /**
     * @param value the channel name, a lower-case identifier
     * @return a copy with the channel set
     */
    public R2dbcStoreConfig withNotifyChannel(String value) {
        return new R2dbcStoreConfig(connectionFactory, dialect, clock, notifications, value, metrics, operationTimeout);
    }

    /**
     * @param value where to report metrics, e.g. {@code new MicrometerStoreMetrics(registry, "orders")}
     * @return a copy with the metrics sink set
     */
    public R2dbcStoreConfig withMetrics(StoreMetrics value) {
        return new R2dbcStoreConfig(
                connectionFactory, dialect, clock, notifications, notifyChannel, value, operationTimeout);
    }

    /**
     * @param value the longest one operation may take before it fails with
     *     {@link dev.durablestore.api.BackendException}; positive
     * @return a copy with the operation timeout set
     */
    public R2dbcStoreConfig withOperationTimeout(Duration value) {
        return new R2dbcStoreConfig(connectionFactory, dialect, clock, notifications, notifyChannel, metrics, value);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof R2dbcStoreConfig c
                && connectionFactory.equals(c.connectionFactory)
                && dialect == c.dialect
                && clock.equals(c.clock)
                && notifications == c.notifications
                && notifyChannel.equals(c.notifyChannel)
                && metrics.equals(c.metrics)
                && operationTimeout.equals(c.operationTimeout);
    }

    @Override
    public int hashCode() {
        return Objects.hash(connectionFactory, dialect, clock, notifications, notifyChannel, metrics, operationTimeout);
    }

    @Override
    public String toString() {
        return "R2dbcStoreConfig[connectionFactory=" + connectionFactory + ", dialect=" + dialect + ", clock=" + clock
                + ", notifications=" + notifications + ", notifyChannel=" + notifyChannel + ", metrics=" + metrics
                + ", operationTimeout=" + operationTimeout + "]";
    }
}
