package dev.durablestore.api.event;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.PackageVersion;
import dev.durablestore.api.Payload;
import dev.durablestore.api.WorkflowId;

/**
 * A child workflow was started (indexes the child's type and id, M14, M15).
 *
 * @param envelope the sequence, time and workflow of this event
 * @param childWorkflowId the child
 * @param workflowType the child's workflow type
 * @param input the child's input
 * @param packageVersion the child's package version
 */
public record ChildWorkflowStarted(
        EventEnvelope envelope,
        WorkflowId childWorkflowId,
        String workflowType,
        Payload input,
        PackageVersion packageVersion)
        implements Event {
    /**
     * Validates the components (see the record's description).
     *
     * @param envelope the sequence, time and workflow of this event
     * @param childWorkflowId the child
     * @param workflowType the child's workflow type
     * @param input the child's input
     * @param packageVersion the child's package version
     */
    public ChildWorkflowStarted {
        InvalidArgumentException.requireNonNull(envelope, "envelope");
        InvalidArgumentException.requireNonNull(childWorkflowId, "childWorkflowId");
        InvalidArgumentException.requireNonNull(workflowType, "workflowType");
        InvalidArgumentException.requireNonNull(input, "input");
        InvalidArgumentException.requireNonNull(packageVersion, "packageVersion");
    }

    @Override
    public EventKind kind() {
        return EventKind.CHILD_WORKFLOW_STARTED;
    }
}
