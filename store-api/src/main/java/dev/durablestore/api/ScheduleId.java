package dev.durablestore.api;

import java.util.UUID;

/**
 * Identifies one schedule (M2). Same representation and text as {@link WorkflowId}, but a distinct
 * type that never equals a workflow or run id.
 *
 * @param value the UUID, never null
 */
public record ScheduleId(UUID value) implements Comparable<ScheduleId> {
    /**
     * Validates the components (see the record's description).
     *
     * @param value the UUID, never null
     */
    public ScheduleId {
        InvalidArgumentException.requireNonNull(value, "value");
    }

    /**
     * Parses the canonical text.
     *
     * @param text 36 hexadecimal digits grouped 8-4-4-4-12 by hyphens
     * @return the identifier
     * @throws InvalidArgumentException when {@code text} is null or not canonical
     */
    public static ScheduleId parse(String text) {
        return new ScheduleId(Uuids.parse(text, "scheduleId"));
    }

    /** @return a new random (version 4) identifier */
    public static ScheduleId random() {
        return new ScheduleId(UUID.randomUUID());
    }

    /** @return the nil identifier {@code 00000000-0000-0000-0000-000000000000} */
    public static ScheduleId nil() {
        return new ScheduleId(new UUID(0L, 0L));
    }

    /** @return the canonical lower-case text */
    @Override
    public String toString() {
        return value.toString();
    }

    /** Orders by canonical text (unsigned 128-bit order, M3). */
    @Override
    public int compareTo(ScheduleId other) {
        return Uuids.compare(value, other.value);
    }
}
