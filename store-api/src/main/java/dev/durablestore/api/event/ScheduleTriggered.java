package dev.durablestore.api.event;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.RunId;
import dev.durablestore.api.ScheduleId;
import dev.durablestore.api.WorkflowId;

/**
 * A schedule started a workflow execution.
 *
 * @param envelope the sequence, time and workflow of this event
 * @param scheduleId the schedule
 * @param startedWorkflowId the started execution
 * @param runId the started run
 */
public record ScheduleTriggered(
        EventEnvelope envelope, ScheduleId scheduleId, WorkflowId startedWorkflowId, RunId runId) implements Event {
    /**
     * Validates the components (see the record's description).
     *
     * @param envelope the sequence, time and workflow of this event
     * @param scheduleId the schedule
     * @param startedWorkflowId the started execution
     * @param runId the started run
     */
    public ScheduleTriggered {
        InvalidArgumentException.requireNonNull(envelope, "envelope");
        InvalidArgumentException.requireNonNull(scheduleId, "scheduleId");
        InvalidArgumentException.requireNonNull(startedWorkflowId, "startedWorkflowId");
        InvalidArgumentException.requireNonNull(runId, "runId");
    }

    @Override
    public EventKind kind() {
        return EventKind.SCHEDULE_TRIGGERED;
    }
}
