package dev.durablestore.api;

/**
 * What {@link OperatorStore#purgeWorkflow} deleted (D8).
 *
 * @param workflowId the workflow purged
 * @param eventsDeleted its events (0 for a workflow with none)
 * @param timersDeleted its timers
 * @param outboxRowsDeleted its outbox rows, live ones included
 */
public record PurgeResult(WorkflowId workflowId, long eventsDeleted, long timersDeleted, long outboxRowsDeleted) {

    /**
     * Checks the workflow.
     *
     * @param workflowId see the record component
     * @param eventsDeleted see the record component
     * @param timersDeleted see the record component
     * @param outboxRowsDeleted see the record component
     */
    public PurgeResult {
        InvalidArgumentException.requireNonNull(workflowId, "workflowId");
    }

    /** @return whether anything was stored for the workflow */
    public boolean found() {
        return eventsDeleted + timersDeleted + outboxRowsDeleted > 0;
    }
}
