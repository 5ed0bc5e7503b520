package dev.durablestore.api;

/**
 * What one step of {@link OperatorStore#sweepRetention} deleted, and where the next step goes on.
 *
 * @param workflowsDeleted closed workflows deleted whole (D5)
 * @param eventsDeleted their events
 * @param timersDeleted their timers
 * @param outboxRowsDeleted their outbox rows
 * @param settledRowsPruned settled rows of any workflow pruned by
 *     {@link RetentionPolicy#withSettledRows} (0 when the policy prunes none, and on every step but
 *     the first of a pass)
 * @param lateAppends workflows that an append racing with their deletion gave new events, which
 *     are kept (D11; PostgreSQL only, and rare: each is logged)
 * @param resumeAfter the workflow to pass to the next step as {@code after}, or {@code null} when
 *     this step reached the last closed workflow: the pass is over
 */
public record RetentionSweep(
        long workflowsDeleted,
        long eventsDeleted,
        long timersDeleted,
        long outboxRowsDeleted,
        long settledRowsPruned,
        long lateAppends,
        WorkflowId resumeAfter) {

    /** @return whether the pass goes on: a next step, from {@link #resumeAfter()}, may delete more */
    public boolean more() {
        return resumeAfter != null;
    }

    /** @return every row this step deleted: events, timers, outbox rows and pruned settled rows */
    public long rowsDeleted() {
        return eventsDeleted + timersDeleted + outboxRowsDeleted + settledRowsPruned;
    }
}
