package dev.durablestore.bench.pg;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * A HikariCP pool of plain JDBC connections to one schema with {@code synchronous_commit=on} (or
 * {@code off}, as POLPG's nodes), for the raw baselines and db-scheduler; every connection is opened
 * before {@link #open} returns, so no timing includes a connect.
 */
final class JdbcPool {

    private JdbcPool() {}

    /**
     * @param server the server
     * @param schema the schema of every connection
     * @param size connections, all opened now
     * @return the pool
     */
    static HikariDataSource open(PgServer server, String schema, int size) {
        return open(server, schema, size, "on");
    }

    /**
     * @param server the server
     * @param schema the schema of every connection
     * @param size connections, all opened now
     * @param synchronousCommit the sessions' {@code synchronous_commit}: {@code on} or {@code off}
     * @return the pool
     */
    static HikariDataSource open(PgServer server, String schema, int size, String synchronousCommit) {
        PgServer.JdbcTarget target = server.jdbc(schema, synchronousCommit);
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(target.url());
        config.setDataSourceProperties(target.properties());
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(size);
        config.setPoolName("bench-" + schema + "-" + size + "-" + synchronousCommit);
        HikariDataSource pool = new HikariDataSource(config);
        List<Connection> all = new ArrayList<>(size);
        try {
            for (int i = 0; i < size; i++) {
                all.add(pool.getConnection());
            }
            for (Connection c : all) {
                c.close();
            }
        } catch (SQLException e) {
            pool.close();
            throw new IllegalStateException("cannot open " + size + " JDBC connections: " + e.getMessage(), e);
        }
        return pool;
    }
}
