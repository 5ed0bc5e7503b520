package dev.durablestore.migration;

import dev.durablestore.api.BackendException;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.migration.Table.Column;
import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteOpenMode;

/**
 * The SQLite file being migrated, read through one read-only sqlite-jdbc connection that holds one
 * read transaction from {@link #open} to {@link #close}: every batch, count and checksum reads the
 * same snapshot of the file, whatever another process writes meanwhile (WAL).
 *
 * <p>Blocking (JDBC): every method runs on the migration's own source thread, never on a
 * non-blocking one ({@link SqliteToPostgresMigration}).
 */
final class SqliteSource implements AutoCloseable {

    /** The version a file has once a store of this library has opened it (S29). */
    static final int SCHEMA_VERSION = dev.durablestore.core.storage.SchemaVersion.CURRENT;

    private final Path file;
    private final Connection connection;
    private final Map<Table, PreparedStatement> firstBatch = new EnumMap<>(Table.class);
    private final Map<Table, PreparedStatement> nextBatch = new EnumMap<>(Table.class);

    private SqliteSource(Path file, Connection connection) {
        this.file = file;
        this.connection = connection;
    }

    /**
     * Opens the file as a store once, so that it is migrated in place to this library's schema
     * version (or refused when newer, S29), then opens the read-only snapshot.
     *
     * @param file the store's file
     * @return the source
     * @throws InvalidArgumentException naming {@code sqliteFile} when no file is there (none is
     *     created)
     * @throws dev.durablestore.api.SchemaVersionException when the file records a newer schema
     *     version than this library's
     * @throws BackendException when the file cannot be opened or read
     */
    static SqliteSource open(Path file) {
        Path absolute = file.toAbsolutePath().normalize();
        if (!Files.isRegularFile(absolute)) {
            throw new InvalidArgumentException(
                    "sqliteFile", "names no file: " + absolute + " (nothing was created or written)");
        }
        // the library's own open: the same schema checks and migrations as an application's
        // closed at once: opening is all that is needed
        SqliteReactiveStore.open(SqliteStoreConfig.of(absolute)).close();
        SQLiteConfig config = new SQLiteConfig();
        config.setReadOnly(true);
        config.setOpenMode(SQLiteOpenMode.READONLY);
        config.setBusyTimeout(10_000);
        try {
            Connection c = DriverManager.getConnection("jdbc:sqlite:" + absolute, config.toProperties());
            try {
                c.setAutoCommit(false);
                SqliteSource source = new SqliteSource(absolute, c);
                int version = source.schemaVersion();
                if (version != SCHEMA_VERSION) {
                    throw new BackendException("SQLite file " + absolute + " records schema version " + version
                            + " after a store opened it, not " + SCHEMA_VERSION + "; nothing was copied");
                }
                return source;
            } catch (SQLException | RuntimeException e) {
                c.close();
                throw e;
            }
        } catch (SQLException e) {
            throw new BackendException("cannot read SQLite file " + absolute + ": " + e.getMessage(), e);
        }
    }

    /** @return the file, absolute */
    Path file() {
        return file;
    }

    /**
     * @return the schema version the file records
     * @throws SQLException when it cannot be read
     */
    int schemaVersion() throws SQLException {
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("PRAGMA user_version")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /**
     * @param table a table
     * @return its rows in the snapshot
     * @throws SQLException when it cannot be read
     */
    long count(Table table) throws SQLException {
        return queryLong("SELECT count(*) FROM " + table.sqlName());
    }

    /**
     * A summary of the snapshot's content that changes with every write a store makes (an append,
     * a staged, claimed, settled, re-armed or pruned row, a timer set or cancelled): the rows of
     * each table, each outbox status's rows, and the largest and summed sequence, timestamps,
     * claim tokens and attempts. It identifies the source when a migration resumes; the
     * verification compares the copies row by row.
     *
     * @return the summary as text, one {@code name=value} per line
     * @throws SQLException when it cannot be read
     */
    String contentSummary() throws SQLException {
        StringBuilder out = new StringBuilder();
        out.append("schema_version=").append(schemaVersion()).append('\n');
        String[] queries = {
            "SELECT 'events', count(*), total(seq), max(recorded_at), total(length(event)) FROM events",
            "SELECT 'timers', count(*), total(fire_at), max(fire_at), total(length(timer_id)) FROM timers",
            "SELECT 'outbox.' || status, count(*), total(attempt), max(coalesce(settled_at, claimed_at, 0)),"
                    + " total(coalesce(claim_token, 0) % 1000003) + total(visible_after % 1000003)"
                    + " + total(length(coalesce(failures, '')))"
                    + " FROM outbox GROUP BY status ORDER BY status"
        };
        for (String sql : queries) {
            try (Statement s = connection.createStatement();
                    ResultSet rs = s.executeQuery(sql)) {
                while (rs.next()) {
                    out.append(rs.getString(1))
                            .append('=')
                            .append(rs.getLong(2))
                            .append('/')
                            .append(rs.getString(3))
                            .append('/')
                            .append(rs.getString(4))
                            .append('/')
                            .append(rs.getString(5))
                            .append('\n');
                }
            }
        }
        return out.toString();
    }

    /**
     * Reads the next rows in key order.
     *
     * @param table the table
     * @param after the key of the last row already read (or on the target), {@code null} to start at
     *     the first row
     * @param limit the most rows to read
     * @return the rows, each value typed as {@link Table.ColumnType#javaType()} or {@code null}
     * @throws SQLException when they cannot be read
     */
    List<Object[]> batch(Table table, Object[] after, int limit) throws SQLException {
        PreparedStatement s = after == null
                ? firstBatch.computeIfAbsent(table, t -> prepare(t, false))
                : nextBatch.computeIfAbsent(table, t -> prepare(t, true));
        int i = 1;
        if (after != null) {
            for (int k = 0; k < table.key().size(); k++) {
                s.setObject(i++, after[k]);
            }
        }
        s.setInt(i, limit);
        List<Object[]> rows = new ArrayList<>(limit);
        try (ResultSet rs = s.executeQuery()) {
            while (rs.next()) {
                rows.add(read(table, rs));
            }
        }
        return rows;
    }

    private PreparedStatement prepare(Table table, boolean after) {
        String placeholders = table.key().size() == 1 ? "?" : "(?, ?)";
        String sql = "SELECT " + table.columnList() + " FROM " + table.sqlName()
                + (after ? " WHERE " + table.keyRow() + " > " + placeholders : "")
                + " ORDER BY " + table.keyList() + " LIMIT ?";
        try {
            return connection.prepareStatement(sql);
        } catch (SQLException e) {
            throw new BackendException(
                    "cannot read table " + table.sqlName() + " of " + file + ": " + e.getMessage(), e);
        }
    }

    private static Object[] read(Table table, ResultSet rs) throws SQLException {
        List<Column> columns = table.columns();
        Object[] row = new Object[columns.size()];
        for (int c = 0; c < row.length; c++) {
            int index = c + 1;
            Object value = switch (columns.get(c).type()) {
                case TEXT -> rs.getString(index);
                case INTEGER -> rs.getInt(index);
                case BIGINT -> rs.getLong(index);
                case BYTES -> rs.getBytes(index);
            };
            row[c] = rs.wasNull() ? null : value;
        }
        return row;
    }

    /**
     * Every history's summary: its events, its last sequence and the checksum of its event bytes.
     *
     * @return the summaries by workflow id
     * @throws SQLException when they cannot be read
     */
    Map<String, HistoryDigest> histories() throws SQLException {
        Map<String, HistoryDigest.Builder> building = new HashMap<>();
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SELECT workflow_id, seq, event FROM events ORDER BY workflow_id, seq")) {
            while (rs.next()) {
                building.computeIfAbsent(rs.getString(1), id -> new HistoryDigest.Builder())
                        .add(rs.getLong(2), rs.getBytes(3));
            }
        }
        Map<String, HistoryDigest> out = new HashMap<>(building.size() * 2);
        building.forEach((id, b) -> out.put(id, b.build()));
        return out;
    }

    /**
     * @return the outbox rows of each status, by status
     * @throws SQLException when they cannot be read
     */
    Map<String, Long> outboxByStatus() throws SQLException {
        Map<String, Long> out = new TreeMap<>();
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SELECT status, count(*) FROM outbox GROUP BY status")) {
            while (rs.next()) {
                out.put(rs.getString(1), rs.getLong(2));
            }
        }
        return out;
    }

    private long queryLong(String sql) throws SQLException {
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Ends the read transaction and closes the connection; failures are not the caller's concern. */
    @Override
    public void close() {
        try {
            for (PreparedStatement s : firstBatch.values()) {
                s.close();
            }
            for (PreparedStatement s : nextBatch.values()) {
                s.close();
            }
            connection.rollback();
        } catch (SQLException ignored) {
            // read-only: nothing to lose
        } finally {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // as above
            }
        }
    }
}
