package dev.durablestore.api.event;

import dev.durablestore.api.WorkflowId;
import java.time.Instant;

/**
 * One entry of a workflow's history: a closed set of 31 kinds (M10), each an immutable record that
 * carries its {@link EventEnvelope} first.
 *
 * <p>Only the nine workflow lifecycle kinds influence status, run chains and start or end times
 * (M11); see {@link EventKind} for the classification.
 */
public sealed interface Event
        permits WorkflowStarted,
                WorkflowCompleted,
                WorkflowFailed,
                WorkflowCancelled,
                WorkflowTimedOut,
                WorkflowContinuedAsNew,
                WorkflowReopened,
                WorkflowPaused,
                WorkflowResumed,
                SearchAttributesUpdated,
                ActivityScheduled,
                ActivityStarted,
                ActivityCompleted,
                ActivityFailed,
                ActivityCancelled,
                TimerStarted,
                TimerFired,
                TimerCancelled,
                WithTimeoutCompleted,
                SignalReceived,
                SignalSent,
                ChildWorkflowStarted,
                ChildWorkflowCompleted,
                ChildWorkflowFailed,
                ChildWorkflowCancelled,
                ScheduleCreated,
                ScheduleUpdated,
                SchedulePaused,
                ScheduleResumed,
                ScheduleDeleted,
                ScheduleTriggered {

    /** @return the envelope: sequence, record time and workflow */
    EventEnvelope envelope();

    /** @return the kind of this event */
    EventKind kind();

    /** @return {@code envelope().seq()} */
    default long seq() {
        return envelope().seq();
    }

    /** @return {@code envelope().recordedAt()} */
    default Instant recordedAt() {
        return envelope().recordedAt();
    }

    /** @return {@code envelope().workflowId()} */
    default WorkflowId workflowId() {
        return envelope().workflowId();
    }
}
