package dev.durablestore.api.event;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.ScheduleId;

/**
 * A schedule was paused.
 *
 * @param envelope the sequence, time and workflow of this event
 * @param scheduleId the schedule
 */
public record SchedulePaused(EventEnvelope envelope, ScheduleId scheduleId) implements Event {
    /**
     * Validates the components (see the record's description).
     *
     * @param envelope the sequence, time and workflow of this event
     * @param scheduleId the schedule
     */
    public SchedulePaused {
        InvalidArgumentException.requireNonNull(envelope, "envelope");
        InvalidArgumentException.requireNonNull(scheduleId, "scheduleId");
    }

    @Override
    public EventKind kind() {
        return EventKind.SCHEDULE_PAUSED;
    }
}
