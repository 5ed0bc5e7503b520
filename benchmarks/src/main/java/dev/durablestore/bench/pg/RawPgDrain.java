package dev.durablestore.bench.pg;

import com.zaxxer.hikari.HikariDataSource;
import dev.durablestore.bench.Stats;
import dev.durablestore.bench.raw.RawDb;
import dev.durablestore.bench.raw.RawRows;
import dev.durablestore.bench.raw.RawSql;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The raw batched drain on PostgreSQL, plain JDBC and no store: on each of {@code connections}
 * threads, each with its own connection in autocommit (every statement its own transaction), claim
 * up to 100 due rows (or another claim size) with one {@code UPDATE … WHERE dispatch_key IN (SELECT …
 * FOR UPDATE SKIP LOCKED LIMIT 100) RETURNING …} (every column read, the input decoded, as the store does), then complete
 * them all with one {@code UPDATE … WHERE dispatch_key = ANY(?)}, until a claim finds nothing.
 */
final class RawPgDrain {

    static final int CLAIM_BATCH = 100;

    private static final String CLAIM = "UPDATE outbox SET status = 'claimed', claimed_at = ? WHERE dispatch_key IN "
            + "(SELECT dispatch_key FROM outbox WHERE status = 'pending' AND visible_after <= ? "
            + "ORDER BY visible_after, dispatch_key LIMIT ? FOR UPDATE SKIP LOCKED) "
            + "RETURNING " + RawSql.COLUMNS;
    /** The grouped complete: settled_at, the keys. */
    static final String COMPLETE = "UPDATE outbox SET status = 'done', claimed_at = NULL, settled_at = ? "
            + "WHERE dispatch_key = ANY(?) AND status IN ('pending', 'claimed')";

    private final RawRows rows;

    /** @param rows decodes the claimed rows */
    RawPgDrain(RawRows rows) {
        this.rows = rows;
    }

    /**
     * Drains every staged row of the pool's schema.
     *
     * @param pool connections to the schema, at least {@code connections}
     * @param connections threads, one connection each
     * @param expected rows staged; fewer completed fails the run
     * @return completed rows per second, first claim to last complete
     */
    double drain(HikariDataSource pool, int connections, long expected) {
        return drain(pool, connections, expected, CLAIM_BATCH);
    }

    /**
     * Drains every staged row of the pool's schema with claims of at most {@code batch} rows.
     *
     * @param pool connections to the schema, at least {@code connections}
     * @param connections threads, one connection each
     * @param expected rows staged; fewer completed fails the run
     * @param batch the claim size
     * @return completed rows per second, first claim to last complete
     */
    double drain(HikariDataSource pool, int connections, long expected, int batch) {
        AtomicLong done = new AtomicLong();
        long nanos = Workers.run(connections, worker -> {
            try (Connection c = pool.getConnection();
                    PreparedStatement claim = c.prepareStatement(CLAIM);
                    PreparedStatement complete = c.prepareStatement(COMPLETE)) {
                c.setAutoCommit(true);
                for (List<String> keys = claim(claim, batch); !keys.isEmpty(); keys = claim(claim, batch)) {
                    done.addAndGet(complete(c, complete, keys));
                }
            }
        });
        if (done.get() != expected) {
            throw new IllegalStateException("raw drain completed " + done.get() + " rows of " + expected);
        }
        return Stats.perSecond(expected, nanos);
    }

    private List<String> claim(PreparedStatement claim, int batch) throws SQLException {
        long now = RawDb.nowNanos();
        claim.setLong(1, now);
        claim.setLong(2, now);
        claim.setInt(3, batch);
        List<String> keys = new ArrayList<>(batch);
        try (ResultSet rs = claim.executeQuery()) {
            while (rs.next()) {
                keys.add(rows.readRow(rs));
            }
        }
        return keys;
    }

    private static int complete(Connection c, PreparedStatement complete, List<String> keys) throws SQLException {
        Array array = c.createArrayOf("text", keys.toArray());
        complete.setLong(1, RawDb.nowNanos());
        complete.setArray(2, array);
        int n = complete.executeUpdate();
        array.free();
        return n;
    }
}
