package dev.durablestore.sqlite;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.StoreMetrics;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.regex.Pattern;

/**
 * Configuration of a {@link SqliteReactiveStore}. Immutable and validated when built: each
 * {@code with*} method returns a checked copy.
 *
 * <pre>{@code
 * SqliteStoreConfig config = SqliteStoreConfig.of(Path.of("workflows.db"))
 *         .withSynchronous("NORMAL")
 *         .withReaderPoolSize(4);
 * }</pre>
 *
 * @param path the database file; created when missing
 * @param journalMode the {@code journal_mode} pragma; {@code WAL} by default (S17)
 * @param synchronous the {@code synchronous} pragma, or {@code null} to keep SQLite's default
 *     ({@code FULL}); set on every connection
 * @param busyTimeout how long a connection waits for another process's lock; 10 s by default (S16)
 * @param readerPoolSize number of read-only connections and reader threads; 4 by default
 * @param maxBatchCommands most write commands committed in one group-commit transaction; 256 by default
 * @param checkpointPages the writer's {@code wal_autocheckpoint}: how many pages the write-ahead log
 *     may hold before a commit copies them back into the database file; 10,000 by default (about
 *     40 MB with 4 KiB pages), against SQLite's 1,000. A page written again before the next
 *     checkpoint is copied once, so a larger log costs fewer database-file writes and syncs (with
 *     {@code synchronous=FULL}, 30,000 appends to distinct workflows ran about 1.5× faster than at
 *     1,000; see the README's design section); the log file keeps its largest size on disk until
 *     the store closes (which truncates it), and the commit that runs a checkpoint takes longer.
 *     Only the WAL journal mode reads it
 * @param writerCacheKib the write connection's page cache, in KiB (its {@code cache_size}); SQLite's
 *     own 2,000 by default. A larger cache helps appends spread over a file larger than the cache
 *     (each append lands on random pages of the events table and its projection index, and a page
 *     the cache no longer holds is read again under the write lock): with 50,000 workflows (a
 *     31 MB file) 64 MiB made appends about 8% faster. It has a cost too, measured but not yet
 *     explained: at 64 MiB a fresh store's claims took 10–20% longer and its outbox drain 5–30%
 *     longer (README, design: the writer's page cache). Readers keep SQLite's default
 * @param clock the store's clock, read once per operation for {@code now}; UTC system clock by default
 * @param metrics where operation timings, claim counts, commit batch sizes and the writer queue
 *     depth are reported; {@link StoreMetrics#NONE} by default
 */
public record SqliteStoreConfig(
        Path path,
        String journalMode,
        String synchronous,
        Duration busyTimeout,
        int readerPoolSize,
        int maxBatchCommands,
        int checkpointPages,
        int writerCacheKib,
        Clock clock,
        StoreMetrics metrics) {

    /** The default {@link #checkpointPages()}. */
    public static final int DEFAULT_CHECKPOINT_PAGES = 10_000;

    /** The default {@link #writerCacheKib()}: SQLite's own, 2,000 KiB. */
    public static final int DEFAULT_WRITER_CACHE_KIB = 2_000;

    /** The largest {@link #writerCacheKib()}: 16 GiB. */
    private static final int MAX_WRITER_CACHE_KIB = 16 * 1024 * 1024;

    private static final Pattern PRAGMA_VALUE = Pattern.compile("[A-Za-z0-9_]+");

    /** Validates every field (S19: pragma values are letters, digits and {@code _}). */
    public SqliteStoreConfig {
        InvalidArgumentException.requireNonNull(path, "path");
        requirePragma(journalMode, "journalMode", false);
        requirePragma(synchronous, "synchronous", true);
        InvalidArgumentException.requireNonNull(busyTimeout, "busyTimeout");
        if (busyTimeout.isNegative() || busyTimeout.toMillis() > Integer.MAX_VALUE) {
            throw new InvalidArgumentException("busyTimeout", "must be between 0 and " + Integer.MAX_VALUE + " ms");
        }
        if (readerPoolSize < 1 || readerPoolSize > 64) {
            throw new InvalidArgumentException("readerPoolSize", "must be between 1 and 64, was " + readerPoolSize);
        }
        if (maxBatchCommands < 1 || maxBatchCommands > 100_000) {
            throw new InvalidArgumentException("maxBatchCommands",
                    "must be between 1 and 100000, was " + maxBatchCommands);
        }
        if (checkpointPages < 1) {
            throw new InvalidArgumentException("checkpointPages", "must be at least 1, was " + checkpointPages);
        }
        if (writerCacheKib < 1 || writerCacheKib > MAX_WRITER_CACHE_KIB) {
            throw new InvalidArgumentException("writerCacheKib",
                    "must be between 1 and " + MAX_WRITER_CACHE_KIB + " KiB, was " + writerCacheKib);
        }
        InvalidArgumentException.requireNonNull(clock, "clock");
        InvalidArgumentException.requireNonNull(metrics, "metrics");
    }

    /**
     * @param path the database file
     * @return the defaults for that file: WAL, SQLite's default synchronous, 10 s busy timeout,
     *     4 readers, batches of up to 256 commands, checkpoints every 10,000 log pages, SQLite's
     *     2,000 KiB page cache, the UTC system clock
     */
    public static SqliteStoreConfig of(Path path) {
        return new SqliteStoreConfig(path, "WAL", null, Duration.ofSeconds(10), 4, 256, DEFAULT_CHECKPOINT_PAGES,
                DEFAULT_WRITER_CACHE_KIB, Clock.systemUTC(),
                StoreMetrics.NONE);
    }

    /**
     * @param value e.g. {@code WAL}, {@code DELETE}, {@code TRUNCATE}
     * @return a copy with the journal mode set
     */
    public SqliteStoreConfig withJournalMode(String value) {
        return new SqliteStoreConfig(path, value, synchronous, busyTimeout, readerPoolSize, maxBatchCommands,
                checkpointPages, writerCacheKib, clock, metrics);
    }

    /**
     * @param value e.g. {@code FULL}, {@code NORMAL}, or {@code null} for SQLite's default
     * @return a copy with the synchronous mode set
     */
    public SqliteStoreConfig withSynchronous(String value) {
        return new SqliteStoreConfig(path, journalMode, value, busyTimeout, readerPoolSize, maxBatchCommands,
                checkpointPages, writerCacheKib, clock, metrics);
    }

    /**
     * @param value the lock wait bound
     * @return a copy with the busy timeout set
     */
    public SqliteStoreConfig withBusyTimeout(Duration value) {
        return new SqliteStoreConfig(path, journalMode, synchronous, value, readerPoolSize, maxBatchCommands,
                checkpointPages, writerCacheKib, clock, metrics);
    }

    /**
     * @param value number of read connections, 1 to 64
     * @return a copy with the reader pool size set
     */
    public SqliteStoreConfig withReaderPoolSize(int value) {
        return new SqliteStoreConfig(path, journalMode, synchronous, busyTimeout, value, maxBatchCommands,
                checkpointPages, writerCacheKib, clock, metrics);
    }

    /**
     * @param value most commands per group commit, 1 to 100,000
     * @return a copy with the batch bound set
     */
    public SqliteStoreConfig withMaxBatchCommands(int value) {
        return new SqliteStoreConfig(path, journalMode, synchronous, busyTimeout, readerPoolSize, value,
                checkpointPages, writerCacheKib, clock, metrics);
    }

    /**
     * @param value write-ahead log pages between checkpoints, at least 1 (SQLite's own default is 1,000)
     * @return a copy with the checkpoint threshold set
     */
    public SqliteStoreConfig withCheckpointPages(int value) {
        return new SqliteStoreConfig(path, journalMode, synchronous, busyTimeout, readerPoolSize, maxBatchCommands,
                value, writerCacheKib, clock, metrics);
    }

    /**
     * @param value the write connection's page cache in KiB, 1 to 16 GiB (SQLite's own default is 2,000)
     * @return a copy with the writer's page cache size set
     */
    public SqliteStoreConfig withWriterCacheKib(int value) {
        return new SqliteStoreConfig(path, journalMode, synchronous, busyTimeout, readerPoolSize, maxBatchCommands,
                checkpointPages, value, clock, metrics);
    }

    /**
     * @param value the clock the store reads {@code now} from
     * @return a copy with the clock set
     */
    public SqliteStoreConfig withClock(Clock value) {
        return new SqliteStoreConfig(path, journalMode, synchronous, busyTimeout, readerPoolSize, maxBatchCommands,
                checkpointPages, writerCacheKib, value, metrics);
    }

    /**
     * @param value where to report metrics, e.g. {@code new MicrometerStoreMetrics(registry, "orders")}
     * @return a copy with the metrics sink set
     */
    public SqliteStoreConfig withMetrics(StoreMetrics value) {
        return new SqliteStoreConfig(path, journalMode, synchronous, busyTimeout, readerPoolSize, maxBatchCommands,
                checkpointPages, writerCacheKib, clock, value);
    }

    private static void requirePragma(String value, String argument, boolean nullable) {
        if (value == null) {
            if (!nullable) {
                throw new InvalidArgumentException(argument, "must not be null");
            }
            return;
        }
        if (!PRAGMA_VALUE.matcher(value).matches()) {
            throw new InvalidArgumentException(argument,
                    "must be non-empty ASCII letters, digits or '_', was '" + value + "'");
        }
    }
}
