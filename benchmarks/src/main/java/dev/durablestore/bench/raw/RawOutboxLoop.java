package dev.durablestore.bench.raw;

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
 * transaction, the batch's completes in the next).
 */
public final class RawOutboxLoop {

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
                        throw new SQLException("queue ran dry after " + i + " of " + count + " rows");
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
                claim.setLong(1, now);
                claim.setLong(2, now);
                claim.setInt(3, Math.min(batch, count - done));
                try (ResultSet rs = claim.executeQuery()) {
                    while (rs.next()) {
                        keys.add(rows.readRow(rs));
                    }
                }
                db.commit();
                if (keys.isEmpty()) {
                    throw new SQLException("queue ran dry after " + done + " of " + count + " rows");
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
}
