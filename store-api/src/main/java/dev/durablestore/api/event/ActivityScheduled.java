package dev.durablestore.api.event;

import dev.durablestore.api.ActivityId;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.Payload;

/**
 * An activity was scheduled.
 *
 * @param envelope the sequence, time and workflow of this event
 * @param activityId the activity
 * @param activityType the activity type
 * @param input the activity's input
 * @param taskQueue the task queue ({@code "default"} when decoded from old history)
 * @param node the node the activity is pinned to, or {@code null}
 */
public record ActivityScheduled(
        EventEnvelope envelope,
        ActivityId activityId,
        String activityType,
        Payload input,
        String taskQueue,
        String node)
        implements Event {
    /**
     * Validates the components (see the record's description).
     *
     * @param envelope the sequence, time and workflow of this event
     * @param activityId the activity
     * @param activityType the activity type
     * @param input the activity's input
     * @param taskQueue see the record component
     * @param node see the record component
     */
    public ActivityScheduled {
        InvalidArgumentException.requireNonNull(envelope, "envelope");
        InvalidArgumentException.requireNonNull(activityId, "activityId");
        InvalidArgumentException.requireNonNull(activityType, "activityType");
        InvalidArgumentException.requireNonNull(input, "input");
        InvalidArgumentException.requireNonNull(taskQueue, "taskQueue");
    }

    @Override
    public EventKind kind() {
        return EventKind.ACTIVITY_SCHEDULED;
    }
}
