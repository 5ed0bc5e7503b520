package dev.durablestore.api.event;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.TimerId;

/**
 * A timer fired.
 *
 * @param envelope the sequence, time and workflow of this event
 * @param timerId the timer
 */
public record TimerFired(EventEnvelope envelope, TimerId timerId) implements Event {
    /**
     * Validates the components (see the record's description).
     *
     * @param envelope the sequence, time and workflow of this event
     * @param timerId the timer
     */
    public TimerFired {
        InvalidArgumentException.requireNonNull(envelope, "envelope");
        InvalidArgumentException.requireNonNull(timerId, "timerId");
    }

    @Override
    public EventKind kind() {
        return EventKind.TIMER_FIRED;
    }
}
