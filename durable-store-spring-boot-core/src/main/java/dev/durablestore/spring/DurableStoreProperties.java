package dev.durablestore.spring;

import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.OperatorStore;
import dev.durablestore.api.OutboxLeaseReaper;
import dev.durablestore.api.RetentionPolicy;
import dev.durablestore.api.RetentionSweeper;
import dev.durablestore.console.ConsoleOptions;
import dev.durablestore.console.DurableConsole;
import dev.durablestore.r2dbc.R2dbcStoreConfig;
import dev.durablestore.sqlite.SqliteStoreConfig;
import dev.durablestore.sqlite.SqliteSynchronous;
import io.r2dbc.spi.ConnectionFactory;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * The starter's settings, bound from the {@code durablestore.*} properties and checked when the
 * application starts: a bad value stops the start-up with a message that names the property (for
 * example {@code durablestore.dispatcher.concurrency must be between 1 and 10000, was 0}).
 *
 * <pre>{@code
 * durablestore.sqlite.path=/var/lib/orders/workflows.db
 * durablestore.dispatcher.namespace=orders
 * durablestore.dispatcher.task-queue=payments
 * }</pre>
 *
 * <p>Every field has a default; {@code durablestore.backend=auto} picks PostgreSQL (or any R2DBC
 * database) when the application has an R2DBC {@code ConnectionFactory} bean, the embedded SQLite
 * file otherwise, and refuses to start when the configuration contradicts that choice (the rule is
 * {@link DurableStoreBackend}'s).
 *
 * <p>A setting of a library type ({@link SqliteStoreConfig}, {@link R2dbcStoreConfig},
 * {@link OutboxLeaseReaper}, {@link ClaimStreamOptions}, {@link ConsoleOptions}) takes its default
 * from that type and is checked by it, so that each default and limit is written once, in the
 * library; the starter checks only the settings that are its own (the dispatcher's concurrency,
 * retries and drain, the metrics tag, the backend).
 */
@ConfigurationProperties(prefix = DurableStoreProperties.PREFIX)
public class DurableStoreProperties implements Validator {

    /** The prefix of every property of the starter. */
    public static final String PREFIX = "durablestore";

    /** Which storage engine backs the store. */
    public enum Backend {
        /**
         * R2DBC when a {@code ConnectionFactory} bean exists, SQLite otherwise; start-up fails when the
         * configuration says otherwise (see {@link DurableStoreBackend}).
         */
        AUTO,
        /** The embedded SQLite file of {@code durablestore.sqlite.path}. */
        SQLITE,
        /** The application's R2DBC {@code ConnectionFactory} (PostgreSQL, or H2 in tests). */
        R2DBC
    }

    /** SQLite's {@code synchronous} setting: when a commit is durable. */
    public enum Synchronous {
        /** Every commit is on disk before it is acknowledged (SQLite's default). */
        FULL,
        /**
         * In WAL mode, a commit acknowledged just before a power loss (not a process crash) may be
         * lost; the file stays consistent.
         */
        NORMAL
    }

    /** Which storage engine backs the store. */
    private Backend backend = Backend.AUTO;

    private final Sqlite sqlite = new Sqlite();
    private final R2dbc r2dbc = new R2dbc();
    private final Reaper reaper = new Reaper();
    private final Retention retention = new Retention();
    private final Dispatcher dispatcher = new Dispatcher();
    private final Metrics metrics = new Metrics();
    private final Observations observations = new Observations();
    private final Console console = new Console();

    /** @return which storage engine backs the store */
    public Backend getBackend() {
        return backend;
    }

    /** @param backend which storage engine backs the store; {@code auto} by default */
    public void setBackend(Backend backend) {
        this.backend = backend;
    }

    /** @return the embedded SQLite settings */
    public Sqlite getSqlite() {
        return sqlite;
    }

    /** @return the R2DBC settings */
    public R2dbc getR2dbc() {
        return r2dbc;
    }

    /** @return the lease reaper's settings */
    public Reaper getReaper() {
        return reaper;
    }

    /** @return the retention settings */
    public Retention getRetention() {
        return retention;
    }

    /** @return the dispatcher's settings */
    public Dispatcher getDispatcher() {
        return dispatcher;
    }

    /** @return the metrics settings */
    public Metrics getMetrics() {
        return metrics;
    }

    /** @return the observation (tracing) settings */
    public Observations getObservations() {
        return observations;
    }

    /** @return the operator console's settings */
    public Console getConsole() {
        return console;
    }

    @Override
    public boolean supports(Class<?> type) {
        return DurableStoreProperties.class.isAssignableFrom(type);
    }

    /**
     * Checks every property, each by the library type it configures where it has one, and reports
     * every bad property at once, named as it is written.
     */
    @Override
    public void validate(Object target, Errors errors) {
        DurableStoreProperties p = (DurableStoreProperties) target;
        PropertyGroup.of("", p, errors).check(() -> InvalidArgumentException.requireNonNull(p.backend, "backend"));
        p.sqlite.config(errors);
        p.r2dbc.config(unused(ConnectionFactory.class), errors);
        p.reaper.reaper(unused(OperatorStore.class), errors);
        p.retention.sweeper(unused(OperatorStore.class), p.retention.policy(errors), errors);
        p.dispatcher.claimStreamOptions(errors);
        p.dispatcher.check(errors);
        p.metrics.check(errors);
        p.console.options(errors);
    }

    /**
     * @return an instance of {@code type} no call may reach: what a library type is built on when
     *     only its settings are checked, before the real one exists
     */
    private static <T> T unused(Class<T> type) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
            throw new UnsupportedOperationException("a stand-in " + type.getSimpleName()
                    + " for checking the durable-store properties, called: " + method);
        }));
    }

    /** The embedded SQLite store ({@code durablestore.sqlite.*}). */
    public static class Sqlite {

        /** The starter's default database file, in the working directory. */
        private static final Path DEFAULT_PATH = Path.of("durable-store.db");

        /** The database file, created when missing. */
        private Path path = DEFAULT_PATH;
        /** When a commit is durable. */
        private Synchronous synchronous = Synchronous.FULL;
        /** How long a connection waits for another process's lock. */
        private Duration busyTimeout = SqliteStoreConfig.DEFAULT_BUSY_TIMEOUT;
        /** The number of read-only connections. */
        private int readerPoolSize = SqliteStoreConfig.DEFAULT_READER_POOL_SIZE;
        /** The most write commands committed in one group commit. */
        private int maxBatchCommands = SqliteStoreConfig.DEFAULT_MAX_BATCH_COMMANDS;

        /**
         * @param errors where a setting the library refuses is reported, or {@code null} to throw it
         * @return the store's configuration of these settings, without its clock and metrics
         */
        SqliteStoreConfig config(Errors errors) {
            return PropertyGroup.of("sqlite", SqliteStoreConfig.of(DEFAULT_PATH), errors)
                    .set(c -> c.withPath(path))
                    .set(c -> c.withSynchronous(
                            synchronous == null ? null : SqliteSynchronous.valueOf(synchronous.name())))
                    .set(c -> c.withBusyTimeout(busyTimeout))
                    .set(c -> c.withReaderPoolSize(readerPoolSize))
                    .set(c -> c.withMaxBatchCommands(maxBatchCommands))
                    .get();
        }

        /** @return the database file */
        public Path getPath() {
            return path;
        }

        /** @param path the database file, created when missing; {@code durable-store.db} by default */
        public void setPath(Path path) {
            this.path = path;
        }

        /** @return when a commit is durable */
        public Synchronous getSynchronous() {
            return synchronous;
        }

        /** @param synchronous when a commit is durable; {@code full} by default */
        public void setSynchronous(Synchronous synchronous) {
            this.synchronous = synchronous;
        }

        /** @return how long a connection waits for another process's lock */
        public Duration getBusyTimeout() {
            return busyTimeout;
        }

        /**
         * @param busyTimeout how long a connection waits for another process's lock; see
         *     {@link SqliteStoreConfig#withBusyTimeout}
         */
        public void setBusyTimeout(Duration busyTimeout) {
            this.busyTimeout = busyTimeout;
        }

        /** @return the number of read-only connections */
        public int getReaderPoolSize() {
            return readerPoolSize;
        }

        /**
         * @param readerPoolSize the number of read-only connections; see
         *     {@link SqliteStoreConfig#withReaderPoolSize}
         */
        public void setReaderPoolSize(int readerPoolSize) {
            this.readerPoolSize = readerPoolSize;
        }

        /** @return the most write commands committed in one group commit */
        public int getMaxBatchCommands() {
            return maxBatchCommands;
        }

        /**
         * @param maxBatchCommands the most write commands committed in one group commit; see
         *     {@link SqliteStoreConfig#withMaxBatchCommands}
         */
        public void setMaxBatchCommands(int maxBatchCommands) {
            this.maxBatchCommands = maxBatchCommands;
        }
    }

    /** The R2DBC store ({@code durablestore.r2dbc.*}) over the application's {@code ConnectionFactory}. */
    public static class R2dbc {

        /** Whether staging wakes claim streams on PostgreSQL. */
        private boolean notifications = R2dbcStoreConfig.DEFAULT_NOTIFICATIONS;
        /** The {@code LISTEN/NOTIFY} channel, a lower-case identifier. */
        private String notifyChannel = R2dbcStoreConfig.DEFAULT_CHANNEL;
        /** How long one database operation may take. */
        private Duration operationTimeout = R2dbcStoreConfig.DEFAULT_OPERATION_TIMEOUT;

        /**
         * @param connections the database
         * @param errors where a setting the library refuses is reported, or {@code null} to throw it
         * @return the store's configuration of these settings, without its clock and metrics
         */
        R2dbcStoreConfig config(ConnectionFactory connections, Errors errors) {
            return PropertyGroup.of("r2dbc", R2dbcStoreConfig.of(connections), errors)
                    .set(c -> c.withNotifications(notifications))
                    .set(c -> c.withNotifyChannel(notifyChannel))
                    .set(c -> c.withOperationTimeout(operationTimeout))
                    .get();
        }

        /** @return whether staging wakes claim streams through {@code LISTEN/NOTIFY} */
        public boolean isNotifications() {
            return notifications;
        }

        /**
         * @param notifications whether staging wakes claim streams on PostgreSQL; see
         *     {@link R2dbcStoreConfig#notifications}
         */
        public void setNotifications(boolean notifications) {
            this.notifications = notifications;
        }

        /** @return the {@code LISTEN/NOTIFY} channel */
        public String getNotifyChannel() {
            return notifyChannel;
        }

        /** @param notifyChannel the {@code LISTEN/NOTIFY} channel, a lower-case identifier */
        public void setNotifyChannel(String notifyChannel) {
            this.notifyChannel = notifyChannel;
        }

        /** @return how long one database operation may take */
        public Duration getOperationTimeout() {
            return operationTimeout;
        }

        /**
         * @param operationTimeout how long one database operation may take; see
         *     {@link R2dbcStoreConfig#operationTimeout}
         */
        public void setOperationTimeout(Duration operationTimeout) {
            this.operationTimeout = operationTimeout;
        }
    }

    /** The lease reaper ({@code durablestore.reaper.*}): re-arms rows whose claim outlived its lease. */
    public static class Reaper {

        /** Whether the lease reaper runs. */
        private boolean enabled = true;
        /** How long a claim may go without a heartbeat before it is re-armed. */
        private Duration lease = OutboxLeaseReaper.DEFAULT_LEASE;
        /** The time between sweeps. */
        private Duration interval = OutboxLeaseReaper.DEFAULT_INTERVAL;
        /** The most rows re-armed per statement. */
        private int batchSize = OutboxLeaseReaper.DEFAULT_BATCH_SIZE;

        /**
         * @param store the outbox the reaper watches
         * @param errors where a setting the library refuses is reported, or {@code null} to throw it
         * @return the reaper of these settings, without its clock and callbacks
         */
        OutboxLeaseReaper reaper(OperatorStore store, Errors errors) {
            return PropertyGroup.of("reaper", OutboxLeaseReaper.of(store), errors)
                    .set(r -> r.withLease(lease))
                    .set(r -> r.withInterval(interval))
                    .set(r -> r.withBatchSize(batchSize))
                    .get();
        }

        /** @return whether the reaper runs */
        public boolean isEnabled() {
            return enabled;
        }

        /** @param enabled whether the reaper runs; {@code true} by default */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        /** @return how long a claim may go without a heartbeat */
        public Duration getLease() {
            return lease;
        }

        /**
         * @param lease how long a claim may go without a heartbeat before it is re-armed; see
         *     {@link OutboxLeaseReaper#withLease}
         */
        public void setLease(Duration lease) {
            this.lease = lease;
        }

        /** @return the time between sweeps */
        public Duration getInterval() {
            return interval;
        }

        /** @param interval the time between sweeps; see {@link OutboxLeaseReaper#withInterval} */
        public void setInterval(Duration interval) {
            this.interval = interval;
        }

        /** @return the most rows re-armed per statement */
        public int getBatchSize() {
            return batchSize;
        }

        /** @param batchSize the most rows re-armed per statement; see {@link OutboxLeaseReaper#withBatchSize} */
        public void setBatchSize(int batchSize) {
            this.batchSize = batchSize;
        }
    }

    /**
     * Retention of finished workflows ({@code durablestore.retention.*}): off unless
     * {@code closed-for} is set; then a {@link RetentionSweeper} deletes closed workflows once they
     * have been closed longer than their retention (docs/operations.md).
     */
    public static class Retention {

        /** The policy the settings are checked on while {@code closed-for} is unset; never applied. */
        private static final RetentionPolicy PLACEHOLDER = RetentionPolicy.closedFor(Duration.ofDays(1));

        /** How long a closed workflow is kept; unset (the default) keeps every workflow. */
        private Duration closedFor;
        /** Per-namespace retentions, for workflows with outbox rows in those namespaces; the longest wins. */
        private Map<String, Duration> namespaces;
        /** How long settled outbox rows are kept; unset keeps them until their workflow is deleted. */
        private Duration settledRows;
        /** The time between passes. */
        private Duration interval = RetentionSweeper.DEFAULT_INTERVAL;
        /** The most closed workflows read per step. */
        private int batchSize = RetentionSweeper.DEFAULT_BATCH_SIZE;

        /**
         * The one place the retention settings become a policy: the sweeper deletes by it and the
         * console shows its backlog.
         *
         * @param errors where a setting the library refuses is reported, or {@code null} to throw it
         * @return the policy of these settings; {@code null} when retention is off ({@code closed-for}
         *     unset)
         */
        RetentionPolicy policy(Errors errors) {
            // every setting is checked also while retention is off, so a bad one never waits unseen;
            // the placeholder default only carries the other settings' checks when closed-for is unset
            PropertyGroup<RetentionPolicy> policy = PropertyGroup.of("retention", PLACEHOLDER, errors);
            if (closedFor != null) {
                policy.set(p -> RetentionPolicy.closedFor(closedFor));
            } else if (namespaces != null || settledRows != null) {
                policy.check(() -> {
                    throw new InvalidArgumentException(
                            "closedFor",
                            "must be set when namespaces or settled-rows are: retention is off without it");
                });
            }
            Map<String, Duration> own = namespaces == null ? Map.of() : namespaces;
            own.forEach((namespace, retention) -> policy.set(p -> {
                try {
                    return p.withNamespace(namespace, retention);
                } catch (InvalidArgumentException e) {
                    throw new InvalidArgumentException("namespaces", "of '" + namespace + "' " + e.problem());
                }
            }));
            if (settledRows != null) {
                policy.set(p -> p.withSettledRows(settledRows));
            }
            return closedFor == null ? null : policy.get();
        }

        /**
         * @param store the store the sweeper deletes from
         * @param policy the policy of these settings ({@link #policy}), or {@code null} when
         *     retention is off
         * @param errors where a setting the library refuses is reported, or {@code null} to throw it
         * @return the sweeper of {@code policy} and these settings, without its clock and metrics;
         *     {@code null} when retention is off
         */
        RetentionSweeper sweeper(OperatorStore store, RetentionPolicy policy, Errors errors) {
            // the interval and batch size are checked also while retention is off, on the placeholder
            RetentionSweeper sweeper = PropertyGroup.of(
                            "retention", RetentionSweeper.of(store, policy == null ? PLACEHOLDER : policy), errors)
                    .set(s -> s.withInterval(interval))
                    .set(s -> s.withBatchSize(batchSize))
                    .get();
            return policy == null ? null : sweeper;
        }

        /** @return the retentions as the start-up line gives them */
        String describe() {
            return "closed workflows kept " + closedFor
                    + (namespaces == null ? "" : ", per namespace " + namespaces)
                    + (settledRows == null ? "" : ", settled rows kept " + settledRows);
        }

        /** @return how long a closed workflow is kept, or {@code null} when retention is off */
        public Duration getClosedFor() {
            return closedFor;
        }

        /**
         * @param closedFor how long a closed workflow is kept after it closed; unset by default,
         *     which keeps every workflow; see {@link RetentionPolicy#closedFor}
         */
        public void setClosedFor(Duration closedFor) {
            this.closedFor = closedFor;
        }

        /** @return the per-namespace retentions, or {@code null} when none is set */
        public Map<String, Duration> getNamespaces() {
            return namespaces;
        }

        /**
         * @param namespaces per-namespace retentions ({@code durablestore.retention.namespaces.billing=400d});
         *     see {@link RetentionPolicy#withNamespace}
         */
        public void setNamespaces(Map<String, Duration> namespaces) {
            this.namespaces = new LinkedHashMap<>(namespaces);
        }

        /** @return how long settled rows are kept, or {@code null} */
        public Duration getSettledRows() {
            return settledRows;
        }

        /** @param settledRows how long settled outbox rows are kept; see {@link RetentionPolicy#withSettledRows} */
        public void setSettledRows(Duration settledRows) {
            this.settledRows = settledRows;
        }

        /** @return the time between passes */
        public Duration getInterval() {
            return interval;
        }

        /** @param interval the time between passes; see {@link RetentionSweeper#withInterval} */
        public void setInterval(Duration interval) {
            this.interval = interval;
        }

        /** @return the most closed workflows read per step */
        public int getBatchSize() {
            return batchSize;
        }

        /** @param batchSize the most closed workflows read per step; see {@link RetentionSweeper#withBatchSize} */
        public void setBatchSize(int batchSize) {
            this.batchSize = batchSize;
        }
    }

    /**
     * The dispatcher ({@code durablestore.dispatcher.*}): runs when the application has one
     * {@link OutboxDispatchHandler} bean.
     */
    public static class Dispatcher {

        /** The largest concurrency. */
        private static final int MAX_CONCURRENCY = 10_000;
        /** The largest maximum of attempts. */
        private static final int MAX_ATTEMPTS_LIMIT = 1_000_000;

        /** Whether the dispatcher runs when the application has one handler bean. */
        private boolean enabled = true;
        /** How many rows are handled at once. */
        private int concurrency = 16;
        /** The most rows one claim takes. */
        private int maxBatch = ClaimStreamOptions.defaults().maxBatch();
        /** How often an idle claim stream looks for rows. */
        private Duration pollInterval = ClaimStreamOptions.defaults().pollInterval();
        /** The namespace of the route claimed from; every route when unset. */
        private String namespace;
        /** The task queue of the route claimed from; set with the namespace. */
        private String taskQueue;
        /** The attempts a row gets before it is dead-lettered. */
        private int maxAttempts = 5;
        /** The delay before the first retry, doubled for each next one. */
        private Duration initialBackoff = Duration.ofSeconds(1);
        /** The longest delay between retries. */
        private Duration maxBackoff = Duration.ofMinutes(5);
        /**
         * How long shutdown waits for handlers in flight before it cancels them and releases their rows
         * to pending for another dispatcher; with the 5 s release it must end within
         * {@code spring.lifecycle.timeout-per-shutdown-phase}.
         */
        private Duration drainTimeout = Duration.ofSeconds(20);

        /**
         * @param errors where a setting the library refuses is reported, or {@code null} to throw it
         * @return the claim stream's options: the route, the batch and the poll interval
         */
        ClaimStreamOptions claimStreamOptions(Errors errors) {
            PropertyGroup<ClaimStreamOptions> options = PropertyGroup.of(
                            "dispatcher", ClaimStreamOptions.defaults(), errors)
                    .set(o -> o.withMaxBatch(maxBatch))
                    .set(o -> o.withPollInterval(pollInterval));
            // a route is both or neither; check() reports the one set without the other
            if (namespace != null && taskQueue != null) {
                options.set(o -> o.withScope(ClaimScope.of(namespace, taskQueue)));
            }
            return options.get();
        }

        /** Checks the settings that are the dispatcher's own, reporting each refused one to {@code errors}. */
        void check(Errors errors) {
            PropertyGroup.of("dispatcher", this, errors)
                    .check(() ->
                            InvalidArgumentException.requireBetween(concurrency, 1, MAX_CONCURRENCY, "concurrency"))
                    .check(() -> {
                        if ((namespace == null) != (taskQueue == null)) {
                            throw new InvalidArgumentException(
                                    "taskQueue",
                                    "must be set together with " + PREFIX
                                            + ".dispatcher.namespace (a route is both), was " + taskQueue
                                            + " with namespace " + namespace);
                        }
                    })
                    .check(() ->
                            InvalidArgumentException.requireBetween(maxAttempts, 1, MAX_ATTEMPTS_LIMIT, "maxAttempts"))
                    .check(() -> InvalidArgumentException.requireNonNegative(initialBackoff, "initialBackoff"))
                    .check(() -> InvalidArgumentException.requireNonNegative(maxBackoff, "maxBackoff"))
                    .check(() -> {
                        if (initialBackoff != null && maxBackoff != null && maxBackoff.compareTo(initialBackoff) < 0) {
                            throw new InvalidArgumentException(
                                    "maxBackoff",
                                    "must not be shorter than " + PREFIX + ".dispatcher.initial-backoff ("
                                            + initialBackoff + "), was " + maxBackoff);
                        }
                    })
                    .check(() -> InvalidArgumentException.requireNonNegative(drainTimeout, "drainTimeout"));
        }

        /** @return whether the dispatcher runs when a handler exists */
        public boolean isEnabled() {
            return enabled;
        }

        /** @param enabled whether the dispatcher runs when a handler exists; {@code true} by default */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        /** @return how many rows are handled at once */
        public int getConcurrency() {
            return concurrency;
        }

        /** @param concurrency how many rows are handled at once; 16 by default */
        public void setConcurrency(int concurrency) {
            this.concurrency = concurrency;
        }

        /** @return the most rows one claim takes */
        public int getMaxBatch() {
            return maxBatch;
        }

        /** @param maxBatch the most rows one claim takes; see {@link ClaimStreamOptions#withMaxBatch} */
        public void setMaxBatch(int maxBatch) {
            this.maxBatch = maxBatch;
        }

        /** @return how often an idle claim stream looks for rows */
        public Duration getPollInterval() {
            return pollInterval;
        }

        /**
         * @param pollInterval how often an idle claim stream looks for rows; see
         *     {@link ClaimStreamOptions#withPollInterval}
         */
        public void setPollInterval(Duration pollInterval) {
            this.pollInterval = pollInterval;
        }

        /** @return the namespace of the route claimed from, or {@code null} for every route */
        public String getNamespace() {
            return namespace;
        }

        /** @param namespace the namespace of the route claimed from; every route when unset */
        public void setNamespace(String namespace) {
            this.namespace = namespace;
        }

        /** @return the task queue of the route claimed from, or {@code null} for every route */
        public String getTaskQueue() {
            return taskQueue;
        }

        /** @param taskQueue the task queue of the route claimed from; set with the namespace */
        public void setTaskQueue(String taskQueue) {
            this.taskQueue = taskQueue;
        }

        /** @return the attempts a row gets before it is dead-lettered */
        public int getMaxAttempts() {
            return maxAttempts;
        }

        /** @param maxAttempts the attempts a row gets before it is dead-lettered; 5 by default */
        public void setMaxAttempts(int maxAttempts) {
            this.maxAttempts = maxAttempts;
        }

        /** @return the delay before the first retry */
        public Duration getInitialBackoff() {
            return initialBackoff;
        }

        /** @param initialBackoff the delay before the first retry, doubled for each next one; 1 s by default */
        public void setInitialBackoff(Duration initialBackoff) {
            this.initialBackoff = initialBackoff;
        }

        /** @return the longest delay between retries */
        public Duration getMaxBackoff() {
            return maxBackoff;
        }

        /** @param maxBackoff the longest delay between retries; 5 min by default */
        public void setMaxBackoff(Duration maxBackoff) {
            this.maxBackoff = maxBackoff;
        }

        /** @return how long shutdown waits for handlers in flight */
        public Duration getDrainTimeout() {
            return drainTimeout;
        }

        /**
         * @param drainTimeout how long shutdown waits for handlers in flight before it cancels them
         *     and releases their rows to pending for another dispatcher; 20 s by default, and with the
         *     5 s release it must end within {@code spring.lifecycle.timeout-per-shutdown-phase}
         */
        public void setDrainTimeout(Duration drainTimeout) {
            this.drainTimeout = drainTimeout;
        }
    }

    /** Micrometer metrics ({@code durablestore.metrics.*}), registered when Micrometer is present. */
    public static class Metrics {

        /** Whether the store reports to the application's {@code MeterRegistry}. */
        private boolean enabled = true;
        /** The {@code store} tag of every meter. */
        private String storeName = "default";

        /** @return whether the store reports to the application's {@code MeterRegistry} */
        public boolean isEnabled() {
            return enabled;
        }

        /** @param enabled whether the store reports to the application's {@code MeterRegistry}; {@code true} by default */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        /** @return the {@code store} tag of every meter */
        public String getStoreName() {
            return storeName;
        }

        /** @param storeName the {@code store} tag of every meter; {@code default} by default */
        public void setStoreName(String storeName) {
            this.storeName = storeName;
        }

        /** Checks the metrics settings, reporting each refused one to {@code errors}. */
        void check(Errors errors) {
            PropertyGroup.of("metrics", this, errors).check(() -> {
                if (storeName == null || storeName.isBlank()) {
                    throw new InvalidArgumentException("storeName", "must not be blank");
                }
            });
        }
    }

    /**
     * Micrometer observations ({@code durablestore.observations.*}): spans and timers of staging,
     * claims, dispatches, settles and steps, and the trace context stored with each staged row.
     */
    public static class Observations {

        /**
         * Whether the store reports observations to the application's {@code ObservationRegistry};
         * {@code false} by default, when the store costs nothing.
         */
        private boolean enabled;

        /** @return whether the store reports observations to the application's {@code ObservationRegistry} */
        public boolean isEnabled() {
            return enabled;
        }

        /**
         * @param enabled whether the store reports observations to the application's
         *     {@code ObservationRegistry}; {@code false} by default, when the store costs nothing
         */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    /** The operator console ({@code durable-store-console}), mounted in a WebFlux application. */
    public static class Console {

        /** Whether the console is mounted (reactive web applications only). */
        private boolean enabled;
        /** Where the console is mounted, on the application's own port. */
        private String path = "/durable-store";
        /** Whether the console offers and accepts no action. */
        private boolean readOnly = ConsoleOptions.defaults().readOnly();
        /** Whether payloads are previewed; false shows their sizes only. */
        private boolean previews = ConsoleOptions.defaults().previews();
        /** The most bytes of a payload previewed. */
        private int previewBytes = ConsoleOptions.defaults().previewBytes();
        /** The most rows counted per status by one overview count. */
        private int countCap = ConsoleOptions.defaults().countCap();
        /** How long overview counts are reused. */
        private Duration countTtl = ConsoleOptions.defaults().countTtl();
        /** The most rows one bulk action touches. */
        private int maxBulk = ConsoleOptions.defaults().maxBulk();

        /**
         * @param errors where a setting the library refuses is reported, or {@code null} to throw it
         * @return the console's options of these settings, with the default lease (the reaper's is
         *     set where the console is built)
         */
        ConsoleOptions options(Errors errors) {
            return PropertyGroup.of("console", ConsoleOptions.defaults(), errors)
                    .check(() -> DurableConsole.requirePath(path))
                    .set(o -> o.withReadOnly(readOnly))
                    .set(o -> o.withPreviews(previews))
                    .set(o -> o.withPreviewBytes(previewBytes))
                    .set(o -> o.withCountCap(countCap))
                    .set(o -> o.withCountTtl(countTtl))
                    .set(o -> o.withMaxBulk(maxBulk))
                    .get();
        }

        /** @return whether the console is mounted */
        public boolean isEnabled() {
            return enabled;
        }

        /** @param enabled whether the console is mounted (WebFlux applications only); {@code false} by default */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        /** @return where the console is mounted */
        public String getPath() {
            return path;
        }

        /** @param path where the console is mounted, on the application's own port; {@code /durable-store} by default */
        public void setPath(String path) {
            this.path = path;
        }

        /** @return whether the console offers and accepts no action */
        public boolean isReadOnly() {
            return readOnly;
        }

        /**
         * @param readOnly false to enable redrive, release and cancel, each then allowed or refused by the
         *     application's {@code ConsoleAuthorizer} bean (required); {@code true} by default
         */
        public void setReadOnly(boolean readOnly) {
            this.readOnly = readOnly;
        }

        /** @return whether payloads are previewed */
        public boolean isPreviews() {
            return previews;
        }

        /** @param previews false to show only payload sizes, never their content; {@code true} by default */
        public void setPreviews(boolean previews) {
            this.previews = previews;
        }

        /** @return the most bytes of a payload previewed */
        public int getPreviewBytes() {
            return previewBytes;
        }

        /** @param previewBytes the most bytes of a payload previewed; see {@link ConsoleOptions#withPreviewBytes} */
        public void setPreviewBytes(int previewBytes) {
            this.previewBytes = previewBytes;
        }

        /** @return the most rows counted per status by one overview count */
        public int getCountCap() {
            return countCap;
        }

        /**
         * @param countCap the most rows counted per status by one overview count; see
         *     {@link ConsoleOptions#withCountCap}
         */
        public void setCountCap(int countCap) {
            this.countCap = countCap;
        }

        /** @return how long overview counts are reused */
        public Duration getCountTtl() {
            return countTtl;
        }

        /** @param countTtl how long overview counts are reused; see {@link ConsoleOptions#withCountTtl} */
        public void setCountTtl(Duration countTtl) {
            this.countTtl = countTtl;
        }

        /** @return the most rows one bulk action touches */
        public int getMaxBulk() {
            return maxBulk;
        }

        /** @param maxBulk the most rows one bulk action touches; see {@link ConsoleOptions#withMaxBulk} */
        public void setMaxBulk(int maxBulk) {
            this.maxBulk = maxBulk;
        }
    }
}
