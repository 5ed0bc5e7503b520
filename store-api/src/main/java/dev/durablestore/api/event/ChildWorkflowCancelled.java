package dev.durablestore.api.event;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.WorkflowId;

/**
 * A child workflow was cancelled.
 *
 * @param envelope the sequence, time and workflow of this event
 * @param childWorkflowId the child
 */
public record ChildWorkflowCancelled(EventEnvelope envelope, WorkflowId childWorkflowId) implements Event {
    /**
     * Validates the components (see the record's description).
     *
     * @param envelope the sequence, time and workflow of this event
     * @param childWorkflowId the child
     */
    public ChildWorkflowCancelled {
        InvalidArgumentException.requireNonNull(envelope, "envelope");
        InvalidArgumentException.requireNonNull(childWorkflowId, "childWorkflowId");
    }

    @Override
    public EventKind kind() {
        return EventKind.CHILD_WORKFLOW_CANCELLED;
    }
}
