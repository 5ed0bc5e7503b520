package dev.durablestore.api.event;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.Payload;
import dev.durablestore.api.TimerId;

/**
 * An operation guarded by a timeout finished.
 *
 * @param envelope the sequence, time and workflow of this event
 * @param timerId the guarding timer
 * @param outcome whether the operation completed or timed out
 * @param result the operation's result, or {@code null}
 */
public record WithTimeoutCompleted(EventEnvelope envelope, TimerId timerId, WithTimeoutOutcome outcome, Payload result)
        implements Event {
    /**
     * Validates the components (see the record's description).
     *
     * @param envelope the sequence, time and workflow of this event
     * @param timerId the guarding timer
     * @param outcome whether the operation completed or timed out
     * @param result see the record component
     */
    public WithTimeoutCompleted {
        InvalidArgumentException.requireNonNull(envelope, "envelope");
        InvalidArgumentException.requireNonNull(timerId, "timerId");
        InvalidArgumentException.requireNonNull(outcome, "outcome");
    }

    @Override
    public EventKind kind() {
        return EventKind.WITH_TIMEOUT_COMPLETED;
    }
}
