package dev.durablestore.api.event;

import dev.durablestore.api.InvalidArgumentException;

/**
 * The run was cancelled (terminal).
 *
 * @param envelope the sequence, time and workflow of this event
 * @param reason why it was cancelled
 */
public record WorkflowCancelled(EventEnvelope envelope, String reason) implements Event {
    /**
     * Validates the components (see the record's description).
     *
     * @param envelope the sequence, time and workflow of this event
     * @param reason why it was cancelled
     */
    public WorkflowCancelled {
        InvalidArgumentException.requireNonNull(envelope, "envelope");
        InvalidArgumentException.requireNonNull(reason, "reason");
    }

    @Override
    public EventKind kind() {
        return EventKind.WORKFLOW_CANCELLED;
    }
}
