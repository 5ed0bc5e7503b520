package dev.durablestore.bench.raw;

import dev.durablestore.sqlite.SqliteStoreConfig;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.Locale;
import org.sqlite.SQLiteConfig;

/**
 * One plain sqlite-jdbc connection opened the way the store opens its writer: WAL, the given
 * {@code synchronous} mode, a 10 s busy timeout, the store's checkpoint threshold and page cache
 * (or SQLite's defaults, for the original design's baselines), autocommit on with explicit
 * {@code BEGIN IMMEDIATE}/{@code COMMIT} statements.
 */
public final class RawDb implements AutoCloseable {

    private final Connection connection;

    private RawDb(Connection connection) {
        this.connection = connection;
    }

    /**
     * The two pragmas in which the store's writer departs from SQLite's defaults.
     *
     * @param checkpointPages {@code wal_autocheckpoint}
     * @param cacheKib {@code cache_size}, in KiB
     */
    public record Settings(int checkpointPages, int cacheKib) {

        /** The store's writer: {@link SqliteStoreConfig#of}'s checkpoint threshold and page cache. */
        public static final Settings STORE =
                new Settings(SqliteStoreConfig.DEFAULT_CHECKPOINT_PAGES, SqliteStoreConfig.DEFAULT_WRITER_CACHE_KIB);

        /** SQLite's own: 1,000 log pages between checkpoints, a 2,000 KiB cache; the original design ran with these. */
        public static final Settings SQLITE_DEFAULTS = new Settings(1_000, 2_000);

        /**
         * The store's page cache with automatic checkpoints off: the log then holds every page a run
         * writes, for {@link RawDb#logPages()} to count.
         */
        public static final Settings NO_CHECKPOINTS = new Settings(0, STORE.cacheKib());

        /** @return how the report names these settings */
        public String describe() {
            return checkpointPages <= 0
                    ? String.format(Locale.ROOT, "no automatic checkpoint, %,d KiB page cache", cacheKib)
                    : String.format(
                            Locale.ROOT, "checkpoint every %,d pages, %,d KiB page cache", checkpointPages, cacheKib);
        }
    }

    /**
     * Opens (creating when missing) the file in WAL mode with the store's writer settings.
     *
     * @param db the file
     * @param synchronous {@code OFF}, {@code NORMAL} or {@code FULL}
     * @return the connection
     * @throws SQLException on failure
     */
    public static RawDb open(Path db, String synchronous) throws SQLException {
        return open(db, synchronous, Settings.STORE);
    }

    /**
     * Opens (creating when missing) the file in WAL mode, temporary storage in memory, as the
     * store opens its writer.
     *
     * @param db the file
     * @param synchronous {@code OFF}, {@code NORMAL} or {@code FULL}
     * @param settings the checkpoint threshold and page cache
     * @return the connection
     * @throws SQLException on failure
     */
    public static RawDb open(Path db, String synchronous, Settings settings) throws SQLException {
        SQLiteConfig config = new SQLiteConfig();
        config.setBusyTimeout(10_000);
        config.setPragma(SQLiteConfig.Pragma.SYNCHRONOUS, synchronous);
        RawDb raw = new RawDb(DriverManager.getConnection("jdbc:sqlite:" + db.toAbsolutePath(), config.toProperties()));
        raw.execute("PRAGMA journal_mode=WAL");
        raw.execute("PRAGMA wal_autocheckpoint=" + settings.checkpointPages());
        raw.execute("PRAGMA temp_store=MEMORY");
        raw.execute("PRAGMA cache_size=-" + settings.cacheKib());
        return raw;
    }

    /**
     * Opens a fresh file the way the store opens its writer (its checkpoint threshold and page
     * cache too) and creates the store's schema in it: the setting of the batched baselines, which
     * measure what the store's own SQL reaches without the store.
     *
     * @param db the file
     * @param synchronous the synchronous mode
     * @return the connection
     * @throws SQLException on failure
     */
    public static RawDb create(Path db, String synchronous) throws SQLException {
        return create(db, synchronous, Settings.STORE);
    }

    /**
     * Opens a fresh file for a baseline doing {@code perTransaction} operations per transaction, with
     * the store's schema. One per transaction is the original design and runs with SQLite's
     * defaults; a batched loop measures what the store's own SQL reaches without the store, so it
     * runs with the store's writer settings.
     *
     * @param db the file
     * @param synchronous the synchronous mode
     * @param perTransaction operations per transaction of the baseline
     * @return the connection
     * @throws SQLException on failure
     */
    public static RawDb createBaseline(Path db, String synchronous, int perTransaction) throws SQLException {
        return create(db, synchronous, perTransaction == 1 ? Settings.SQLITE_DEFAULTS : Settings.STORE);
    }

    /**
     * @param db the file
     * @param synchronous the synchronous mode
     * @param settings the checkpoint threshold and page cache
     * @return a fresh file with the store's schema
     * @throws SQLException on failure
     */
    public static RawDb create(Path db, String synchronous, Settings settings) throws SQLException {
        RawDb raw = open(db, synchronous, settings);
        RawSchema.create(raw.connection);
        return raw;
    }

    /** @return the JDBC connection */
    public Connection connection() {
        return connection;
    }

    /**
     * Copies the write-ahead log into the file and empties it ({@code wal_checkpoint(TRUNCATE)}), so
     * that {@link #logPages()} afterwards counts only what is written from here on.
     *
     * @throws SQLException on failure, or when the log could not be emptied
     */
    public void restartLog() throws SQLException {
        Checkpoint result = checkpoint("TRUNCATE");
        if (result.busy() || result.logPages() != 0) {
            throw new SQLException("the log was not emptied: wal_checkpoint(TRUNCATE) returned " + result);
        }
    }

    /**
     * Counts the pages in the write-ahead log (its frames) by running a passive checkpoint. With
     * {@link Settings#NO_CHECKPOINTS} that is every page written since {@link #restartLog()}: each
     * commit writes each page it changed once.
     *
     * @return the pages in the log
     * @throws SQLException on failure
     */
    public long logPages() throws SQLException {
        return checkpoint("PASSIVE").logPages();
    }

    /** What {@code PRAGMA wal_checkpoint} reports: whether it was blocked, and the pages left in the log. */
    private record Checkpoint(boolean busy, long logPages) {}

    private Checkpoint checkpoint(String mode) throws SQLException {
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("PRAGMA wal_checkpoint(" + mode + ")")) {
            if (!rs.next()) {
                throw new SQLException("PRAGMA wal_checkpoint(" + mode + ") returned no row");
            }
            return new Checkpoint(rs.getInt(1) != 0, rs.getLong(2));
        }
    }

    /** @throws SQLException on failure */
    public void begin() throws SQLException {
        execute("BEGIN IMMEDIATE");
    }

    /** @throws SQLException on failure */
    public void commit() throws SQLException {
        execute("COMMIT");
    }

    /**
     * @param sql a statement without parameters
     * @throws SQLException on failure
     */
    public void execute(String sql) throws SQLException {
        try (Statement s = connection.createStatement()) {
            s.execute(sql);
        }
    }

    /**
     * @param instant an instant
     * @return epoch nanoseconds, the store's timestamp column format
     */
    public static long nanos(Instant instant) {
        return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000_000L), instant.getNano());
    }

    /** @return the current time in epoch nanoseconds */
    public static long nowNanos() {
        return nanos(Instant.now());
    }

    @Override
    public void close() throws SQLException {
        connection.close();
    }
}
