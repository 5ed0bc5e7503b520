package dev.durablestore.api.event;

import dev.durablestore.api.InvalidArgumentException;

/**
 * The run failed (terminal).
 *
 * @param envelope the sequence, time and workflow of this event
 * @param error why it failed
 */
public record WorkflowFailed(EventEnvelope envelope, WorkflowError error) implements Event {
    /**
     * Validates the components (see the record's description).
     *
     * @param envelope the sequence, time and workflow of this event
     * @param error why it failed
     */
    public WorkflowFailed {
        InvalidArgumentException.requireNonNull(envelope, "envelope");
        InvalidArgumentException.requireNonNull(error, "error");
    }

    @Override
    public EventKind kind() {
        return EventKind.WORKFLOW_FAILED;
    }
}
