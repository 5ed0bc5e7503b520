package dev.durablestore.api.event;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.Payload;

/**
 * The run completed (terminal).
 *
 * @param envelope the sequence, time and workflow of this event
 * @param result the run's result
 */
public record WorkflowCompleted(EventEnvelope envelope, Payload result) implements Event {
    /**
     * Validates the components (see the record's description).
     *
     * @param envelope the sequence, time and workflow of this event
     * @param result the run's result
     */
    public WorkflowCompleted {
        InvalidArgumentException.requireNonNull(envelope, "envelope");
        InvalidArgumentException.requireNonNull(result, "result");
    }

    @Override
    public EventKind kind() {
        return EventKind.WORKFLOW_COMPLETED;
    }
}
