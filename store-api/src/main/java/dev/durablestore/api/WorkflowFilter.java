package dev.durablestore.api;

import java.time.Instant;
import java.util.Objects;

/**
 * Selects workflows for {@link ReactiveStore#query(WorkflowFilter)} (M24, R32–R37). Unset
 * ({@code null}) fields match everything; set fields combine by conjunction. Immutable: start from
 * {@link #all()}; each {@code with*} method returns a copy and leaves this one unchanged, so its
 * result must be used (a {@code with*} call as a statement does nothing; Error Prone reports it).
 *
 * <pre>{@code
 * WorkflowFilter failedOrders = WorkflowFilter.all()
 *         .withWorkflowType("order")
 *         .withStatus(WorkflowStatus.FAILED);
 * }</pre>
 */
public final class WorkflowFilter {

    private static final WorkflowFilter ALL = new WorkflowFilter(null, null, null, null, null);

    private final String workflowType;
    private final WorkflowStatus status;
    private final Instant startedAfter;
    private final Instant startedBefore;
    private final WorkflowId parent;

    private WorkflowFilter(
            String workflowType,
            WorkflowStatus status,
            Instant startedAfter,
            Instant startedBefore,
            WorkflowId parent) {
        this.workflowType = workflowType;
        this.status = status;
        this.startedAfter = startedAfter;
        this.startedBefore = startedBefore;
        this.parent = parent;
    }

    /** @return the filter with every field unset: matches every workflow that has a start event */
    public static WorkflowFilter all() {
        return ALL;
    }

    /** @return the exact (case-sensitive) workflow type of the current run, or {@code null} */
    public String workflowType() {
        return workflowType;
    }

    /** @return the projected status, or {@code null} */
    public WorkflowStatus status() {
        return status;
    }

    /** @return the inclusive lower bound of the current run's start, or {@code null} */
    public Instant startedAfter() {
        return startedAfter;
    }

    /** @return the inclusive upper bound of the current run's start, or {@code null} */
    public Instant startedBefore() {
        return startedBefore;
    }

    /** @return the parent workflow, or {@code null} */
    public WorkflowId parent() {
        return parent;
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

    @Override
    public boolean equals(Object o) {
        return o instanceof WorkflowFilter f
                && Objects.equals(workflowType, f.workflowType)
                && status == f.status
                && Objects.equals(startedAfter, f.startedAfter)
                && Objects.equals(startedBefore, f.startedBefore)
                && Objects.equals(parent, f.parent);
    }

    @Override
    public int hashCode() {
        return Objects.hash(workflowType, status, startedAfter, startedBefore, parent);
    }

    @Override
    public String toString() {
        return "WorkflowFilter[workflowType=" + workflowType + ", status=" + status + ", startedAfter=" + startedAfter
                + ", startedBefore=" + startedBefore + ", parent=" + parent + "]";
    }
}
