package dev.durablestore.api;

import java.time.Instant;

/**
 * One workflow as projected from its history (M21, R24–R31).
 *
 * @param workflowId the workflow
 * @param workflowType the type of the current run (last {@code WorkflowStarted})
 * @param status the status over the whole history (R10)
 * @param startedAt the record time of the last {@code WorkflowStarted}
 * @param endedAt the record time of the current-lease terminal (R18), or {@code null}
 * @param parent the workflow whose {@code ChildWorkflowStarted} names this one (R30), or {@code null}
 * @param failedStep the activity type that failed the current lease (R28), or {@code null}
 * @param failureReason the message of a current-lease {@code WorkflowFailed} (R27), or {@code null}
 */
public record WorkflowSummary(
        WorkflowId workflowId,
        String workflowType,
        WorkflowStatus status,
        Instant startedAt,
        Instant endedAt,
        WorkflowId parent,
        String failedStep,
        String failureReason) {
    /**
     * Validates the components (see the record's description).
     *
     * @param workflowId the workflow
     * @param workflowType see the record component
     * @param status the status over the whole history (R10)
     * @param startedAt see the record component
     * @param endedAt see the record component
     * @param parent see the record component
     * @param failedStep see the record component
     * @param failureReason see the record component
     */
    public WorkflowSummary {
        InvalidArgumentException.requireNonNull(workflowId, "workflowId");
        InvalidArgumentException.requireNonNull(workflowType, "workflowType");
        InvalidArgumentException.requireNonNull(status, "status");
        InvalidArgumentException.requireNonNull(startedAt, "startedAt");
    }
}
