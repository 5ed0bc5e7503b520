package dev.durablestore.bench.raw;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import org.sqlite.SQLiteConfig;

/**
 * One plain sqlite-jdbc connection opened the way the store opens its writer: WAL, the given
 * {@code synchronous} mode, a 10 s busy timeout, autocommit on with explicit
 * {@code BEGIN IMMEDIATE}/{@code COMMIT} statements.
 */
public final class RawDb implements AutoCloseable {

    private final Connection connection;

    private RawDb(Connection connection) {
        this.connection = connection;
    }

    /**
     * Opens (creating when missing) the file in WAL mode.
     *
     * @param db the file
     * @param synchronous {@code OFF}, {@code NORMAL} or {@code FULL}
     * @return the connection
     * @throws SQLException on failure
     */
    public static RawDb open(Path db, String synchronous) throws SQLException {
        SQLiteConfig config = new SQLiteConfig();
        config.setBusyTimeout(10_000);
        config.setPragma(SQLiteConfig.Pragma.SYNCHRONOUS, synchronous);
        RawDb raw = new RawDb(DriverManager.getConnection("jdbc:sqlite:" + db.toAbsolutePath(), config.toProperties()));
        raw.execute("PRAGMA journal_mode=WAL");
        return raw;
    }

    /**
     * Opens a fresh file and creates the store's schema in it.
     *
     * @param db the file
     * @param synchronous the synchronous mode
     * @return the connection
     * @throws SQLException on failure
     */
    public static RawDb create(Path db, String synchronous) throws SQLException {
        RawDb raw = open(db, synchronous);
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
