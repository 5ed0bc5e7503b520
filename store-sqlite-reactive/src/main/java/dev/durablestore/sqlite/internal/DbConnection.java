package dev.durablestore.sqlite.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;

/**
 * One JDBC connection with a cache of prepared statements. Confined to one thread at a time (the
 * writer's leading thread, or the reader that borrowed it), so it needs no locking.
 */
final class DbConnection implements AutoCloseable {

    private final Connection connection;
    private final Map<String, PreparedStatement> statements = new HashMap<>();

    DbConnection(Connection connection) {
        this.connection = connection;
    }

    /**
     * @param sql statement text; statements are cached by text, so build dynamic SQL sparingly
     * @return the prepared statement, parameters cleared
     * @throws SQLException when preparation fails
     */
    PreparedStatement prepare(String sql) throws SQLException {
        PreparedStatement ps = statements.get(sql);
        if (ps == null) {
            ps = connection.prepareStatement(sql);
            statements.put(sql, ps);
        } else {
            ps.clearParameters();
        }
        return ps;
    }

    /**
     * Runs a statement without parameters or results.
     *
     * @param sql the statement
     * @throws SQLException on failure
     */
    void execute(String sql) throws SQLException {
        try (Statement s = connection.createStatement()) {
            s.execute(sql);
        }
    }

    /**
     * Runs a single-row, single-column integer query.
     *
     * @param sql the query
     * @return the value, 0 for SQL NULL
     * @throws SQLException on failure
     */
    long queryLong(String sql) throws SQLException {
        try (Statement s = connection.createStatement();
                var rs = s.executeQuery(sql)) {
            return rs.next() ? rs.getLong(1) : 0L;
        }
    }

    /**
     * Closes and forgets every cached statement. Needed after a failure: sqlite-jdbc finalizes a
     * statement whose step failed with an I/O, full-disk or read-only error but still reports it
     * open, so reusing it would fail for ever ("statement is not executing").
     */
    void resetStatements() {
        for (PreparedStatement ps : statements.values()) {
            try {
                ps.close();
            } catch (SQLException ignored) {
                // dropping it anyway
            }
        }
        statements.clear();
    }

    /** @return the raw connection, for schema work */
    Connection raw() {
        return connection;
    }

    @Override
    public void close() {
        resetStatements();
        try {
            connection.close();
        } catch (SQLException ignored) {
            // closing anyway
        }
    }
}
