package dev.durablestore.api.event;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.WorkflowId;

/**
 * A child workflow failed.
 *
 * @param envelope the sequence, time and workflow of this event
 * @param childWorkflowId the child
 * @param error why it failed
 */
public record ChildWorkflowFailed(EventEnvelope envelope, WorkflowId childWorkflowId, WorkflowError error)
        implements Event {
    /**
     * Validates the components (see the record's description).
     *
     * @param envelope the sequence, time and workflow of this event
     * @param childWorkflowId the child
     * @param error why it failed
     */
    public ChildWorkflowFailed {
        InvalidArgumentException.requireNonNull(envelope, "envelope");
        InvalidArgumentException.requireNonNull(childWorkflowId, "childWorkflowId");
        InvalidArgumentException.requireNonNull(error, "error");
    }

    @Override
    public EventKind kind() {
        return EventKind.CHILD_WORKFLOW_FAILED;
    }
}
