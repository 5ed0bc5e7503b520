package dev.durablestore.api;

import java.time.Instant;

/**
 * One run of a workflow's run chain (M22, R41–R45).
 *
 * @param runId the run, from its {@code WorkflowStarted}
 * @param parentRunId the run it continues, or {@code null} for the root
 * @param status the status over the run's slice of history (R10)
 * @param startedAt the record time of the run's {@code WorkflowStarted}
 * @param closedAt the record time of the slice's current-lease terminal (R18), or {@code null}
 */
public record RunSummary(RunId runId, RunId parentRunId, WorkflowStatus status, Instant startedAt, Instant closedAt) {
    /**
     * Validates the components (see the record's description).
     *
     * @param runId see the record component
     * @param parentRunId see the record component
     * @param status the status over the run's slice of history (R10)
     * @param startedAt see the record component
     * @param closedAt see the record component
     */
    public RunSummary {
        InvalidArgumentException.requireNonNull(runId, "runId");
        InvalidArgumentException.requireNonNull(status, "status");
        InvalidArgumentException.requireNonNull(startedAt, "startedAt");
    }
}
