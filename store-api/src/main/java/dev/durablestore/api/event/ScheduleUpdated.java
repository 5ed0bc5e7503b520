package dev.durablestore.api.event;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.ScheduleId;

/**
 * A schedule was reconfigured.
 *
 * @param envelope the sequence, time and workflow of this event
 * @param scheduleId the schedule
 * @param config its new configuration
 */
public record ScheduleUpdated(EventEnvelope envelope, ScheduleId scheduleId, ScheduleConfig config) implements Event {
    /**
     * Validates the components (see the record's description).
     *
     * @param envelope the sequence, time and workflow of this event
     * @param scheduleId the schedule
     * @param config its new configuration
     */
    public ScheduleUpdated {
        InvalidArgumentException.requireNonNull(envelope, "envelope");
        InvalidArgumentException.requireNonNull(scheduleId, "scheduleId");
        InvalidArgumentException.requireNonNull(config, "config");
    }

    @Override
    public EventKind kind() {
        return EventKind.SCHEDULE_UPDATED;
    }
}
