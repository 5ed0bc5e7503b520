package dev.durablestore.spring;

import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Pattern;
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
 */
@ConfigurationProperties(prefix = DurableStoreProperties.PREFIX)
public class DurableStoreProperties implements Validator {

    /** The prefix of every property of the starter. */
    public static final String PREFIX = "durablestore";

    private static final Pattern CHANNEL = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

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

    /** Which storage engine backs the store; {@code auto} by default. */
    private Backend backend = Backend.AUTO;

    private final Sqlite sqlite = new Sqlite();
    private final R2dbc r2dbc = new R2dbc();
    private final Reaper reaper = new Reaper();
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

    @Override
    public void validate(Object target, Errors errors) {
        DurableStoreProperties p = (DurableStoreProperties) target;
        required(errors, "backend", "backend", p.backend);
        required(errors, "sqlite.path", "sqlite.path", p.sqlite.path);
        range(errors, "sqlite.readerPoolSize", "sqlite.reader-pool-size", p.sqlite.readerPoolSize, 1, 64);
        range(errors, "sqlite.maxBatchCommands", "sqlite.max-batch-commands", p.sqlite.maxBatchCommands, 1, 100_000);
        duration(errors, "sqlite.busyTimeout", "sqlite.busy-timeout", p.sqlite.busyTimeout, true);
        if (p.r2dbc.notifyChannel == null
                || !CHANNEL.matcher(p.r2dbc.notifyChannel).matches()) {
            reject(
                    errors,
                    "r2dbc.notifyChannel",
                    "r2dbc.notify-channel",
                    "must be a lower-case identifier of at most 63 characters, was " + p.r2dbc.notifyChannel);
        }
        duration(errors, "r2dbc.operationTimeout", "r2dbc.operation-timeout", p.r2dbc.operationTimeout, false);
        duration(errors, "reaper.lease", "reaper.lease", p.reaper.lease, false);
        duration(errors, "reaper.interval", "reaper.interval", p.reaper.interval, false);
        range(errors, "reaper.batchSize", "reaper.batch-size", p.reaper.batchSize, 1, 100_000);
        range(errors, "dispatcher.concurrency", "dispatcher.concurrency", p.dispatcher.concurrency, 1, 10_000);
        range(errors, "dispatcher.maxBatch", "dispatcher.max-batch", p.dispatcher.maxBatch, 1, 10_000);
        duration(errors, "dispatcher.pollInterval", "dispatcher.poll-interval", p.dispatcher.pollInterval, false);
        if ((p.dispatcher.namespace == null) != (p.dispatcher.taskQueue == null)) {
            reject(
                    errors,
                    "dispatcher.taskQueue",
                    "dispatcher.task-queue",
                    "must be set together with " + PREFIX + ".dispatcher.namespace (a route is both), was "
                            + p.dispatcher.taskQueue + " with namespace " + p.dispatcher.namespace);
        }
        range(errors, "dispatcher.maxAttempts", "dispatcher.max-attempts", p.dispatcher.maxAttempts, 1, 1_000_000);
        duration(errors, "dispatcher.initialBackoff", "dispatcher.initial-backoff", p.dispatcher.initialBackoff, true);
        duration(errors, "dispatcher.maxBackoff", "dispatcher.max-backoff", p.dispatcher.maxBackoff, true);
        if (p.dispatcher.initialBackoff != null
                && p.dispatcher.maxBackoff != null
                && p.dispatcher.maxBackoff.compareTo(p.dispatcher.initialBackoff) < 0) {
            reject(
                    errors,
                    "dispatcher.maxBackoff",
                    "dispatcher.max-backoff",
                    "must not be shorter than "
                            + PREFIX + ".dispatcher.initial-backoff (" + p.dispatcher.initialBackoff + "), was "
                            + p.dispatcher.maxBackoff);
        }
        duration(errors, "dispatcher.drainTimeout", "dispatcher.drain-timeout", p.dispatcher.drainTimeout, true);
        if (p.metrics.storeName == null || p.metrics.storeName.isBlank()) {
            reject(errors, "metrics.storeName", "metrics.store-name", "must not be blank");
        }
        if (p.console.path == null || !p.console.path.matches("(/[A-Za-z0-9._-]+)+")) {
            reject(
                    errors,
                    "console.path",
                    "console.path",
                    "must look like /ops/durable-store (no trailing slash), was " + p.console.path);
        }
        range(errors, "console.previewBytes", "console.preview-bytes", p.console.previewBytes, 16, 65_536);
        range(errors, "console.countCap", "console.count-cap", p.console.countCap, 1, 10_000_000);
        duration(errors, "console.countTtl", "console.count-ttl", p.console.countTtl, true);
        range(errors, "console.maxBulk", "console.max-bulk", p.console.maxBulk, 1, 10_000);
    }

    private static void required(Errors errors, String field, String property, Object value) {
        if (value == null) {
            reject(errors, field, property, "must be set");
        }
    }

    private static void range(Errors errors, String field, String property, int value, int min, int max) {
        if (value < min || value > max) {
            reject(errors, field, property, "must be between " + min + " and " + max + ", was " + value);
        }
    }

    private static void duration(Errors errors, String field, String property, Duration value, boolean zeroAllowed) {
        if (value == null) {
            reject(errors, field, property, "must be set");
        } else if (value.isNegative() || (!zeroAllowed && value.isZero())) {
            reject(
                    errors,
                    field,
                    property,
                    (zeroAllowed ? "must not be negative" : "must be positive") + ", was " + value);
        }
    }

    private static void reject(Errors errors, String field, String property, String problem) {
        errors.rejectValue(field, "durablestore.invalid", PREFIX + "." + property + " " + problem);
    }

    /** The embedded SQLite store ({@code durablestore.sqlite.*}). */
    public static class Sqlite {

        /** The database file, created when missing; {@code durable-store.db} by default. */
        private Path path = Path.of("durable-store.db");
        /** When a commit is durable; {@code full} by default. */
        private Synchronous synchronous = Synchronous.FULL;
        /** How long a connection waits for another process's lock; 10 s by default. */
        private Duration busyTimeout = Duration.ofSeconds(10);
        /** The number of read-only connections, 1 to 64; 4 by default. */
        private int readerPoolSize = 4;
        /** The most write commands committed in one group commit; 256 by default. */
        private int maxBatchCommands = 256;

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

        /** @param busyTimeout how long a connection waits for another process's lock; 10 s by default */
        public void setBusyTimeout(Duration busyTimeout) {
            this.busyTimeout = busyTimeout;
        }

        /** @return the number of read-only connections */
        public int getReaderPoolSize() {
            return readerPoolSize;
        }

        /** @param readerPoolSize the number of read-only connections, 1 to 64; 4 by default */
        public void setReaderPoolSize(int readerPoolSize) {
            this.readerPoolSize = readerPoolSize;
        }

        /** @return the most write commands committed in one group commit */
        public int getMaxBatchCommands() {
            return maxBatchCommands;
        }

        /** @param maxBatchCommands the most write commands committed in one group commit; 256 by default */
        public void setMaxBatchCommands(int maxBatchCommands) {
            this.maxBatchCommands = maxBatchCommands;
        }
    }

    /** The R2DBC store ({@code durablestore.r2dbc.*}) over the application's {@code ConnectionFactory}. */
    public static class R2dbc {

        /** Whether staging wakes claim streams on PostgreSQL; {@code true} by default. */
        private boolean notifications = true;
        /** The {@code LISTEN/NOTIFY} channel, a lower-case identifier. */
        private String notifyChannel = "durable_store_outbox";
        /** How long one database operation may take; 30 s by default. */
        private Duration operationTimeout = Duration.ofSeconds(30);

        /** @return whether staging wakes claim streams through {@code LISTEN/NOTIFY} */
        public boolean isNotifications() {
            return notifications;
        }

        /** @param notifications whether staging wakes claim streams on PostgreSQL; {@code true} by default */
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

        /** @param operationTimeout how long one database operation may take; 30 s by default */
        public void setOperationTimeout(Duration operationTimeout) {
            this.operationTimeout = operationTimeout;
        }
    }

    /** The lease reaper ({@code durablestore.reaper.*}): re-arms rows whose claim outlived its lease. */
    public static class Reaper {

        /** Whether the lease reaper runs; {@code true} by default. */
        private boolean enabled = true;
        /** How long a claim may go without a heartbeat before it is re-armed; 5 min by default. */
        private Duration lease = Duration.ofMinutes(5);
        /** The time between sweeps; 30 s by default. */
        private Duration interval = Duration.ofSeconds(30);
        /** The most rows re-armed per statement; 500 by default. */
        private int batchSize = 500;

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

        /** @param lease how long a claim may go without a heartbeat before it is re-armed; 5 min by default */
        public void setLease(Duration lease) {
            this.lease = lease;
        }

        /** @return the time between sweeps */
        public Duration getInterval() {
            return interval;
        }

        /** @param interval the time between sweeps; 30 s by default */
        public void setInterval(Duration interval) {
            this.interval = interval;
        }

        /** @return the most rows re-armed per statement */
        public int getBatchSize() {
            return batchSize;
        }

        /** @param batchSize the most rows re-armed per statement; 500 by default */
        public void setBatchSize(int batchSize) {
            this.batchSize = batchSize;
        }
    }

    /**
     * The dispatcher ({@code durablestore.dispatcher.*}): runs when the application has one
     * {@link OutboxDispatchHandler} bean.
     */
    public static class Dispatcher {

        /** Whether the dispatcher runs when the application has one handler bean; {@code true} by default. */
        private boolean enabled = true;
        /** How many rows are handled at once; 16 by default. */
        private int concurrency = 16;
        /** The most rows one claim takes; 64 by default. */
        private int maxBatch = 64;
        /** How often an idle claim stream looks for rows; 1 s by default. */
        private Duration pollInterval = Duration.ofSeconds(1);
        /** The namespace of the route claimed from; every route when unset. */
        private String namespace;
        /** The task queue of the route claimed from; set with the namespace. */
        private String taskQueue;
        /** The attempts a row gets before it is dead-lettered; 5 by default. */
        private int maxAttempts = 5;
        /** The delay before the first retry, doubled for each next one; 1 s by default. */
        private Duration initialBackoff = Duration.ofSeconds(1);
        /** The longest delay between retries; 5 min by default. */
        private Duration maxBackoff = Duration.ofMinutes(5);
        /**
         * How long shutdown waits for handlers in flight before it cancels them and releases their rows
         * to pending for another dispatcher; 20 s by default, and with the 5 s release it must end
         * within {@code spring.lifecycle.timeout-per-shutdown-phase}.
         */
        private Duration drainTimeout = Duration.ofSeconds(20);

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

        /** @param maxBatch the most rows one claim takes; 64 by default */
        public void setMaxBatch(int maxBatch) {
            this.maxBatch = maxBatch;
        }

        /** @return how often an idle claim stream looks for rows */
        public Duration getPollInterval() {
            return pollInterval;
        }

        /** @param pollInterval how often an idle claim stream looks for rows; 1 s by default */
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

        /** Whether the store reports to the application's {@code MeterRegistry}; {@code true} by default. */
        private boolean enabled = true;
        /** The {@code store} tag of every meter; {@code default} by default. */
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

        private boolean enabled;
        private String path = "/durable-store";
        private boolean readOnly = true;
        private boolean previews = true;
        private int previewBytes = 2048;
        private int countCap = 100_000;
        private Duration countTtl = Duration.ofSeconds(2);
        private int maxBulk = 1000;

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

        /** @param previewBytes the most bytes of a payload previewed, 16 to 65536; 2048 by default */
        public void setPreviewBytes(int previewBytes) {
            this.previewBytes = previewBytes;
        }

        /** @return the most rows counted per status by one overview count */
        public int getCountCap() {
            return countCap;
        }

        /** @param countCap the most rows counted per status by one overview count; 100000 by default */
        public void setCountCap(int countCap) {
            this.countCap = countCap;
        }

        /** @return how long overview counts are reused */
        public Duration getCountTtl() {
            return countTtl;
        }

        /** @param countTtl how long overview counts are reused; 2 s by default */
        public void setCountTtl(Duration countTtl) {
            this.countTtl = countTtl;
        }

        /** @return the most rows one bulk action touches */
        public int getMaxBulk() {
            return maxBulk;
        }

        /** @param maxBulk the most rows one bulk action touches, 1 to 10000; 1000 by default */
        public void setMaxBulk(int maxBulk) {
            this.maxBulk = maxBulk;
        }
    }
}
