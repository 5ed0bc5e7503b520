package dev.durablestore.r2dbc;

import com.google.errorprone.annotations.CheckReturnValue;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.StoreConfig;
import dev.durablestore.api.StoreMetrics;
import dev.durablestore.r2dbc.internal.Backend;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Clock;
import java.time.Duration;
import java.util.function.Consumer;
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

    /** The default {@link #operationTimeout()}. */
    public static final Duration DEFAULT_OPERATION_TIMEOUT = Duration.ofSeconds(30);

    /** The default {@link #notifyChannel()}: the {@code LISTEN/NOTIFY} channel. */
    public static final String DEFAULT_CHANNEL = "durable_store_outbox";

    /** The default {@link #notifications()}: on. */
    public static final boolean DEFAULT_NOTIFICATIONS = true;

    private final Settings settings;

    private R2dbcStoreConfig(Settings settings) {
        this.settings = settings;
    }

    /**
     * Every setting, checked whenever a configuration is built; its {@code equals},
     * {@code hashCode} and {@code toString} are the configuration's.
     */
    private record Settings(
            ConnectionFactory connectionFactory,
            R2dbcDialect dialect,
            Clock clock,
            boolean notifications,
            String notifyChannel,
            StoreMetrics metrics,
            Duration operationTimeout) {

        Settings {
            InvalidArgumentException.requireNonNull(connectionFactory, "connectionFactory");
            InvalidArgumentException.requireNonNull(clock, "clock");
            Backend.requireChannel(notifyChannel);
            InvalidArgumentException.requireNonNull(metrics, "metrics");
            InvalidArgumentException.requirePositive(operationTimeout, "operationTimeout");
        }
    }

    /**
     * The settings being changed: the one way a configuration is copied. Starts from the defaults
     * or from a configuration; {@link #build()} checks the whole.
     */
    private static final class Draft {
        private ConnectionFactory connectionFactory;
        private R2dbcDialect dialect;
        private Clock clock = Clock.systemUTC();
        private boolean notifications = DEFAULT_NOTIFICATIONS;
        private String notifyChannel = DEFAULT_CHANNEL;
        private StoreMetrics metrics = StoreMetrics.NONE;
        private Duration operationTimeout = DEFAULT_OPERATION_TIMEOUT;

        private Draft(ConnectionFactory connectionFactory) {
            this.connectionFactory = connectionFactory;
        }

        private Draft(Settings s) {
            connectionFactory = s.connectionFactory();
            dialect = s.dialect();
            clock = s.clock();
            notifications = s.notifications();
            notifyChannel = s.notifyChannel();
            metrics = s.metrics();
            operationTimeout = s.operationTimeout();
        }

        private R2dbcStoreConfig build() {
            return new R2dbcStoreConfig(new Settings(
                    connectionFactory, dialect, clock, notifications, notifyChannel, metrics, operationTimeout));
        }
    }

    /** @return a checked copy of this configuration with {@code change} made to it */
    private R2dbcStoreConfig with(Consumer<Draft> change) {
        Draft draft = new Draft(settings);
        change.accept(draft);
        return draft.build();
    }

    /**
     * @param connectionFactory the connection factory
     * @return the defaults: dialect detected, UTC system clock, notifications on over
     *     {@value #DEFAULT_CHANNEL}, no metrics, operations time out after 30 s
     * @throws InvalidArgumentException naming {@code connectionFactory} when null
     */
    public static R2dbcStoreConfig of(ConnectionFactory connectionFactory) {
        return new Draft(connectionFactory).build();
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
        return settings.connectionFactory();
    }

    /**
     * @return the database, or {@code null} to detect it from the factory's metadata when the
     *     store opens ({@link R2dbcDialect#detect})
     */
    public R2dbcDialect dialect() {
        return settings.dialect();
    }

    /**
     * @return the store's clock, read once per operation for {@code now}; UTC system clock by default
     */
    public Clock clock() {
        return settings.clock();
    }

    /**
     * @return on PostgreSQL: whether writes that make rows claimable {@code NOTIFY} the
     *     channel and the store {@code LISTEN}s on it (one extra connection per store), so claim streams
     *     on every node wake at once; on by default. Turn it off where {@code LISTEN} cannot work (PgBouncer
     *     in transaction-pooling mode): claim streams then rely on in-process wake-ups and their poll
     *     interval. Ignored on H2.
     */
    public boolean notifications() {
        return settings.notifications();
    }

    /**
     * @return the {@code LISTEN/NOTIFY} channel: a lower-case identifier of at most 63
     *     characters; {@code durable_store_outbox} by default. Stores sharing a database but not an
     *     outbox (different schemas) should use different channels.
     */
    public String notifyChannel() {
        return settings.notifyChannel();
    }

    /**
     * @return where operation timings, claim counts and commits are reported;
     *     {@link StoreMetrics#NONE} by default
     */
    public StoreMetrics metrics() {
        return settings.metrics();
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
        return settings.operationTimeout();
    }

    /**
     * @param value the database, or {@code null} to detect it
     * @return a copy with the dialect set
     */
    public R2dbcStoreConfig withDialect(R2dbcDialect value) {
        return with(d -> d.dialect = value);
    }

    /**
     * @param value the clock the store reads {@code now} from
     * @return a copy with the clock set
     * @throws InvalidArgumentException naming {@code clock} when null
     */
    public R2dbcStoreConfig withClock(Clock value) {
        return with(d -> d.clock = value);
    }

    /**
     * @param value true to {@code NOTIFY}/{@code LISTEN} on PostgreSQL, false to rely on polling
     * @return a copy with notifications switched
     */
    public R2dbcStoreConfig withNotifications(boolean value) {
        return with(d -> d.notifications = value);
    }

    /**
     * @param value the channel name, a lower-case identifier
     * @return a copy with the channel set
     * @throws InvalidArgumentException naming {@code notifyChannel} when null or not such an identifier
     */
    public R2dbcStoreConfig withNotifyChannel(String value) {
        return with(d -> d.notifyChannel = value);
    }

    /**
     * @param value where to report metrics, e.g. {@code new MicrometerStoreMetrics(registry, "orders")}
     * @return a copy with the metrics sink set
     * @throws InvalidArgumentException naming {@code metrics} when null
     */
    public R2dbcStoreConfig withMetrics(StoreMetrics value) {
        return with(d -> d.metrics = value);
    }

    /**
     * @param value the longest one operation may take before it fails with
     *     {@link dev.durablestore.api.BackendException}; positive
     * @return a copy with the operation timeout set
     * @throws InvalidArgumentException naming {@code operationTimeout} when null or not positive
     */
    public R2dbcStoreConfig withOperationTimeout(Duration value) {
        return with(d -> d.operationTimeout = value);
    }

    /** @return true when {@code o} is a configuration with the same settings */
    @Override
    public boolean equals(Object o) {
        return o instanceof R2dbcStoreConfig c && settings.equals(c.settings);
    }

    @Override
    public int hashCode() {
        return settings.hashCode();
    }

    /** @return every setting, as {@code R2dbcStoreConfig[connectionFactory=…, dialect=…, …]} */
    @Override
    public String toString() {
        return "R2dbcStoreConfig"
                + settings.toString().substring(Settings.class.getSimpleName().length());
    }
}
