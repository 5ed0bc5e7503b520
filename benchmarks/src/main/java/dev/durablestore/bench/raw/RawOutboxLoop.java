package dev.durablestore.bench.raw;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.Event;
import dev.durablestore.bench.Fixtures;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * The outbox baselines on one thread: staging (set-up, not timed), and the drain — claim, then
 * complete — either one row per transaction (SELECT then UPDATE to claim, one transaction to
 * complete: the original design) or in batches ({@code UPDATE … RETURNING} claim of a batch in one
 * transaction, the batch's completes in the next) — or in the shape a claim stream reaches at a
 * given dispatcher concurrency (see {@link #drainInStreamShape}).
 */
public final class RawOutboxLoop {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** How long a hop's waiter spins for the keys coming back before it parks (as long as the writer). */
    static final long SPIN_NANOS = 200_000L;

    private final RawRows rows;

    /** @param rows encodes and decodes rows */
    public RawOutboxLoop(RawRows rows) {
        this.rows = rows;
    }

    /**
     * Stages, for each workflow, its {@code WorkflowStarted} event and {@code fanOut} pending rows,
     * in transactions of 1,000 workflows (the same data {@code appendWithOutbox} stages).
     *
     * @param db a connection to a file with the schema
     * @param workflows the workflows
     * @param fanOut rows per workflow
     * @param now the record and visibility time
     * @throws SQLException on failure
     */
    public void stage(RawDb db, List<WorkflowId> workflows, int fanOut, Instant now) throws SQLException {
        try (PreparedStatement event = db.connection().prepareStatement(RawSql.INSERT_EVENT);
                PreparedStatement row = db.connection().prepareStatement(RawSql.INSERT_OR_IGNORE_ROW)) {
            for (int i = 0; i < workflows.size(); i++) {
                if (i % 1000 == 0) {
                    db.begin();
                }
                WorkflowId w = workflows.get(i);
                Event started = Fixtures.started(w, now);
                rows.bindEvent(event, started);
                event.executeUpdate();
                for (OutboxRow r : Fixtures.pendingRows(w, fanOut, now)) {
                    rows.bindRow(row, r, 0L);
                    row.executeUpdate();
                }
                if ((i + 1) % 1000 == 0 || i == workflows.size() - 1) {
                    db.commit();
                }
            }
        }
    }

    /**
     * Claims and completes {@code count} rows, one transaction per claim and one per complete.
     *
     * @param db a connection to a file with at least {@code count} due rows
     * @param count rows to drain
     * @return elapsed nanoseconds
     * @throws SQLException on failure, or when the queue runs dry early
     */
    public long drainOneByOne(RawDb db, int count) throws SQLException {
        try (PreparedStatement select = db.connection().prepareStatement(RawSql.SELECT_ONE_DUE);
                PreparedStatement claim = db.connection().prepareStatement(RawSql.CLAIM_ONE);
                PreparedStatement complete = db.connection().prepareStatement(RawSql.COMPLETE)) {
            long began = System.nanoTime();
            for (int i = 0; i < count; i++) {
                long now = RawDb.nowNanos();
                db.begin();
                select.setLong(1, now);
                String key;
                try (ResultSet rs = select.executeQuery()) {
                    if (!rs.next()) {
                        db.commit();
                        throw dry(i, count);
                    }
                    key = rows.readRow(rs);
                }
                claim.setLong(1, now);
                claim.setString(2, key);
                claim.executeUpdate();
                db.commit();

                db.begin();
                complete.setLong(1, RawDb.nowNanos());
                complete.setString(2, key);
                complete.executeUpdate();
                db.commit();
            }
            return System.nanoTime() - began;
        }
    }

    /**
     * Claims batches of {@code batch} rows with one {@code UPDATE … RETURNING} per transaction and
     * completes each batch in the next transaction, until {@code count} rows are done.
     *
     * @param db a connection to a file with at least {@code count} due rows
     * @param count rows to drain
     * @param batch rows per claim and per complete transaction
     * @return elapsed nanoseconds
     * @throws SQLException on failure, or when the queue runs dry early
     */
    public long drainBatched(RawDb db, int count, int batch) throws SQLException {
        try (PreparedStatement claim = db.connection().prepareStatement(RawSql.CLAIM_BATCH);
                PreparedStatement complete = db.connection().prepareStatement(RawSql.COMPLETE)) {
            List<String> keys = new ArrayList<>(batch);
            long began = System.nanoTime();
            int done = 0;
            while (done < count) {
                long now = RawDb.nowNanos();
                keys.clear();
                db.begin();
                claimInto(claim, now, Math.min(batch, count - done), keys);
                db.commit();
                if (keys.isEmpty()) {
                    throw dry(done, count);
                }
                db.begin();
                long settled = RawDb.nowNanos();
                for (String key : keys) {
                    complete.setLong(1, settled);
                    complete.setString(2, key);
                    complete.executeUpdate();
                }
                db.commit();
                done += keys.size();
            }
            return System.nanoTime() - began;
        }
    }

    /**
     * Drains in the transaction shape the store's claim stream settles into when its subscriber
     * keeps {@code 2 × perClaim} rows in flight: every transaction completes the rows the previous
     * one claimed (one grouped {@code UPDATE}, as the store groups adjacent completes) and claims
     * {@code perClaim} more. A stream that never claims ahead of demand (O52) can carry at most
     * as many row transitions per commit as its subscriber has rows in flight, so this is the
     * fastest any such store can drain with this SQL: the ceiling of the store's drain, with no
     * store around it.
     *
     * <p>With a {@code hop}, every commit's claimed keys also travel once from this thread to the
     * hop's thread and back before the next transaction, as every acknowledgment of the store
     * does (its writer thread commits, an emit thread signals the subscriber, whose next commands
     * reach the writer); this thread waits for them the way the writer waits for its next command:
     * spinning for {@link #SPIN_NANOS}, then parking.
     *
     * @param db a connection to a file with at least {@code count} due rows
     * @param count rows to drain
     * @param perClaim rows per claim (half the dispatcher's concurrency)
     * @param hop where each commit's keys go before the next transaction, or {@code null} for none
     * @return elapsed nanoseconds
     * @throws SQLException on failure, or when the queue runs dry early
     */
    public long drainInStreamShape(RawDb db, int count, int perClaim, Executor hop) throws SQLException {
        try (PreparedStatement claim = db.connection().prepareStatement(RawSql.CLAIM_BATCH);
                PreparedStatement complete = db.connection().prepareStatement(RawSql.COMPLETE_MANY)) {
            List<String> claimed = new ArrayList<>(perClaim);
            long began = System.nanoTime();
            int done = 0;
            int taken = 0;
            while (done < count) {
                long now = RawDb.nowNanos();
                db.begin();
                if (!claimed.isEmpty()) {
                    complete.setLong(1, now);
                    complete.setString(2, jsonArray(claimed));
                    complete.executeUpdate();
                    done += claimed.size();
                    claimed.clear();
                }
                int want = Math.min(perClaim, count - taken);
                if (want > 0) {
                    claimInto(claim, now, want, claimed);
                    if (claimed.isEmpty()) {
                        db.commit();
                        throw dry(taken, count);
                    }
                    taken += claimed.size();
                }
                db.commit();
                if (hop != null) {
                    claimed = handOver(hop, claimed);
                }
            }
            return System.nanoTime() - began;
        }
    }

    /** Runs the batch claim ({@link RawSql#CLAIM_BATCH}) and adds the claimed rows' keys, each row read in full. */
    private void claimInto(PreparedStatement claim, long now, int limit, List<String> keys) throws SQLException {
        claim.setLong(1, now);
        claim.setLong(2, now);
        claim.setInt(3, limit);
        try (ResultSet rs = claim.executeQuery()) {
            while (rs.next()) {
                keys.add(rows.readRow(rs));
            }
        }
    }

    private static SQLException dry(int drained, int count) {
        return new SQLException("queue ran dry after " + drained + " of " + count + " rows");
    }

    private static List<String> handOver(Executor hop, List<String> keys) {
        AtomicReference<List<String>> back = new AtomicReference<>();
        Thread waiter = Thread.currentThread();
        hop.execute(() -> {
            back.set(keys);
            LockSupport.unpark(waiter);
        });
        long spinUntil = System.nanoTime() + SPIN_NANOS;
        List<String> returned;
        while ((returned = back.get()) == null) {
            if (System.nanoTime() < spinUntil) {
                Thread.onSpinWait();
            } else {
                LockSupport.park();
            }
        }
        return returned;
    }

    private static String jsonArray(List<String> keys) throws SQLException {
        try {
            return JSON.writeValueAsString(keys);
        } catch (JsonProcessingException e) {
            throw new SQLException("cannot write the key list as JSON", e);
        }
    }
}
