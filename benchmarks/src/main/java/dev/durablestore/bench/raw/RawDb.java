package dev.durablestore.bench.raw;

import dev.durablestore.sqlite.SqliteStoreConfig;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import org.sqlite.SQLiteConfig;

/**
 * One plain sqlite-jdbc connection opened the way the store opens its writer: WAL, the given
 * {@code synchronous} mode, a 10 s busy timeout, the store's checkpoint threshold (or SQLite's
 * default, for the original design's baselines), autocommit on with explicit
 * {@code BEGIN IMMEDIATE}/{@code COMMIT} statements.
 */
public final class RawDb implements AutoCloseable {

    private final Connection connection;

    private RawDb(Connection connection) {
        this.connection = connection;
    }

    /** SQLite's own {@code wal_autocheckpoint}, which the original design ran with. */
    public static final int SQLITE_DEFAULT_CHECKPOINT_PAGES = 1_000;

    /**
     * Opens (creating when missing) the file in WAL mode with the store's checkpoint threshold.
     *
     * @param db the file
     * @param synchronous {@code OFF}, {@code NORMAL} or {@code FULL}
     * @return the connection
     * @throws SQLException on failure
     */
    public static RawDb open(Path db, String synchronous) throws SQLException {
        return open(db, synchronous, SqliteStoreConfig.DEFAULT_CHECKPOINT_PAGES);
    }

    /**
     * Opens (creating when missing) the file in WAL mode, temporary storage in memory, as the
     * store opens its writer.
     *
     * @param db the file
     * @param synchronous {@code OFF}, {@code NORMAL} or {@code FULL}
     * @param checkpointPages the {@code wal_autocheckpoint} threshold
     * @return the connection
     * @throws SQLException on failure
     */
    public static RawDb open(Path db, String synchronous, int checkpointPages) throws SQLException {
        SQLiteConfig config = new SQLiteConfig();
        config.setBusyTimeout(10_000);
        config.setPragma(SQLiteConfig.Pragma.SYNCHRONOUS, synchronous);
        RawDb raw = new RawDb(DriverManager.getConnection("jdbc:sqlite:" + db.toAbsolutePath(), config.toProperties()));
        raw.execute("PRAGMA journal_mode=WAL");
        raw.execute("PRAGMA wal_autocheckpoint=" + checkpointPages);
        raw.execute("PRAGMA temp_store=MEMORY");
        return raw;
    }

    /**
     * Opens a fresh file the way the store opens its writer (its checkpoint threshold too) and
     * creates the store's schema in it: the setting of the batched baselines, which measure what
     * the store's own SQL reaches without the store.
     *
     * @param db the file
     * @param synchronous the synchronous mode
     * @return the connection
     * @throws SQLException on failure
     */
    public static RawDb create(Path db, String synchronous) throws SQLException {
        return create(db, synchronous, SqliteStoreConfig.DEFAULT_CHECKPOINT_PAGES);
    }

    /**
     * Opens a fresh file for a baseline doing {@code perTransaction} operations per transaction, with
     * the store's schema. One per transaction is the original design and runs with SQLite's default
     * checkpoint threshold; a batched loop measures what the store's own SQL reaches without the
     * store, so it runs with the store's settings, its checkpoint threshold included.
     *
     * @param db the file
     * @param synchronous the synchronous mode
     * @param perTransaction operations per transaction of the baseline
     * @return the connection
     * @throws SQLException on failure
     */
    public static RawDb createBaseline(Path db, String synchronous, int perTransaction) throws SQLException {
        return create(db, synchronous, perTransaction == 1
                ? SQLITE_DEFAULT_CHECKPOINT_PAGES : SqliteStoreConfig.DEFAULT_CHECKPOINT_PAGES);
    }

    /**
     * @param db the file
     * @param synchronous the synchronous mode
     * @param checkpointPages the {@code wal_autocheckpoint} threshold
     * @return a fresh file with the store's schema
     * @throws SQLException on failure
     */
    public static RawDb create(Path db, String synchronous, int checkpointPages) throws SQLException {
        RawDb raw = open(db, synchronous, checkpointPages);
        RawSchema.create(raw.connection);
        return raw;
    }

    /** @return the JDBC connection */
    public Connection connection() {
        return connection;
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
