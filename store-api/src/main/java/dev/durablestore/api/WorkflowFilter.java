package dev.durablestore.api;

import java.time.Instant;

/**
 * Selects workflows for {@link EventStore#query(WorkflowFilter)} (M24, R32–R37). Unset
 * ({@code null}) fields match everything; set fields combine by conjunction. Immutable: the
 * {@code with*} methods return copies.
 *
 * @param workflowType exact (case-sensitive) workflow type of the current run, or {@code null}
 * @param status projected status, or {@code null}
 * @param startedAfter inclusive lower bound of the current run's start, or {@code null}
 * @param startedBefore inclusive upper bound of the current run's start, or {@code null}
 * @param parent the parent workflow, or {@code null}
 */
public record WorkflowFilter(
        String workflowType, WorkflowStatus status, Instant startedAfter, Instant startedBefore, WorkflowId parent) {

    private static final WorkflowFilter ALL = new WorkflowFilter(null, null, null, null, null);

    /** @return the filter with every field unset: matches every workflow that has a start event */
    public static WorkflowFilter all() {
        return ALL;
    }

    /**
     * @param type the workflow type to match
     * @return a copy with the type set
     */
    public WorkflowFilter withWorkflowType(String type) {
        return new WorkflowFilter(type, status, startedAfter, startedBefore, parent);
    }

    /**
     * @param value the status to match
     * @return a copy with the status set
     */
    public WorkflowFilter withStatus(WorkflowStatus value) {
        return new WorkflowFilter(workflowType, value, startedAfter, startedBefore, parent);
    }

    /**
     * @param value the inclusive lower bound of the start time
     * @return a copy with the bound set
     */
    public WorkflowFilter withStartedAfter(Instant value) {
        return new WorkflowFilter(workflowType, status, value, startedBefore, parent);
    }

    /**
     * @param value the inclusive upper bound of the start time
     * @return a copy with the bound set
     */
    public WorkflowFilter withStartedBefore(Instant value) {
        return new WorkflowFilter(workflowType, status, startedAfter, value, parent);
    }

    /**
     * @param value the parent workflow to match
     * @return a copy with the parent set
     */
    public WorkflowFilter withParent(WorkflowId value) {
        return new WorkflowFilter(workflowType, status, startedAfter, startedBefore, value);
    }

    /**
     * Applies the filter to a projected summary (R32–R37).
     *
     * @param summary a projected summary
     * @return true when every set field matches
     */
    public boolean matches(WorkflowSummary summary) {
        return (workflowType == null || workflowType.equals(summary.workflowType()))
                && (status == null || status == summary.status())
                && (startedAfter == null || !summary.startedAt().isBefore(startedAfter))
                && (startedBefore == null || !summary.startedAt().isAfter(startedBefore))
                && (parent == null || parent.equals(summary.parent()));
    }
}
