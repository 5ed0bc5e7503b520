package dev.durablestore.bench.raw;

import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.Event;
import dev.durablestore.bench.Fixtures;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The baseline of P8 on one thread: what a dispatcher's workflow steps cost with plain JDBC and no
 * store. Each workflow runs a chain of activities; its history starts with {@code WorkflowStarted}
 * and the first {@code ActivityScheduled} (seq 1, 2) beside the first activity's row (ordinal 1).
 * The step that settles activity {@code k} (its row has ordinal {@code k}, the workflow's head is
 * {@code 2k}) appends its outcome, {@code ActivityCompleted} (seq {@code 2k + 1}), then either the
 * next activity's {@code ActivityScheduled} (seq {@code 2k + 2}) with its row, or, after the last
 * activity, {@code WorkflowCompleted}; and it completes its row fenced by its claim token.
 *
 * <p>The drain alternates two transactions: a claim of up to {@code perClaim} rows (the store's
 * claim statement, with its claim token), then one transaction holding every claimed row's step —
 * its event inserts, the next row's insert and the fenced settle, which must change exactly one
 * row. No guard read: the events' primary key refuses a second event at a seq.
 */
public final class RawStepLoop {

    private final RawRows rows;

    /** @param rows encodes and decodes rows */
    public RawStepLoop(RawRows rows) {
        this.rows = rows;
    }

    /**
     * Stages each workflow's first two events and its first activity's row, in transactions of
     * 1,000 workflows; adds the claim token column to the outbox first (see
     * {@link RawSchema#addClaimToken}).
     *
     * @param db a connection to a file with the schema
     * @param workflows the workflows
     * @param now the record and visibility time
     * @throws SQLException on failure
     */
    public void stage(RawDb db, List<WorkflowId> workflows, Instant now) throws SQLException {
        RawSchema.addClaimToken(db.connection());
        try (PreparedStatement event = db.connection().prepareStatement(RawSql.INSERT_EVENT);
                PreparedStatement row = db.connection().prepareStatement(RawSql.INSERT_OR_IGNORE_ROW)) {
            for (int i = 0; i < workflows.size(); i++) {
                if (i % 1000 == 0) {
                    db.begin();
                }
                WorkflowId w = workflows.get(i);
                rows.bindEvent(event, Fixtures.started(w, now));
                event.executeUpdate();
                rows.bindEvent(event, Fixtures.activityScheduled(w, 2, 1, now));
                event.executeUpdate();
                rows.bindRow(row, Fixtures.pendingRow(w, 1, now), 0L);
                row.executeUpdate();
                if ((i + 1) % 1000 == 0 || i == workflows.size() - 1) {
                    db.commit();
                }
            }
        }
    }

    /** One claimed row: what its step needs. */
    private record Claimed(String key, WorkflowId workflow, long ordinal, long token) {}

    /**
     * Runs {@code steps} steps, claims of up to {@code perClaim} rows each followed by one
     * transaction holding the steps of the rows it claimed.
     *
     * @param db a staged file
     * @param steps steps to run (workflows × activities)
     * @param activities activities per workflow
     * @param perClaim rows per claim (the dispatcher's concurrency)
     * @return elapsed nanoseconds
     * @throws SQLException on failure, when the queue runs dry early, or when a fenced settle
     *     changes no row
     */
    public long drain(RawDb db, int steps, int activities, int perClaim) throws SQLException {
        try (PreparedStatement claim = db.connection().prepareStatement(RawSql.CLAIM_BATCH_FENCED);
                PreparedStatement event = db.connection().prepareStatement(RawSql.INSERT_EVENT);
                PreparedStatement row = db.connection().prepareStatement(RawSql.INSERT_OR_IGNORE_ROW);
                PreparedStatement settle = db.connection().prepareStatement(RawSql.SETTLE_FENCED)) {
            List<Claimed> claimed = new ArrayList<>(perClaim);
            long began = System.nanoTime();
            int done = 0;
            while (done < steps) {
                claimed.clear();
                db.begin();
                long now = RawDb.nowNanos();
                claim.setLong(1, now);
                claim.setLong(2, token());
                claim.setLong(3, now);
                claim.setInt(4, Math.min(perClaim, steps - done));
                try (ResultSet rs = claim.executeQuery()) {
                    while (rs.next()) {
                        String key = rows.readRow(rs);
                        claimed.add(new Claimed(key, WorkflowId.parse(rs.getString(2)), rs.getLong(3), rs.getLong(14)));
                    }
                }
                db.commit();
                if (claimed.isEmpty()) {
                    throw new SQLException("queue ran dry after " + done + " of " + steps + " steps");
                }
                db.begin();
                Instant at = Instant.now();
                long settledAt = RawDb.nanos(at);
                for (Claimed c : claimed) {
                    for (Event e : stepEvents(c.workflow(), c.ordinal(), activities, at)) {
                        rows.bindEvent(event, e);
                        event.executeUpdate();
                    }
                    if (c.ordinal() < activities) {
                        rows.bindRow(row, Fixtures.pendingRow(c.workflow(), c.ordinal() + 1, at), 0L);
                        row.executeUpdate();
                    }
                    settle.setString(1, "done");
                    settle.setLong(2, settledAt);
                    settle.setString(3, c.key());
                    settle.setLong(4, c.token());
                    if (settle.executeUpdate() != 1) {
                        db.execute("ROLLBACK");
                        throw new SQLException("fenced settle of " + c.key() + " changed no row");
                    }
                }
                db.commit();
                done += claimed.size();
            }
            return System.nanoTime() - began;
        }
    }

    /**
     * The events of the step settling activity {@code activity} of {@code activities}: its outcome,
     * then the next activity's {@code ActivityScheduled} or, after the last, {@code WorkflowCompleted}.
     * The workflow's head before the step is {@code 2 × activity}.
     *
     * @param workflow the workflow
     * @param activity the settled activity (its row's ordinal)
     * @param activities activities per workflow
     * @param now the record time
     * @return the two events
     */
    public static List<Event> stepEvents(WorkflowId workflow, long activity, int activities, Instant now) {
        long head = 2 * activity;
        Event next = activity < activities
                ? Fixtures.activityScheduled(workflow, head + 2, activity + 1, now)
                : Fixtures.workflowCompleted(workflow, head + 2, now);
        return List.of(Fixtures.activityCompleted(workflow, head + 1, activity, now), next);
    }

    /** @return a random non-zero claim token, as the store's claims write */
    private static long token() {
        long t;
        do {
            t = ThreadLocalRandom.current().nextLong();
        } while (t == 0);
        return t;
    }
}
