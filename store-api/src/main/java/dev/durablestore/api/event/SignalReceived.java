package dev.durablestore.api.event;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.Payload;

/**
 * A signal was delivered to this workflow.
 *
 * @param envelope the sequence, time and workflow of this event
 * @param name the signal name
 * @param payload its payload
 */
public record SignalReceived(EventEnvelope envelope, String name, Payload payload) implements Event {
    /**
     * Validates the components (see the record's description).
     *
     * @param envelope the sequence, time and workflow of this event
     * @param name the signal name
     * @param payload its payload
     */
    public SignalReceived {
        InvalidArgumentException.requireNonNull(envelope, "envelope");
        InvalidArgumentException.requireNonNull(name, "name");
        InvalidArgumentException.requireNonNull(payload, "payload");
    }

    @Override
    public EventKind kind() {
        return EventKind.SIGNAL_RECEIVED;
    }
}
