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

/**
 * The outbox baselines on one thread: staging (set-up, not timed), and the drain — claim, then
 * complete — either one row per transaction (SELECT then UPDATE to claim, one transaction to
 * complete: the original design) or in batches ({@code UPDATE … RETURNING} claim of a batch in one
 * transaction, the batch's completes in the next) — or in the transaction shape the store's claim
 * stream settles into (see {@link #drainInStoreShape}).
 */
public final class RawOutboxLoop {

    private static final ObjectMapper JSON = new ObjectMapper();

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
        stage(db, workflows, fanOut, now, 1000);
    }

    /**
     * Stages as {@link #stage(RawDb, List, int, Instant)} does, {@code perTransaction} workflows per
     * transaction.
     *
     * @param db a connection to a file with the schema
     * @param workflows the workflows
     * @param fanOut rows per workflow
     * @param now the record and visibility time
     * @param perTransaction workflows per transaction
     * @throws SQLException on failure
     */
    public void stage(RawDb db, List<WorkflowId> workflows, int fanOut, Instant now, int perTransaction)
            throws SQLException {
        try (PreparedStatement event = db.connection().prepareStatement(RawSql.INSERT_EVENT);
                PreparedStatement row = db.connection().prepareStatement(RawSql.INSERT_OR_IGNORE_ROW)) {
            for (int i = 0; i < workflows.size(); i++) {
                if (i % perTransaction == 0) {
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
                if ((i + 1) % perTransaction == 0 || i == workflows.size() - 1) {
                    db.commit();
                }
            }
        }
    }

    /**
     * Inserts rows with the store's row insert ({@link RawSql#INSERT_OR_IGNORE_ROW}),
     * {@code perTransaction} per transaction: one {@code executeUpdate} per row, or the rows of a
     * transaction as one JDBC batch ({@code addBatch}, then {@code executeBatch}).
     *
     * @param db a connection to a file with the schema
     * @param staged the rows, built beforehand
     * @param perTransaction rows per transaction
     * @param jdbcBatch whether each transaction's rows go as one JDBC batch
     * @return elapsed nanoseconds
     * @throws SQLException on failure
     */
    public long insertRows(RawDb db, List<OutboxRow> staged, int perTransaction, boolean jdbcBatch)
            throws SQLException {
        try (PreparedStatement row = db.connection().prepareStatement(RawSql.INSERT_OR_IGNORE_ROW)) {
            long began = System.nanoTime();
            for (int i = 0; i < staged.size(); i++) {
                if (i % perTransaction == 0) {
                    db.begin();
                }
                rows.bindRow(row, staged.get(i), 0L);
                if (jdbcBatch) {
                    row.addBatch();
                } else {
                    row.executeUpdate();
                }
                if ((i + 1) % perTransaction == 0 || i == staged.size() - 1) {
                    if (jdbcBatch) {
                        row.executeBatch();
                    }
                    db.commit();
                }
            }
            return System.nanoTime() - began;
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
        return drain(db, count, batch, false, RawSql.CLAIM_BATCH);
    }

    /**
     * Drains in the transaction shape the store settles into when a claim stream's subscriber keeps
     * {@code perClaim} rows in flight and completes each as it arrives: one transaction claims
     * {@code perClaim} rows (all the demand there is: the completes of the previous ones freed it),
     * the next completes them with one grouped {@code UPDATE} (as the store groups adjacent
     * completes). The store's writer signals each commit's subscribers on its own thread, so all of
     * a commit's follow-up commands are queued before its next transaction: it alternates these two
     * transactions (BENCHMARKS.md, P2: rows per claim, commands per commit). This is what the
     * store's SQL costs in that shape with no store around it.
     *
     * @param db a connection to a file with at least {@code count} due rows
     * @param count rows to drain
     * @param perClaim rows per claim (the dispatcher's concurrency)
     * @return elapsed nanoseconds
     * @throws SQLException on failure, or when the queue runs dry early
     */
    public long drainInStoreShape(RawDb db, int count, int perClaim) throws SQLException {
        return drain(db, count, perClaim, true, RawSql.CLAIM_BATCH);
    }

    /**
     * {@link #drainInStoreShape} with the store's serial claim ({@link RawSql#CLAIM_BATCH_SERIAL}):
     * each claim takes the first pending row of workflows with nothing claimed. What serial dispatch
     * costs the store's SQL with no store around it.
     *
     * @param db a connection to a file with at least {@code count} due rows
     * @param count rows to drain
     * @param perClaim rows per claim (the dispatcher's concurrency)
     * @return elapsed nanoseconds
     * @throws SQLException on failure, or when the queue runs dry early
     */
    public long drainSeriallyInStoreShape(RawDb db, int count, int perClaim) throws SQLException {
        return drain(db, count, perClaim, true, RawSql.CLAIM_BATCH_SERIAL);
    }

    /**
     * Claims up to {@code batch} rows per transaction and completes them in the next one: one
     * {@code UPDATE} per row ({@link RawSql#COMPLETE}), or one for the whole batch
     * ({@link RawSql#COMPLETE_MANY}, as the store groups adjacent completes).
     */
    private long drain(RawDb db, int count, int batch, boolean groupedCompletes, String claimSql) throws SQLException {
        try (PreparedStatement claim = db.connection().prepareStatement(claimSql);
                PreparedStatement complete =
                        db.connection().prepareStatement(groupedCompletes ? RawSql.COMPLETE_MANY : RawSql.COMPLETE)) {
            List<String> keys = new ArrayList<>(batch);
            long began = System.nanoTime();
            int done = 0;
            while (done < count) {
                claimBatch(db, claim, Math.min(batch, count - done), keys, done, count);
                db.begin();
                long settled = RawDb.nowNanos();
                if (groupedCompletes) {
                    complete.setLong(1, settled);
                    complete.setString(2, jsonArray(keys));
                    complete.executeUpdate();
                } else {
                    for (String key : keys) {
                        complete.setLong(1, settled);
                        complete.setString(2, key);
                        complete.executeUpdate();
                    }
                }
                db.commit();
                done += keys.size();
            }
            return System.nanoTime() - began;
        }
    }

    /**
     * One transaction claiming up to {@code limit} rows into {@code keys} (cleared first).
     *
     * @throws SQLException on failure, or when no row was due ({@code done} of {@code count} drained)
     */
    private void claimBatch(RawDb db, PreparedStatement claim, int limit, List<String> keys, int done, int count)
            throws SQLException {
        keys.clear();
        db.begin();
        claimInto(claim, RawDb.nowNanos(), limit, keys);
        db.commit();
        if (keys.isEmpty()) {
            throw dry(done, count);
        }
    }

    /** Runs a batch claim ({@link RawSql#CLAIM_BATCH} or its serial form) and adds the claimed rows' keys, each row read in full. */
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

    private static String jsonArray(List<String> keys) throws SQLException {
        try {
            return JSON.writeValueAsString(keys);
        } catch (JsonProcessingException e) {
            throw new SQLException("cannot write the key list as JSON", e);
        }
    }
}
