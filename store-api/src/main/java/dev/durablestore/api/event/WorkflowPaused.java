package dev.durablestore.api.event;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.RunId;

/**
 * The workflow was paused (projects Paused; neither terminal nor reset).
 *
 * @param envelope the sequence, time and workflow of this event
 * @param runId the paused run
 * @param reason why, or {@code null}
 * @param operator who paused it, or {@code null}
 */
public record WorkflowPaused(EventEnvelope envelope, RunId runId, String reason, String operator) implements Event {
    /**
     * Validates the components (see the record's description).
     *
     * @param envelope the sequence, time and workflow of this event
     * @param runId the paused run
     * @param reason see the record component
     * @param operator see the record component
     */
    public WorkflowPaused {
        InvalidArgumentException.requireNonNull(envelope, "envelope");
        InvalidArgumentException.requireNonNull(runId, "runId");
    }

    @Override
    public EventKind kind() {
        return EventKind.WORKFLOW_PAUSED;
    }
}
