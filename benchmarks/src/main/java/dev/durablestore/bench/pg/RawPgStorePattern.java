package dev.durablestore.bench.pg;

import com.zaxxer.hikari.HikariDataSource;
import dev.durablestore.api.event.Event;
import dev.durablestore.bench.Stats;
import dev.durablestore.bench.raw.RawDb;
import dev.durablestore.bench.raw.RawRows;
import dev.durablestore.bench.raw.RawSql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The store's own statement pattern (before group commit) sent by plain JDBC, no store: per append
 * {@code BEGIN}, {@code SELECT max(seq)}, {@code INSERT}, {@code COMMIT}; per settle {@code BEGIN},
 * {@code UPDATE … WHERE dispatch_key = ?}, {@code COMMIT}; each statement its own round trip, as
 * r2dbc sends them. {@value #CALLERS} callers at once (the store's 64 in flight) share a HikariCP
 * pool of the store's size, so the figure shows what the statement shape costs without Reactor or
 * r2dbc around it.
 */
final class RawPgStorePattern {

    /** Callers at once, as the store's operations in flight. */
    static final int CALLERS = 64;

    private static final String SETTLE = "UPDATE outbox SET status = 'done', claimed_at = NULL, settled_at = ? "
            + "WHERE dispatch_key = ? AND status IN ('pending', 'claimed')";

    /** One operation's statements between {@code BEGIN} and {@code COMMIT}. */
    @FunctionalInterface
    private interface Body {
        void run(Connection c, int index) throws SQLException;
    }

    private final RawRows rows;

    /** @param rows encodes the events as the store does */
    RawPgStorePattern(RawRows rows) {
        this.rows = rows;
    }

    /**
     * @param pool the connections, the store's pool size
     * @param events first events, each of a new workflow, appended at expected head 0
     * @return appends per second
     */
    double appends(HikariDataSource pool, List<Event> events) {
        return run(pool, events.size(), (c, i) -> {
            Event e = events.get(i);
            try (PreparedStatement head = c.prepareStatement(RawSql.HEAD)) {
                head.setString(1, e.workflowId().toString());
                try (ResultSet rs = head.executeQuery()) {
                    rs.next();
                    if (rs.getLong(1) != e.seq() - 1) {
                        throw new IllegalStateException("head moved under a raw append");
                    }
                }
            }
            try (PreparedStatement insert = c.prepareStatement(RawSql.INSERT_EVENT)) {
                rows.bindEvent(insert, e);
                insert.executeUpdate();
            }
        });
    }

    /**
     * @param pool the connections, the store's pool size
     * @param keys claimed rows' dispatch keys, each completed once
     * @return settles per second
     */
    double settles(HikariDataSource pool, List<String> keys) {
        return run(pool, keys.size(), (c, i) -> {
            try (PreparedStatement settle = c.prepareStatement(SETTLE)) {
                settle.setLong(1, RawDb.nowNanos());
                settle.setString(2, keys.get(i));
                if (settle.executeUpdate() != 1) {
                    throw new IllegalStateException("a raw settle found no live row");
                }
            }
        });
    }

    private static double run(HikariDataSource pool, int count, Body body) {
        AtomicInteger next = new AtomicInteger();
        long nanos = Workers.run(CALLERS, worker -> {
            for (int i = next.getAndIncrement(); i < count; i = next.getAndIncrement()) {
                try (Connection c = pool.getConnection();
                        Statement s = c.createStatement()) {
                    c.setAutoCommit(true);
                    s.execute("BEGIN");
                    body.run(c, i);
                    s.execute("COMMIT");
                }
            }
        });
        return Stats.perSecond(count, nanos);
    }
}
