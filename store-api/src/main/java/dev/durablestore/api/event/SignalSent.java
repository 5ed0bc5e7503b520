package dev.durablestore.api.event;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.Payload;
import dev.durablestore.api.WorkflowId;

/**
 * This workflow sent a signal.
 *
 * @param envelope the sequence, time and workflow of this event
 * @param targetWorkflowId the receiving workflow
 * @param name the signal name
 * @param payload its payload
 */
public record SignalSent(EventEnvelope envelope, WorkflowId targetWorkflowId, String name, Payload payload)
        implements Event {
    /**
     * Validates the components (see the record's description).
     *
     * @param envelope the sequence, time and workflow of this event
     * @param targetWorkflowId the receiving workflow
     * @param name the signal name
     * @param payload its payload
     */
    public SignalSent {
        InvalidArgumentException.requireNonNull(envelope, "envelope");
        InvalidArgumentException.requireNonNull(targetWorkflowId, "targetWorkflowId");
        InvalidArgumentException.requireNonNull(name, "name");
        InvalidArgumentException.requireNonNull(payload, "payload");
    }

    @Override
    public EventKind kind() {
        return EventKind.SIGNAL_SENT;
    }
}
