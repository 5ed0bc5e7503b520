package dev.durablestore.api;

import java.time.Instant;

/**
 * A stored timer (M23).
 *
 * @param workflowId the workflow that owns it
 * @param timerId the timer
 * @param fireAt when it is due
 */
public record TimerEntry(WorkflowId workflowId, TimerId timerId, Instant fireAt) {
    /**
     * Validates the components (see the record's description).
     *
     * @param workflowId the workflow that owns it
     * @param timerId the timer
     * @param fireAt when it is due
     */
    public TimerEntry {
        InvalidArgumentException.requireNonNull(workflowId, "workflowId");
        InvalidArgumentException.requireNonNull(timerId, "timerId");
        InvalidArgumentException.requireNonNull(fireAt, "fireAt");
    }
}
