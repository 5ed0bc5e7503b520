package dev.durablestore.api.event;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.Payload;
import dev.durablestore.api.RunId;

/**
 * The run ended by continuing as a new run (terminal).
 *
 * @param envelope the sequence, time and workflow of this event
 * @param input the next run's input
 * @param workflowType type override for the next run, or {@code null}
 * @param parentRunId the run being continued (the run that records this event)
 */
public record WorkflowContinuedAsNew(EventEnvelope envelope, Payload input, String workflowType, RunId parentRunId)
        implements Event {
    /**
     * Validates the components (see the record's description).
     *
     * @param envelope the sequence, time and workflow of this event
     * @param input the next run's input
     * @param workflowType see the record component
     * @param parentRunId the run being continued (the run that records this event)
     */
    public WorkflowContinuedAsNew {
        InvalidArgumentException.requireNonNull(envelope, "envelope");
        InvalidArgumentException.requireNonNull(input, "input");
        InvalidArgumentException.requireNonNull(parentRunId, "parentRunId");
    }

    @Override
    public EventKind kind() {
        return EventKind.WORKFLOW_CONTINUED_AS_NEW;
    }
}
