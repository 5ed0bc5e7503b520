package dev.durablestore.api.event;

import dev.durablestore.api.ActivityId;
import dev.durablestore.api.InvalidArgumentException;

/**
 * An activity attempt failed.
 *
 * @param envelope the sequence, time and workflow of this event
 * @param activityId the activity
 * @param error why it failed
 * @param attempt the 1-based attempt (required in stored form)
 */
public record ActivityFailed(EventEnvelope envelope, ActivityId activityId, ActivityError error, int attempt)
        implements Event {
    /**
     * Validates the components (see the record's description).
     *
     * @param envelope the sequence, time and workflow of this event
     * @param activityId the activity
     * @param error why it failed
     * @param attempt the 1-based attempt (required in stored form)
     */
    public ActivityFailed {
        InvalidArgumentException.requireNonNull(envelope, "envelope");
        InvalidArgumentException.requireNonNull(activityId, "activityId");
        InvalidArgumentException.requireNonNull(error, "error");
        InvalidArgumentException.requireNonNegative(attempt, "attempt");
    }

    @Override
    public EventKind kind() {
        return EventKind.ACTIVITY_FAILED;
    }
}
