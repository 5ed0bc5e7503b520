package dev.durablestore.api.event;

import dev.durablestore.api.InvalidArgumentException;

/**
 * The run timed out (terminal).
 *
 * @param envelope the sequence, time and workflow of this event
 * @param timeout free-form descriptor of the timeout that fired
 */
public record WorkflowTimedOut(EventEnvelope envelope, String timeout) implements Event {
    /**
     * Validates the components (see the record's description).
     *
     * @param envelope the sequence, time and workflow of this event
     * @param timeout free-form descriptor of the timeout that fired
     */
    public WorkflowTimedOut {
        InvalidArgumentException.requireNonNull(envelope, "envelope");
        InvalidArgumentException.requireNonNull(timeout, "timeout");
    }

    @Override
    public EventKind kind() {
        return EventKind.WORKFLOW_TIMED_OUT;
    }
}
