package dev.durablestore.api.event;

import dev.durablestore.api.ActivityId;
import dev.durablestore.api.InvalidArgumentException;

/**
 * An activity attempt started.
 *
 * @param envelope the sequence, time and workflow of this event
 * @param activityId the activity
 * @param attempt the 1-based attempt; 0 means legacy/unknown
 */
public record ActivityStarted(EventEnvelope envelope, ActivityId activityId, int attempt) implements Event {
    /**
     * Validates the components (see the record's description).
     *
     * @param envelope the sequence, time and workflow of this event
     * @param activityId the activity
     * @param attempt the 1-based attempt; 0 means legacy/unknown
     */
    public ActivityStarted {
        InvalidArgumentException.requireNonNull(envelope, "envelope");
        InvalidArgumentException.requireNonNull(activityId, "activityId");
        InvalidArgumentException.requireNonNegative(attempt, "attempt");
    }

    @Override
    public EventKind kind() {
        return EventKind.ACTIVITY_STARTED;
    }
}
