package dev.durablestore.api.event;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.PackageVersion;
import dev.durablestore.api.Payload;
import dev.durablestore.api.RunId;

/**
 * A run started (reset point; projects Running).
 *
 * @param envelope the sequence, time and workflow of this event
 * @param workflowType the workflow type of this run
 * @param input the run's input
 * @param runId the run this event starts
 * @param parentRunId the run this one continues, or {@code null} for a root run
 * @param packageVersion the package version the run executes
 */
public record WorkflowStarted(
        EventEnvelope envelope,
        String workflowType,
        Payload input,
        RunId runId,
        RunId parentRunId,
        PackageVersion packageVersion)
        implements Event {
    /**
     * Validates the components (see the record's description).
     *
     * @param envelope the sequence, time and workflow of this event
     * @param workflowType the workflow type of this run
     * @param input the run's input
     * @param runId the run this event starts
     * @param parentRunId see the record component
     * @param packageVersion the package version the run executes
     */
    public WorkflowStarted {
        InvalidArgumentException.requireNonNull(envelope, "envelope");
        InvalidArgumentException.requireNonNull(workflowType, "workflowType");
        InvalidArgumentException.requireNonNull(input, "input");
        InvalidArgumentException.requireNonNull(runId, "runId");
        InvalidArgumentException.requireNonNull(packageVersion, "packageVersion");
    }

    @Override
    public EventKind kind() {
        return EventKind.WORKFLOW_STARTED;
    }
}
