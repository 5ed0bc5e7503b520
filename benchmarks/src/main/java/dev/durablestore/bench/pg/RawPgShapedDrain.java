package dev.durablestore.bench.pg;

import com.zaxxer.hikari.HikariDataSource;
import dev.durablestore.bench.Stats;
import dev.durablestore.bench.raw.RawDb;
import dev.durablestore.bench.raw.RawRows;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The ceiling of the store's drain at 64 in flight against db-scheduler: the store's 1-node drain
 * ({@code claimStream(maxBatch 100)} → {@code flatMap(complete, 64)}, a no-op task) done by plain
 * JDBC with no store around it, in the store's shape and with the store's own statements on
 * PostgreSQL. Two threads, each with its own connection in autocommit, as the store keeps one claim
 * and one settle flush in flight per node:
 *
 * <ul>
 *   <li>the claimer sends one claim at a time, sized to the free room of the {@value #IN_FLIGHT} rows in
 *       flight (claimed and not yet settled), at most {@value #MAX_BATCH}, read when the claim is sent,
 *       with the text {@code Claims.claimPostgres} sends for a claim stream on PostgreSQL with no scope,
 *       nothing held and no policy ({@code SqlDialect.Postgres.claimWithNextDue}: the prioritized arm,
 *       then the others, both {@code FOR UPDATE SKIP LOCKED}, the {@code UPDATE} setting
 *       {@code claimed_at}, a claim token and {@code claimed_by}, the next due time in the same
 *       statement), every column read and the input decoded; each claimed row is completed at once
 *       (the task does nothing), so its key joins the settle queue;
 *   <li>the settler writes the queue as the store's settle group does ({@code GroupedSettles}): one
 *       flush in flight, each taking every key queued meanwhile (at most {@value #MAX_GROUP}), keys
 *       sorted, one {@code UPDATE … WHERE dispatch_key = ANY(keys)} (its {@code SETTLE_ALIKE} text, sent
 *       for a round of completes); once it committed, the room of its rows is free for the next claim.
 * </ul>
 *
 * <p>With claims of up to {@value #MAX_BATCH} the two threads take turns, each statement carrying all
 * {@value #IN_FLIGHT} rows in flight (the fewest statements per row); with claims of at most
 * {@value #OVERLAPPED} a claim runs while the rows before it are settled (more statements, side by
 * side). What it leaves out is the store itself: Reactor, r2dbc, the pool, the claim stream's engine and
 * the group commit's bookkeeping. Its rate divided by db-scheduler's of the same run bounds what the
 * store's shape of drain can reach against db-scheduler on this machine.
 */
final class RawPgShapedDrain {

    /** Rows in flight: the drain's {@code flatMap} concurrency. */
    static final int IN_FLIGHT = PostgresComparison.CONCURRENCY;
    /** The claim stream's {@code maxBatch}. */
    static final int MAX_BATCH = 100;
    /** {@code GroupedSettles.MAX_GROUP}: the most settles one flush writes. */
    static final int MAX_GROUP = 256;

    private static final long STALL_NANOS = TimeUnit.MINUTES.toNanos(5);

    /**
     * {@code OutboxRows.CLAIMED_RETURNING_PG}: what the claim returns of each row it took, the
     * columns the claim does not set itself, the input as hex text.
     */
    private static final String RETURNING = "o.dispatch_key, o.workflow_id, o.ordinal, o.run_id, o.namespace, "
            + "o.task_queue, o.node, o.activity_type, encode(o.input, 'hex') AS input, o.attempt, o.visible_after, "
            + "o.trace_context, o.priority";

    /**
     * {@code GroupedSettles.SETTLE_ALIKE}, what the store's settle group sends for a round of completes
     * (every settle of it {@code done}), its {@code $n} markers as {@code ?}: the status, the settle time,
     * the keys.
     */
    static final String SETTLE = "UPDATE outbox SET status = ?, claimed_at = NULL, settled_at = ? "
            + "WHERE dispatch_key = ANY(?::text[]) AND status IN ('pending', 'claimed')";

    /**
     * What one drain measured.
     *
     * @param rowsPerSecond completed rows per second, first claim to last settle
     * @param claims claim statements that took rows
     * @param flushes settle statements
     * @param rows rows drained
     */
    record Result(double rowsPerSecond, long claims, long flushes, long rows) {
        /** @return mean rows per claim that took rows */
        double rowsPerClaim() {
            return claims == 0 ? Double.NaN : (double) rows / claims;
        }

        /** @return mean rows per settle statement */
        double rowsPerFlush() {
            return flushes == 0 ? Double.NaN : (double) rows / flushes;
        }
    }

    /** The claim cap of the overlapped form: half the rows in flight, so two batches are in flight at once. */
    static final int OVERLAPPED = IN_FLIGHT / 2;

    private final RawRows rows;
    private final int maxClaim;

    /**
     * @param rows decodes the claimed rows
     * @param maxClaim the most rows one claim takes: {@value #MAX_BATCH} (the stream's {@code maxBatch}; the
     *     free room then never exceeds {@value #IN_FLIGHT}, so claim and settle take turns, each with all the
     *     rows in flight), or {@value #OVERLAPPED} (claims overlap the settle of the rows before, as the
     *     store's do when demand comes back in parts)
     */
    RawPgShapedDrain(RawRows rows, int maxClaim) {
        this.rows = rows;
        this.maxClaim = maxClaim;
    }

    /**
     * Drains every staged row of the pool's schema.
     *
     * @param pool connections to the store's schema, at least 2
     * @param expected rows staged, all due; every one must be claimed once and settled
     * @return the rate and the counts
     */
    Result drain(HikariDataSource pool, long expected) {
        Shared shared = new Shared();
        long nanos = Workers.run(2, worker -> {
            try {
                if (worker == 0) {
                    claimLoop(pool, shared);
                } else {
                    settleLoop(pool, shared);
                }
            } finally {
                shared.ended(worker);
            }
        });
        if (shared.claimed != expected || shared.settled != expected) {
            throw new IllegalStateException("raw drain in the store's shape claimed " + shared.claimed + " and settled "
                    + shared.settled + " rows of " + expected);
        }
        return new Result(Stats.perSecond(expected, nanos), shared.claims, shared.flushes, expected);
    }

    /** The state both threads share, guarded by {@link #lock}. */
    private static final class Shared {
        private final ReentrantLock lock = new ReentrantLock();
        private final Condition changed = lock.newCondition();
        private final ArrayDeque<String> queue = new ArrayDeque<>();
        private final long began = System.nanoTime();
        private int inFlight;
        private boolean claimerEnded;
        private boolean settlerEnded;
        private long claimed;
        private long settled;
        private long claims;
        private long flushes;

        void ended(int worker) {
            lock.lock();
            try {
                if (worker == 0) {
                    claimerEnded = true;
                } else {
                    settlerEnded = true;
                }
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }

        void await() throws InterruptedException {
            if (System.nanoTime() - began > STALL_NANOS) {
                throw new IllegalStateException("raw drain in the store's shape stalled at " + settled + " rows");
            }
            var unused = changed.await(1, TimeUnit.SECONDS); // past it, the stall is checked again
        }
    }

    private void claimLoop(HikariDataSource pool, Shared shared) throws Exception {
        try (Connection c = pool.getConnection();
                PreparedStatement claim = c.prepareStatement(claimSql())) {
            c.setAutoCommit(true);
            while (true) {
                int room;
                shared.lock.lock();
                try {
                    while ((room = IN_FLIGHT - shared.inFlight) == 0 && !shared.settlerEnded) {
                        shared.await();
                    }
                    if (shared.settlerEnded) {
                        return;
                    }
                } finally {
                    shared.lock.unlock();
                }
                List<String> keys = claim(claim, Math.min(room, maxClaim));
                shared.lock.lock();
                try {
                    if (keys.isEmpty()) {
                        return; // every row is due from the start: an empty claim means none is left
                    }
                    shared.claims++;
                    shared.claimed += keys.size();
                    shared.inFlight += keys.size();
                    shared.queue.addAll(keys); // each row's complete, at once: the task does nothing
                    shared.changed.signalAll();
                } finally {
                    shared.lock.unlock();
                }
            }
        }
    }

    private static void settleLoop(HikariDataSource pool, Shared shared) throws Exception {
        try (Connection c = pool.getConnection();
                PreparedStatement settle = c.prepareStatement(SETTLE)) {
            c.setAutoCommit(true);
            while (true) {
                String[] keys;
                shared.lock.lock();
                try {
                    while (shared.queue.isEmpty() && !shared.claimerEnded) {
                        shared.await();
                    }
                    if (shared.queue.isEmpty()) {
                        return;
                    }
                    keys = new String[Math.min(shared.queue.size(), MAX_GROUP)];
                    for (int i = 0; i < keys.length; i++) {
                        keys[i] = shared.queue.poll();
                    }
                } finally {
                    shared.lock.unlock();
                }
                int n = settle(c, settle, keys);
                shared.lock.lock();
                try {
                    shared.flushes++;
                    shared.settled += n;
                    shared.inFlight -= keys.length;
                    shared.changed.signalAll();
                } finally {
                    shared.lock.unlock();
                }
            }
        }
    }

    /**
     * The claim the store's claim stream sends on PostgreSQL with no scope, nothing held and no policy
     * ({@code Claims.claimPostgres}, {@code SqlDialect.Postgres.claimWithNextDue}), its {@code $n}
     * markers as {@code ?} in the order they occur (see {@link #bind}).
     */
    static String claimSql() {
        String due = "status = 'pending' AND visible_after <= ?";
        return "WITH p AS (SELECT ctid AS tid, dispatch_key FROM outbox WHERE priority > 0 AND " + due
                + " ORDER BY priority DESC, visible_after, dispatch_key LIMIT (SELECT ?) FOR UPDATE SKIP LOCKED), "
                + "z AS (SELECT ctid AS tid, dispatch_key FROM outbox WHERE " + due + " "
                + "ORDER BY visible_after, dispatch_key LIMIT (SELECT ?) FOR UPDATE SKIP LOCKED), "
                + "due AS (SELECT tid FROM p UNION ALL (SELECT tid FROM z "
                + "WHERE dispatch_key NOT IN (SELECT dispatch_key FROM p)) LIMIT ?), "
                + "claimed AS (UPDATE outbox o SET status = 'claimed', claimed_at = ?, claim_token = ?, "
                + "claimed_by = ? WHERE o.ctid = ANY (ARRAY(SELECT tid FROM due)) RETURNING "
                + RETURNING
                + "), next AS (SELECT min(visible_after) AS next_due FROM outbox WHERE "
                + "(SELECT count(*) FROM claimed) < ? AND status = 'pending' "
                + "AND dispatch_key NOT IN (SELECT dispatch_key FROM claimed)) "
                + "SELECT claimed.*, next.next_due FROM next LEFT JOIN claimed ON true";
    }

    /**
     * Binds {@link #claimSql}'s markers: the prioritized arm (now, limit), the other arm (the same), the
     * outer limit, the update (now, token, no claimer: {@code claimed_by} NULL), the next-due read (limit).
     */
    private static void bind(PreparedStatement claim, long now, long token, int limit) throws SQLException {
        int i = 1;
        for (int arm = 0; arm < 2; arm++) {
            claim.setLong(i++, now);
            claim.setInt(i++, limit);
        }
        claim.setInt(i++, limit);
        claim.setLong(i++, now);
        claim.setLong(i++, token);
        claim.setNull(i++, Types.VARCHAR);
        claim.setInt(i, limit);
    }

    private List<String> claim(PreparedStatement claim, int limit) throws SQLException {
        // Claims.newClaimToken(DispatchPolicy.none()): positive
        bind(claim, RawDb.nowNanos(), ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE), limit);
        List<String> keys = new ArrayList<>(limit);
        try (ResultSet rs = claim.executeQuery()) {
            while (rs.next()) {
                if (rs.getString(1) == null) {
                    continue; // nothing claimed: the one row of the next due time
                }
                keys.add(rows.readClaimedRow(rs));
                rs.getLong(14); // next_due
            }
        }
        return keys;
    }

    private static int settle(Connection c, PreparedStatement settle, String[] keys) throws SQLException {
        Arrays.sort(keys); // code point order, as the store's settle group sorts (keys here are ASCII)
        Array keyArray = c.createArrayOf("text", keys);
        settle.setString(1, "done");
        settle.setLong(2, RawDb.nowNanos());
        settle.setArray(3, keyArray);
        int n = settle.executeUpdate();
        keyArray.free();
        return n;
    }
}
