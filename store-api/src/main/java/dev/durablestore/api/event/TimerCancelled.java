package dev.durablestore.api.event;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.TimerId;

/**
 * A timer was cancelled.
 *
 * @param envelope the sequence, time and workflow of this event
 * @param timerId the timer
 * @param cause why ({@code WORKFLOW_INTENT} when decoded from old history)
 */
public record TimerCancelled(EventEnvelope envelope, TimerId timerId, TimerCancelCause cause) implements Event {
    /**
     * Validates the components (see the record's description).
     *
     * @param envelope the sequence, time and workflow of this event
     * @param timerId the timer
     * @param cause see the record component
     */
    public TimerCancelled {
        InvalidArgumentException.requireNonNull(envelope, "envelope");
        InvalidArgumentException.requireNonNull(timerId, "timerId");
        InvalidArgumentException.requireNonNull(cause, "cause");
    }

    @Override
    public EventKind kind() {
        return EventKind.TIMER_CANCELLED;
    }
}
