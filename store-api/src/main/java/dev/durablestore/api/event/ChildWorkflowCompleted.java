package dev.durablestore.api.event;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.Payload;
import dev.durablestore.api.WorkflowId;

/**
 * A child workflow completed.
 *
 * @param envelope the sequence, time and workflow of this event
 * @param childWorkflowId the child
 * @param result its result
 */
public record ChildWorkflowCompleted(EventEnvelope envelope, WorkflowId childWorkflowId, Payload result)
        implements Event {
    /**
     * Validates the components (see the record's description).
     *
     * @param envelope the sequence, time and workflow of this event
     * @param childWorkflowId the child
     * @param result its result
     */
    public ChildWorkflowCompleted {
        InvalidArgumentException.requireNonNull(envelope, "envelope");
        InvalidArgumentException.requireNonNull(childWorkflowId, "childWorkflowId");
        InvalidArgumentException.requireNonNull(result, "result");
    }

    @Override
    public EventKind kind() {
        return EventKind.CHILD_WORKFLOW_COMPLETED;
    }
}
