package dev.durablestore.sqlite;

import com.google.errorprone.annotations.CheckReturnValue;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.StoreConfig;
import dev.durablestore.api.StoreMetrics;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.function.Consumer;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Configuration of a {@link SqliteReactiveStore}. Immutable and validated when built: each
 * {@code with*} method returns a checked copy and leaves this one unchanged, so its result must be
 * used (a {@code with*} call as a statement does nothing; Error Prone reports it).
 *
 * <pre>{@code
 * SqliteStoreConfig config = SqliteStoreConfig.of(Path.of("workflows.db"))
 *         .withSynchronous(SqliteSynchronous.NORMAL)
 *         .withReaderPoolSize(4);
 * }</pre>
 *
 * <p><b>Durability.</b> Modes that can lose or corrupt committed data on a crash
 * ({@link SqliteJournalMode#MEMORY}, {@link SqliteJournalMode#OFF}, {@link SqliteSynchronous#OFF})
 * are refused unless {@link #withDurabilityWaived(boolean)} came first, so a configuration that
 * voids the store's promise always says so where it is written:
 *
 * <pre>{@code
 * SqliteStoreConfig scratch = SqliteStoreConfig.of(Path.of("scratch.db"))
 *         .withDurabilityWaived(true)
 *         .withSynchronous(SqliteSynchronous.OFF);
 * }</pre>
 *
 * <p><b>Opening.</b> {@link #open()} opens the store as every backend does (a {@code Mono}, the
 * file work on Reactor's bounded-elastic scheduler); {@link SqliteReactiveStore#open} does the
 * same on the calling thread, for a {@code main} method or a test.
 */
@CheckReturnValue
public final class SqliteStoreConfig implements StoreConfig<SqliteReactiveStore> {

    /** The default {@link #journalMode()}: write-ahead logging (S17). */
    public static final SqliteJournalMode DEFAULT_JOURNAL_MODE = SqliteJournalMode.WAL;

    /** The default {@link #busyTimeout()}: 10 s (S16). */
    public static final Duration DEFAULT_BUSY_TIMEOUT = Duration.ofSeconds(10);

    /** The longest {@link #busyTimeout()}: SQLite takes it as an {@code int} of milliseconds. */
    public static final Duration MAX_BUSY_TIMEOUT = Duration.ofMillis(Integer.MAX_VALUE);

    /** The default {@link #readerPoolSize()}. */
    public static final int DEFAULT_READER_POOL_SIZE = 4;

    /** The largest {@link #readerPoolSize()}. */
    public static final int MAX_READER_POOL_SIZE = 64;

    /** The default {@link #maxBatchCommands()}. */
    public static final int DEFAULT_MAX_BATCH_COMMANDS = 256;

    /** The largest {@link #maxBatchCommands()}. */
    public static final int MAX_BATCH_COMMANDS_LIMIT = 100_000;

    /** The default {@link #checkpointPages()}. */
    public static final int DEFAULT_CHECKPOINT_PAGES = 10_000;

    /** The default {@link #writerCacheKib()}: SQLite's own, 2,000 KiB. */
    public static final int DEFAULT_WRITER_CACHE_KIB = 2_000;

    /** The largest {@link #writerCacheKib()}: 16 GiB. */
    public static final int MAX_WRITER_CACHE_KIB = 16 * 1024 * 1024;

    private final Settings settings;

    private SqliteStoreConfig(Settings settings) {
        this.settings = settings;
    }

    /**
     * Every setting, checked together whenever a configuration is built (the durability waiver
     * governs two others); its {@code equals}, {@code hashCode} and {@code toString} are the
     * configuration's.
     */
    private record Settings(
            Path path,
            SqliteJournalMode journalMode,
            SqliteSynchronous synchronous,
            boolean durabilityWaived,
            Duration busyTimeout,
            int readerPoolSize,
            int maxBatchCommands,
            int checkpointPages,
            int writerCacheKib,
            Clock clock,
            StoreMetrics metrics) {

        Settings {
            InvalidArgumentException.requireNonNull(path, "path");
            InvalidArgumentException.requireNonNull(journalMode, "journalMode");
            if (!durabilityWaived && !journalMode.crashSafe()) {
                throw new InvalidArgumentException(
                        "journalMode",
                        journalMode + " can corrupt the file on a crash; "
                                + "call withDurabilityWaived(true) first to allow it");
            }
            if (!durabilityWaived && synchronous != null && !synchronous.crashSafe()) {
                throw new InvalidArgumentException(
                        "synchronous",
                        synchronous + " can lose commits and corrupt the file "
                                + "on a power loss; call withDurabilityWaived(true) first to allow it");
            }
            InvalidArgumentException.requireNonNull(busyTimeout, "busyTimeout");
            if (busyTimeout.isNegative() || busyTimeout.compareTo(MAX_BUSY_TIMEOUT) > 0) {
                throw new InvalidArgumentException(
                        "busyTimeout",
                        "must be between 0 and " + MAX_BUSY_TIMEOUT.toMillis() + " ms, was " + busyTimeout);
            }
            InvalidArgumentException.requireBetween(readerPoolSize, 1, MAX_READER_POOL_SIZE, "readerPoolSize");
            InvalidArgumentException.requireBetween(maxBatchCommands, 1, MAX_BATCH_COMMANDS_LIMIT, "maxBatchCommands");
            InvalidArgumentException.requirePositive(checkpointPages, "checkpointPages");
            InvalidArgumentException.requireBetween(writerCacheKib, 1, MAX_WRITER_CACHE_KIB, "writerCacheKib");
            InvalidArgumentException.requireNonNull(clock, "clock");
            InvalidArgumentException.requireNonNull(metrics, "metrics");
        }
    }

    /**
     * The settings being changed: the one way a configuration is copied. Starts from the defaults
     * or from a configuration; {@link #build()} checks the whole.
     */
    private static final class Draft {
        private Path path;
        private SqliteJournalMode journalMode = DEFAULT_JOURNAL_MODE;
        private SqliteSynchronous synchronous;
        private boolean durabilityWaived;
        private Duration busyTimeout = DEFAULT_BUSY_TIMEOUT;
        private int readerPoolSize = DEFAULT_READER_POOL_SIZE;
        private int maxBatchCommands = DEFAULT_MAX_BATCH_COMMANDS;
        private int checkpointPages = DEFAULT_CHECKPOINT_PAGES;
        private int writerCacheKib = DEFAULT_WRITER_CACHE_KIB;
        private Clock clock = Clock.systemUTC();
        private StoreMetrics metrics = StoreMetrics.NONE;

        private Draft(Path path) {
            this.path = path;
        }

        private Draft(Settings s) {
            path = s.path();
            journalMode = s.journalMode();
            synchronous = s.synchronous();
            durabilityWaived = s.durabilityWaived();
            busyTimeout = s.busyTimeout();
            readerPoolSize = s.readerPoolSize();
            maxBatchCommands = s.maxBatchCommands();
            checkpointPages = s.checkpointPages();
            writerCacheKib = s.writerCacheKib();
            clock = s.clock();
            metrics = s.metrics();
        }

        private SqliteStoreConfig build() {
            return new SqliteStoreConfig(new Settings(
                    path,
                    journalMode,
                    synchronous,
                    durabilityWaived,
                    busyTimeout,
                    readerPoolSize,
                    maxBatchCommands,
                    checkpointPages,
                    writerCacheKib,
                    clock,
                    metrics));
        }
    }

    /** @return a checked copy of this configuration with {@code change} made to it */
    private SqliteStoreConfig with(Consumer<Draft> change) {
        Draft draft = new Draft(settings);
        change.accept(draft);
        return draft.build();
    }

    /**
     * @param path the database file; created when missing
     * @return the defaults for that file: WAL, SQLite's default synchronous, 10 s busy timeout,
     *     {@value #DEFAULT_READER_POOL_SIZE} readers, batches of up to
     *     {@value #DEFAULT_MAX_BATCH_COMMANDS} commands, checkpoints every
     *     {@value #DEFAULT_CHECKPOINT_PAGES} log pages, SQLite's {@value #DEFAULT_WRITER_CACHE_KIB} KiB
     *     page cache, the UTC system clock, no metrics
     * @throws InvalidArgumentException when {@code path} is null
     */
    public static SqliteStoreConfig of(Path path) {
        return new Draft(path).build();
    }

    /**
     * Opens the file as {@link SqliteReactiveStore#open} does, on Reactor's bounded-elastic
     * scheduler (opening reads and may migrate the file), once per subscription.
     *
     * @return the open store; fails with {@link dev.durablestore.api.BackendException} when the file
     *     cannot be opened or migrated
     */
    @Override
    public Mono<SqliteReactiveStore> open() {
        return Mono.fromCallable(() -> SqliteReactiveStore.open(this)).subscribeOn(Schedulers.boundedElastic());
    }

    /** @return the database file; created when missing */
    public Path path() {
        return settings.path();
    }

    /** @return the {@code journal_mode} pragma; {@link #DEFAULT_JOURNAL_MODE} by default (S17) */
    public SqliteJournalMode journalMode() {
        return settings.journalMode();
    }

    /**
     * @return the {@code synchronous} pragma set on every connection, or {@code null} to keep
     *     SQLite's default ({@link SqliteSynchronous#FULL})
     */
    public SqliteSynchronous synchronous() {
        return settings.synchronous();
    }

    /** @return whether modes that can lose or corrupt committed data on a crash are allowed */
    public boolean durabilityWaived() {
        return settings.durabilityWaived();
    }

    /**
     * @return how long a connection waits for another process's lock; {@link #DEFAULT_BUSY_TIMEOUT}
     *     by default (S16)
     */
    public Duration busyTimeout() {
        return settings.busyTimeout();
    }

    /**
     * @return the number of read-only connections and reader threads;
     *     {@value #DEFAULT_READER_POOL_SIZE} by default
     */
    public int readerPoolSize() {
        return settings.readerPoolSize();
    }

    /**
     * @return the most write commands committed in one group-commit transaction;
     *     {@value #DEFAULT_MAX_BATCH_COMMANDS} by default
     */
    public int maxBatchCommands() {
        return settings.maxBatchCommands();
    }

    /**
     * The writer's {@code wal_autocheckpoint}: how many pages the write-ahead log may hold before a
     * commit copies them back into the database file; 10,000 by default (about 40 MB with 4 KiB
     * pages), against SQLite's 1,000. A page written again before the next checkpoint is copied
     * once, so a larger log costs fewer database-file writes and syncs (with
     * {@code synchronous=FULL}, 30,000 appends to distinct workflows ran about 1.5× faster than at
     * 1,000; see docs/design.md); the log file keeps its largest size on disk until the store closes
     * (which truncates it), and the commit that runs a checkpoint takes longer. Only the WAL journal
     * mode reads it.
     *
     * @return write-ahead log pages between checkpoints
     */
    public int checkpointPages() {
        return settings.checkpointPages();
    }

    /**
     * The write connection's page cache, in KiB (its {@code cache_size}); SQLite's own
     * {@value #DEFAULT_WRITER_CACHE_KIB} by default. A larger cache helps appends spread over a
     * file larger than the cache (each append lands on random pages of the events table and its
     * projection index, and a page the cache no longer holds is read again under the write lock):
     * with 50,000 workflows (a 31 MB file) 64 MiB made appends about 8% faster. It has a cost too, measured but not yet explained: at 64 MiB a
     * fresh store's claims took 10–20% longer and its outbox drain 5–30% longer (docs/design.md,
     * the writer's page cache). Readers keep SQLite's default.
     *
     * @return the writer's page cache in KiB
     */
    public int writerCacheKib() {
        return settings.writerCacheKib();
    }

    /** @return the store's clock, read once per operation for {@code now}; UTC system clock by default */
    public Clock clock() {
        return settings.clock();
    }

    /**
     * @return where operation timings, claim counts, commit batch sizes and the writer queue depth
     *     are reported; {@link StoreMetrics#NONE} by default
     */
    public StoreMetrics metrics() {
        return settings.metrics();
    }

    /**
     * @param value the database file; created when missing
     * @return a copy on that file
     * @throws InvalidArgumentException naming {@code path} when null
     */
    public SqliteStoreConfig withPath(Path value) {
        return with(d -> d.path = value);
    }

    /**
     * @param value the journal mode; {@link SqliteJournalMode#MEMORY} and {@link SqliteJournalMode#OFF}
     *     only after {@link #withDurabilityWaived(boolean)}
     * @return a copy with the journal mode set
     * @throws InvalidArgumentException naming {@code journalMode} when null or not allowed
     */
    public SqliteStoreConfig withJournalMode(SqliteJournalMode value) {
        return with(d -> d.journalMode = value);
    }

    /**
     * @param value the synchronous mode, or {@code null} for SQLite's default;
     *     {@link SqliteSynchronous#OFF} only after {@link #withDurabilityWaived(boolean)}
     * @return a copy with the synchronous mode set
     * @throws InvalidArgumentException naming {@code synchronous} when not allowed
     */
    public SqliteStoreConfig withSynchronous(SqliteSynchronous value) {
        return with(d -> d.synchronous = value);
    }

    /**
     * Allows, or again refuses, the modes that can lose or corrupt committed data on a crash: for
     * tests and scratch files whose loss costs nothing. Call it before choosing such a mode.
     *
     * @param value true to allow them
     * @return a copy with the waiver set
     * @throws InvalidArgumentException naming the mode when {@code value} is false and this
     *     configuration already has one that is not crash-safe
     */
    public SqliteStoreConfig withDurabilityWaived(boolean value) {
        return with(d -> d.durabilityWaived = value);
    }

    /**
     * @param value the lock wait bound, 0 to {@link #MAX_BUSY_TIMEOUT}
     * @return a copy with the busy timeout set
     * @throws InvalidArgumentException naming {@code busyTimeout} when null or out of range
     */
    public SqliteStoreConfig withBusyTimeout(Duration value) {
        return with(d -> d.busyTimeout = value);
    }

    /**
     * @param value number of read connections, 1 to {@value #MAX_READER_POOL_SIZE}
     * @return a copy with the reader pool size set
     * @throws InvalidArgumentException naming {@code readerPoolSize} when out of range
     */
    public SqliteStoreConfig withReaderPoolSize(int value) {
        return with(d -> d.readerPoolSize = value);
    }

    /**
     * @param value most commands per group commit, 1 to {@value #MAX_BATCH_COMMANDS_LIMIT}
     * @return a copy with the batch bound set
     * @throws InvalidArgumentException naming {@code maxBatchCommands} when out of range
     */
    public SqliteStoreConfig withMaxBatchCommands(int value) {
        return with(d -> d.maxBatchCommands = value);
    }

    /**
     * @param value write-ahead log pages between checkpoints, at least 1 (SQLite's own default is 1,000)
     * @return a copy with the checkpoint threshold set
     * @throws InvalidArgumentException naming {@code checkpointPages} when below 1
     */
    public SqliteStoreConfig withCheckpointPages(int value) {
        return with(d -> d.checkpointPages = value);
    }

    /**
     * @param value the write connection's page cache in KiB, 1 to {@value #MAX_WRITER_CACHE_KIB}
     *     (16 GiB; SQLite's own default is 2,000)
     * @return a copy with the writer's page cache size set
     * @throws InvalidArgumentException naming {@code writerCacheKib} when out of range
     */
    public SqliteStoreConfig withWriterCacheKib(int value) {
        return with(d -> d.writerCacheKib = value);
    }

    /**
     * @param value the clock the store reads {@code now} from
     * @return a copy with the clock set
     * @throws InvalidArgumentException naming {@code clock} when null
     */
    public SqliteStoreConfig withClock(Clock value) {
        return with(d -> d.clock = value);
    }

    /**
     * @param value where to report metrics, e.g. {@code new MicrometerStoreMetrics(registry, "orders")}
     * @return a copy with the metrics sink set
     * @throws InvalidArgumentException naming {@code metrics} when null
     */
    public SqliteStoreConfig withMetrics(StoreMetrics value) {
        return with(d -> d.metrics = value);
    }

    /** @return true when {@code o} is a configuration with the same settings */
    @Override
    public boolean equals(Object o) {
        return o instanceof SqliteStoreConfig c && settings.equals(c.settings);
    }

    @Override
    public int hashCode() {
        return settings.hashCode();
    }

    /** @return every setting, as {@code SqliteStoreConfig[path=…, journalMode=…, …]} */
    @Override
    public String toString() {
        return "SqliteStoreConfig"
                + settings.toString().substring(Settings.class.getSimpleName().length());
    }
}
