package dev.durablestore.sqlite;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Plain JDBC on a store's file, for the migration tests: they give a file the layout of an older
 * version, then look at what opening it changed.
 */
final class SqliteFileSql {

    private SqliteFileSql() {}

    /** Runs {@code statements} on the file, each on its own, autocommitted. */
    static void execute(Path db, String... statements) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
                Statement s = c.createStatement()) {
            for (String statement : statements) {
                s.execute(statement);
            }
        }
    }

    /** @return the first column of every row {@code query} returns, as text */
    static List<String> column(Path db, String query) throws SQLException {
        List<String> values = new ArrayList<>();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(query)) {
            while (rs.next()) {
                values.add(rs.getString(1));
            }
        }
        return values;
    }

    /** @return the plan SQLite chooses for {@code query}, one step per line */
    static String queryPlan(Path db, String query) throws SQLException {
        StringBuilder plan = new StringBuilder();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("EXPLAIN QUERY PLAN " + query)) {
            while (rs.next()) {
                plan.append(rs.getString("detail")).append('\n');
            }
        }
        return plan.toString();
    }
}
