package dev.durablestore.api.event;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.TimerId;

/**
 * A timer fired.
 *
 * @param envelope the sequence, time and workflow of this event
 * @param timerId the timer
 */
public record TimerFired(
        EventEnvelope envelope,
        TimerId timerId) implements Event {
    public TimerFired {
        InvalidArgumentException.requireNonNull(envelope, "envelope");
        InvalidArgumentException.requireNonNull(timerId, "timerId");
    }

    @Override
    public EventKind kind() {
        return EventKind.TIMER_FIRED;
    }
}
