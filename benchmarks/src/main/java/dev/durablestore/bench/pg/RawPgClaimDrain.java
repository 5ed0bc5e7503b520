package dev.durablestore.bench.pg;

import com.zaxxer.hikari.HikariDataSource;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.bench.Stats;
import dev.durablestore.bench.raw.RawDb;
import dev.durablestore.bench.raw.RawRows;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The ceiling of {@code POLPG-serial-vs-none}: a drain by plain JDBC, no store, in the store's
 * shape, with the very claim statement the store's claim stream sends on PostgreSQL, once with the
 * serial predicate of {@code serialPerWorkflow} and once without. On each of {@code connections}
 * threads (one per node), each with its own connection in autocommit: claim up to {@value #CLAIM}
 * rows (the store's drain has 64 completes in flight per node, so its claims ask for at most 64),
 * then complete them all with one {@code UPDATE … WHERE dispatch_key = ANY(?)} (as {@link RawPgDrain}).
 *
 * <p>The claim is the text of {@code store-r2dbc}'s {@code Claims.claimPostgres} for the stream
 * ({@code SqlDialect.Postgres.claimWithNextDue}) on the default route with nothing held: the
 * prioritized arm, then the others, both {@code FOR UPDATE SKIP LOCKED}, the {@code UPDATE} that sets
 * {@code claimed_at} and a claim token, and the route's next due time in the same statement. A serial
 * claim adds {@code Claims.SERIAL} to both arms and to the next-due read and writes a negative token,
 * so the unique partial index {@code outbox_serial_claimed} (one serially claimed row per workflow)
 * holds its rows; when that index refuses a claim (SQLState 23505: two claims whose snapshots straddle
 * a workflow's settle), the claim is tried again, at most {@value #SERIAL_RETRIES} times, as the store
 * does.
 *
 * <p>A serial claim can come back empty while rows wait behind the workflows other connections have
 * in flight, so the loops stop when the rows they completed together reach the staged total, not on
 * an empty claim; after an empty claim a thread backs off {@value #EMPTY_BACKOFF_MICROS} µs.
 */
final class RawPgClaimDrain {

    /** Rows per claim: the store's 64 completes in flight per node. */
    static final int CLAIM = PostgresComparison.CONCURRENCY;
    /** As {@code Claims.SERIAL_RETRIES}. */
    static final int SERIAL_RETRIES = 8;
    /** The pause after an empty claim. */
    static final long EMPTY_BACKOFF_MICROS = 200;

    private static final long STALL_NANOS = TimeUnit.MINUTES.toNanos(5);

    /** {@code OutboxRows.COLUMNS}: every column a claim returns, in the store's order. */
    private static final String[] COLUMNS = {
        "dispatch_key",
        "workflow_id",
        "ordinal",
        "run_id",
        "namespace",
        "task_queue",
        "node",
        "activity_type",
        "input",
        "status",
        "attempt",
        "visible_after",
        "claimed_at",
        "claim_token",
        "trace_context",
        "priority"
    };

    /** {@code Claims.SERIAL} (O63): the candidate is its workflow's first pending row, none claimed. */
    private static final String SERIAL = " AND NOT EXISTS (SELECT 1 FROM outbox s WHERE s.workflow_id = "
            + "outbox.workflow_id AND (s.status = 'claimed' OR (s.status = 'pending' AND (s.ordinal < outbox.ordinal "
            + "OR (s.ordinal = outbox.ordinal AND s.dispatch_key < outbox.dispatch_key)))))";

    /**
     * What one drain measured.
     *
     * @param rowsPerSecond completed rows per second, first claim to last complete
     * @param rows rows drained
     * @param claims claim statements that took rows
     * @param emptyClaims claim statements that took none (each followed by the back-off)
     * @param retries claims refused by {@code outbox_serial_claimed} and tried again
     */
    record Result(double rowsPerSecond, long rows, long claims, long emptyClaims, long retries) {
        /** @return mean rows per claim that took rows */
        double rowsPerClaim() {
            return claims == 0 ? Double.NaN : (double) rows / claims;
        }
    }

    private final RawRows rows;

    /** @param rows decodes the claimed rows */
    RawPgClaimDrain(RawRows rows) {
        this.rows = rows;
    }

    /**
     * Drains every staged row of the pool's schema (on the default route).
     *
     * @param pool connections to the store's schema, at least {@code connections}
     * @param connections threads, one connection each
     * @param expected rows staged; every one must be claimed once and completed
     * @param serial the serial claim, or the plain one
     * @return the rate and the counts
     */
    Result drain(HikariDataSource pool, int connections, long expected, boolean serial) {
        String sql = claimSql(serial);
        AtomicLong done = new AtomicLong();
        AtomicLong claimed = new AtomicLong();
        AtomicLong claims = new AtomicLong();
        AtomicLong empty = new AtomicLong();
        AtomicLong retries = new AtomicLong();
        long began = System.nanoTime();
        long nanos = Workers.run(connections, worker -> {
            try (Connection c = pool.getConnection();
                    PreparedStatement claim = c.prepareStatement(sql);
                    PreparedStatement complete = c.prepareStatement(RawPgDrain.COMPLETE)) {
                c.setAutoCommit(true);
                while (done.get() < expected) {
                    List<String> keys = claim(claim, serial, retries);
                    if (keys.isEmpty()) {
                        empty.incrementAndGet();
                        if (System.nanoTime() - began > STALL_NANOS) {
                            throw new IllegalStateException("raw " + (serial ? "serial " : "") + "drain stalled at "
                                    + done.get() + " of " + expected + " rows");
                        }
                        LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(EMPTY_BACKOFF_MICROS));
                        continue;
                    }
                    claims.incrementAndGet();
                    claimed.addAndGet(keys.size());
                    done.addAndGet(complete(c, complete, keys));
                }
            }
        });
        if (done.get() != expected || claimed.get() != expected) {
            throw new IllegalStateException("raw " + (serial ? "serial " : "") + "drain claimed " + claimed.get()
                    + " and completed " + done.get() + " rows of " + expected);
        }
        return new Result(Stats.perSecond(expected, nanos), expected, claims.get(), empty.get(), retries.get());
    }

    /**
     * The store's stream claim on the default route, nothing held ({@code claimWithNextDue}), its
     * {@code $n} markers as {@code ?} in the order they occur (see {@link #bind}).
     */
    static String claimSql(boolean serial) {
        String filter = " AND namespace = ? AND task_queue = ? AND node IS NULL" + (serial ? SERIAL : "");
        String due = "status = 'pending' AND visible_after <= ?" + filter;
        String pending = "status = 'pending'" + filter;
        return "WITH p AS (SELECT ctid AS tid, dispatch_key FROM outbox WHERE priority > 0 AND " + due
                + " ORDER BY priority DESC, visible_after, dispatch_key LIMIT (SELECT ?) FOR UPDATE SKIP LOCKED), "
                + "z AS (SELECT ctid AS tid, dispatch_key FROM outbox WHERE " + due + " "
                + "ORDER BY visible_after, dispatch_key LIMIT (SELECT ?) FOR UPDATE SKIP LOCKED), "
                + "due AS (SELECT tid FROM p UNION ALL (SELECT tid FROM z "
                + "WHERE dispatch_key NOT IN (SELECT dispatch_key FROM p)) LIMIT ?), "
                + "claimed AS (UPDATE outbox o SET status = 'claimed', claimed_at = ?, claim_token = ? "
                + "WHERE o.ctid = ANY (ARRAY(SELECT tid FROM due)) RETURNING " + columns("o.")
                + "), "
                + "next AS (SELECT min(visible_after) AS next_due FROM outbox WHERE "
                + "(SELECT count(*) FROM claimed) < ? AND " + pending
                + " AND dispatch_key NOT IN (SELECT dispatch_key FROM claimed)) "
                + "SELECT " + columns("claimed.") + ", next.next_due FROM next LEFT JOIN claimed ON true";
    }

    /**
     * Binds {@link #claimSql}'s markers: the prioritized arm (now, route, limit), the other arm (the
     * same), the outer limit, the update (now, token), the next-due read (limit, route).
     */
    private static void bind(PreparedStatement claim, long now, long token) throws SQLException {
        String route = OutboxRow.DEFAULT_ROUTE;
        int i = 1;
        for (int arm = 0; arm < 2; arm++) {
            claim.setLong(i++, now);
            claim.setString(i++, route);
            claim.setString(i++, route);
            claim.setInt(i++, CLAIM);
        }
        claim.setInt(i++, CLAIM);
        claim.setLong(i++, now);
        claim.setLong(i++, token);
        claim.setInt(i++, CLAIM);
        claim.setString(i++, route);
        claim.setString(i, route);
    }

    /**
     * One claim, tried again when {@code outbox_serial_claimed} refuses it; the claimed rows read in
     * full (the input decoded, as the store does).
     */
    private List<String> claim(PreparedStatement claim, boolean serial, AtomicLong retries) throws SQLException {
        for (int attempt = 0; ; attempt++) {
            long now = RawDb.nowNanos();
            // Claims.newClaimToken(policy): negative for a serial claim
            long token = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
            bind(claim, now, serial ? -token : token);
            List<String> keys = new ArrayList<>(CLAIM);
            try (ResultSet rs = claim.executeQuery()) {
                while (rs.next()) {
                    if (rs.getString(1) == null) {
                        continue; // nothing claimed: the one row of the next due time
                    }
                    keys.add(rows.readRow(rs));
                    rs.getLong(14);
                    rs.getString(15);
                    rs.getInt(16);
                }
                return keys;
            } catch (SQLException e) {
                if (!serial || !"23505".equals(e.getSQLState()) || attempt >= SERIAL_RETRIES) {
                    throw e;
                }
                retries.incrementAndGet();
            }
        }
    }

    private static int complete(Connection c, PreparedStatement complete, List<String> keys) throws SQLException {
        Array array = c.createArrayOf("text", keys.toArray());
        complete.setLong(1, RawDb.nowNanos());
        complete.setArray(2, array);
        int n = complete.executeUpdate();
        array.free();
        return n;
    }

    private static String columns(String prefix) {
        StringBuilder sb = new StringBuilder();
        for (String column : COLUMNS) {
            sb.append(sb.length() == 0 ? "" : ", ").append(prefix).append(column);
        }
        return sb.toString();
    }
}
