package dev.durablestore.api.event;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.TimerId;
import java.time.Instant;

/**
 * A timer was started.
 *
 * @param envelope the sequence, time and workflow of this event
 * @param timerId the timer
 * @param fireAt when it fires
 */
public record TimerStarted(EventEnvelope envelope, TimerId timerId, Instant fireAt) implements Event {
    /**
     * Validates the components (see the record's description).
     *
     * @param envelope the sequence, time and workflow of this event
     * @param timerId the timer
     * @param fireAt when it fires
     */
    public TimerStarted {
        InvalidArgumentException.requireNonNull(envelope, "envelope");
        InvalidArgumentException.requireNonNull(timerId, "timerId");
        InvalidArgumentException.requireNonNull(fireAt, "fireAt");
    }

    @Override
    public EventKind kind() {
        return EventKind.TIMER_STARTED;
    }
}
