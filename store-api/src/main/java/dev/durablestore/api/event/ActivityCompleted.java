package dev.durablestore.api.event;

import dev.durablestore.api.ActivityId;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.Payload;

/**
 * An activity completed.
 *
 * @param envelope the sequence, time and workflow of this event
 * @param activityId the activity
 * @param result its result
 * @param attempt the 1-based attempt; 0 means legacy/unknown
 */
public record ActivityCompleted(EventEnvelope envelope, ActivityId activityId, Payload result, int attempt)
        implements Event {
    /**
     * Validates the components (see the record's description).
     *
     * @param envelope the sequence, time and workflow of this event
     * @param activityId the activity
     * @param result its result
     * @param attempt the 1-based attempt; 0 means legacy/unknown
     */
    public ActivityCompleted {
        InvalidArgumentException.requireNonNull(envelope, "envelope");
        InvalidArgumentException.requireNonNull(activityId, "activityId");
        InvalidArgumentException.requireNonNull(result, "result");
        InvalidArgumentException.requireNonNegative(attempt, "attempt");
    }

    @Override
    public EventKind kind() {
        return EventKind.ACTIVITY_COMPLETED;
    }
}
