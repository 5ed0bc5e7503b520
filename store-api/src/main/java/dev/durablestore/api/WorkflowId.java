package dev.durablestore.api;

import java.util.UUID;

/**
 * Identifies one workflow (M1): a 128-bit UUID whose canonical text is the 36-character
 * lower-case 8-4-4-4-12 form. Ordered by that text, which equals unsigned numeric order (M3) and is
 * <em>not</em> the order of {@link UUID#compareTo}.
 *
 * @param value the UUID, never null
 */
public record WorkflowId(UUID value) implements Comparable<WorkflowId> {
    /**
     * Validates the components (see the record's description).
     *
     * @param value the UUID, never null
     */
    public WorkflowId {
        InvalidArgumentException.requireNonNull(value, "value");
    }

    /**
     * Parses the canonical text.
     *
     * @param text 36 hexadecimal digits grouped 8-4-4-4-12 by hyphens
     * @return the identifier
     * @throws InvalidArgumentException when {@code text} is null or not canonical
     */
    public static WorkflowId parse(String text) {
        return new WorkflowId(Uuids.parse(text, "workflowId"));
    }

    /** @return a new random (version 4) identifier */
    public static WorkflowId random() {
        return new WorkflowId(UUID.randomUUID());
    }

    /** @return the nil identifier {@code 00000000-0000-0000-0000-000000000000} */
    public static WorkflowId nil() {
        return new WorkflowId(new UUID(0L, 0L));
    }

    /** @return the canonical lower-case text */
    @Override
    public String toString() {
        return value.toString();
    }

    /** Orders by canonical text (unsigned 128-bit order, M3). */
    @Override
    public int compareTo(WorkflowId other) {
        return Uuids.compare(value, other.value);
    }
}
