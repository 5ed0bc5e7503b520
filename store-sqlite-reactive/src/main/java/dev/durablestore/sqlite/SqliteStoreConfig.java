package dev.durablestore.sqlite;

import com.google.errorprone.annotations.CheckReturnValue;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.StoreConfig;
import dev.durablestore.api.StoreMetrics;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
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

    /** The default {@link #checkpointPages()}. */
    public static final int DEFAULT_CHECKPOINT_PAGES = 10_000;

    /** The default {@link #writerCacheKib()}: SQLite's own, 2,000 KiB. */
    public static final int DEFAULT_WRITER_CACHE_KIB = 2_000;

    /** The largest {@link #writerCacheKib()}: 16 GiB. */
    private static final int MAX_WRITER_CACHE_KIB = 16 * 1024 * 1024;

    private final Path path;
    private final SqliteJournalMode journalMode;
    private final SqliteSynchronous synchronous;
    private final boolean durabilityWaived;
    private final Duration busyTimeout;
    private final int readerPoolSize;
    private final int maxBatchCommands;
    private final int checkpointPages;
    private final int writerCacheKib;
    private final Clock clock;
    private final StoreMetrics metrics;

    private SqliteStoreConfig(
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
        if (busyTimeout.isNegative() || busyTimeout.compareTo(Duration.ofMillis(Integer.MAX_VALUE)) > 0) {
            throw new InvalidArgumentException("busyTimeout", "must be between 0 and " + Integer.MAX_VALUE + " ms");
        }
        if (readerPoolSize < 1 || readerPoolSize > 64) {
            throw new InvalidArgumentException("readerPoolSize", "must be between 1 and 64, was " + readerPoolSize);
        }
        if (maxBatchCommands < 1 || maxBatchCommands > 100_000) {
            throw new InvalidArgumentException(
                    "maxBatchCommands", "must be between 1 and 100000, was " + maxBatchCommands);
        }
        if (checkpointPages < 1) {
            throw new InvalidArgumentException("checkpointPages", "must be at least 1, was " + checkpointPages);
        }
        if (writerCacheKib < 1 || writerCacheKib > MAX_WRITER_CACHE_KIB) {
            throw new InvalidArgumentException(
                    "writerCacheKib", "must be between 1 and " + MAX_WRITER_CACHE_KIB + " KiB, was " + writerCacheKib);
        }
        InvalidArgumentException.requireNonNull(clock, "clock");
        InvalidArgumentException.requireNonNull(metrics, "metrics");
        this.path = path;
        this.journalMode = journalMode;
        this.synchronous = synchronous;
        this.durabilityWaived = durabilityWaived;
        this.busyTimeout = busyTimeout;
        this.readerPoolSize = readerPoolSize;
        this.maxBatchCommands = maxBatchCommands;
        this.checkpointPages = checkpointPages;
        this.writerCacheKib = writerCacheKib;
        this.clock = clock;
        this.metrics = metrics;
    }

    /**
     * @param path the database file; created when missing
     * @return the defaults for that file: WAL, SQLite's default synchronous, 10 s busy timeout,
     *     4 readers, batches of up to 256 commands, checkpoints every 10,000 log pages, SQLite's
     *     2,000 KiB page cache, the UTC system clock, no metrics
     * @throws InvalidArgumentException when {@code path} is null
     */
    public static SqliteStoreConfig of(Path path) {
        return new SqliteStoreConfig(
                path,
                SqliteJournalMode.WAL,
                null,
                false,
                Duration.ofSeconds(10),
                4,
                256,
                DEFAULT_CHECKPOINT_PAGES,
                DEFAULT_WRITER_CACHE_KIB,
                Clock.systemUTC(),
                StoreMetrics.NONE);
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
        return path;
    }

    /** @return the {@code journal_mode} pragma; {@link SqliteJournalMode#WAL} by default (S17) */
    public SqliteJournalMode journalMode() {
        return journalMode;
    }

    /**
     * @return the {@code synchronous} pragma set on every connection, or {@code null} to keep
     *     SQLite's default ({@link SqliteSynchronous#FULL})
     */
    public SqliteSynchronous synchronous() {
        return synchronous;
    }

    /** @return whether modes that can lose or corrupt committed data on a crash are allowed */
    public boolean durabilityWaived() {
        return durabilityWaived;
    }

    /** @return how long a connection waits for another process's lock; 10 s by default (S16) */
    public Duration busyTimeout() {
        return busyTimeout;
    }

    /** @return the number of read-only connections and reader threads; 4 by default */
    public int readerPoolSize() {
        return readerPoolSize;
    }

    /** @return the most write commands committed in one group-commit transaction; 256 by default */
    public int maxBatchCommands() {
        return maxBatchCommands;
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
        return checkpointPages;
    }

    /**
     * The write connection's page cache, in KiB (its {@code cache_size}); SQLite's own 2,000 by
     * default. A larger cache helps appends spread over a file larger than the cache (each append
     * lands on random pages of the events table and its projection index, and a page the cache no
     * longer holds is read again under the write lock): with 50,000 workflows (a 31 MB file) 64 MiB
     * made appends about 8% faster. It has a cost too, measured but not yet explained: at 64 MiB a
     * fresh store's claims took 10–20% longer and its outbox drain 5–30% longer (docs/design.md,
     * the writer's page cache). Readers keep SQLite's default.
     *
     * @return the writer's page cache in KiB
     */
    public int writerCacheKib() {
        return writerCacheKib;
    }

    /** @return the store's clock, read once per operation for {@code now}; UTC system clock by default */
    public Clock clock() {
        return clock;
    }

    /**
     * @return where operation timings, claim counts, commit batch sizes and the writer queue depth
     *     are reported; {@link StoreMetrics#NONE} by default
     */
    public StoreMetrics metrics() {
        return metrics;
    }

    /**
     * @param value the journal mode; {@link SqliteJournalMode#MEMORY} and {@link SqliteJournalMode#OFF}
     *     only after {@link #withDurabilityWaived(boolean)}
     * @return a copy with the journal mode set
     * @throws InvalidArgumentException naming {@code journalMode} when null or not allowed
     */
    public SqliteStoreConfig withJournalMode(SqliteJournalMode value) {
        return new SqliteStoreConfig(
                path,
                value,
                synchronous,
                durabilityWaived,
                busyTimeout,
                readerPoolSize,
                maxBatchCommands,
                checkpointPages,
                writerCacheKib,
                clock,
                metrics);
    }

    /**
     * @param value the synchronous mode, or {@code null} for SQLite's default;
     *     {@link SqliteSynchronous#OFF} only after {@link #withDurabilityWaived(boolean)}
     * @return a copy with the synchronous mode set
     * @throws InvalidArgumentException naming {@code synchronous} when not allowed
     */
    public SqliteStoreConfig withSynchronous(SqliteSynchronous value) {
        return new SqliteStoreConfig(
                path,
                journalMode,
                value,
                durabilityWaived,
                busyTimeout,
                readerPoolSize,
                maxBatchCommands,
                checkpointPages,
                writerCacheKib,
                clock,
                metrics);
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
        return new SqliteStoreConfig(
                path,
                journalMode,
                synchronous,
                value,
                busyTimeout,
                readerPoolSize,
                maxBatchCommands,
                checkpointPages,
                writerCacheKib,
                clock,
                metrics);
    }

    /**
     * @param value the lock wait bound, 0 to {@value Integer#MAX_VALUE} ms
     * @return a copy with the busy timeout set
     * @throws InvalidArgumentException naming {@code busyTimeout} when null or out of range
     */
    public SqliteStoreConfig withBusyTimeout(Duration value) {
        return new SqliteStoreConfig(
                path,
                journalMode,
                synchronous,
                durabilityWaived,
                value,
                readerPoolSize,
                maxBatchCommands,
                checkpointPages,
                writerCacheKib,
                clock,
                metrics);
    }

    /**
     * @param value number of read connections, 1 to 64
     * @return a copy with the reader pool size set
     * @throws InvalidArgumentException naming {@code readerPoolSize} when out of range
     */
    public SqliteStoreConfig withReaderPoolSize(int value) {
        return new SqliteStoreConfig(
                path,
                journalMode,
                synchronous,
                durabilityWaived,
                busyTimeout,
                value,
                maxBatchCommands,
                checkpointPages,
                writerCacheKib,
                clock,
                metrics);
    }

    /**
     * @param value most commands per group commit, 1 to 100,000
     * @return a copy with the batch bound set
     * @throws InvalidArgumentException naming {@code maxBatchCommands} when out of range
     */
    public SqliteStoreConfig withMaxBatchCommands(int value) {
        return new SqliteStoreConfig(
                path,
                journalMode,
                synchronous,
                durabilityWaived,
                busyTimeout,
                readerPoolSize,
                value,
                checkpointPages,
                writerCacheKib,
                clock,
                metrics);
    }

    /**
     * @param value write-ahead log pages between checkpoints, at least 1 (SQLite's own default is 1,000)
     * @return a copy with the checkpoint threshold set
     * @throws InvalidArgumentException naming {@code checkpointPages} when below 1
     */
    public SqliteStoreConfig withCheckpointPages(int value) {
        return new SqliteStoreConfig(
                path,
                journalMode,
                synchronous,
                durabilityWaived,
                busyTimeout,
                readerPoolSize,
                maxBatchCommands,
                value,
                writerCacheKib,
                clock,
                metrics);
    }

    /**
     * @param value the write connection's page cache in KiB, 1 to 16 GiB (SQLite's own default is 2,000)
     * @return a copy with the writer's page cache size set
     * @throws InvalidArgumentException naming {@code writerCacheKib} when out of range
     */
    public SqliteStoreConfig withWriterCacheKib(int value) {
        return new SqliteStoreConfig(
                path,
                journalMode,
                synchronous,
                durabilityWaived,
                busyTimeout,
                readerPoolSize,
                maxBatchCommands,
                checkpointPages,
                value,
                clock,
                metrics);
    }

    /**
     * @param value the clock the store reads {@code now} from
     * @return a copy with the clock set
     * @throws InvalidArgumentException naming {@code clock} when null
     */
    public SqliteStoreConfig withClock(Clock value) {
        return new SqliteStoreConfig(
                path,
                journalMode,
                synchronous,
                durabilityWaived,
                busyTimeout,
                readerPoolSize,
                maxBatchCommands,
                checkpointPages,
                writerCacheKib,
                value,
                metrics);
    }

    /**
     * @param value where to report metrics, e.g. {@code new MicrometerStoreMetrics(registry, "orders")}
     * @return a copy with the metrics sink set
     * @throws InvalidArgumentException naming {@code metrics} when null
     */
    public SqliteStoreConfig withMetrics(StoreMetrics value) {
        return new SqliteStoreConfig(
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
                value);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SqliteStoreConfig c
                && path.equals(c.path)
                && journalMode == c.journalMode
                && synchronous == c.synchronous
                && durabilityWaived == c.durabilityWaived
                && busyTimeout.equals(c.busyTimeout)
                && readerPoolSize == c.readerPoolSize
                && maxBatchCommands == c.maxBatchCommands
                && checkpointPages == c.checkpointPages
                && writerCacheKib == c.writerCacheKib
                && clock.equals(c.clock)
                && metrics.equals(c.metrics);
    }

    @Override
    public int hashCode() {
        return Objects.hash(
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
                metrics);
    }

    @Override
    public String toString() {
        return "SqliteStoreConfig[path=" + path + ", journalMode=" + journalMode + ", synchronous=" + synchronous
                + ", durabilityWaived=" + durabilityWaived + ", busyTimeout=" + busyTimeout + ", readerPoolSize="
                + readerPoolSize + ", maxBatchCommands=" + maxBatchCommands + ", checkpointPages=" + checkpointPages
                + ", writerCacheKib=" + writerCacheKib + ", clock=" + clock + ", metrics=" + metrics + "]";
    }
}
