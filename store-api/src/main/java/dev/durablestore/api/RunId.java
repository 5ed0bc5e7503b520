package dev.durablestore.api;

import java.util.UUID;

/**
 * Identifies one run of a workflow (M2). Same representation and text as {@link WorkflowId}, but a
 * distinct type that never equals a workflow or schedule id.
 *
 * @param value the UUID, never null
 */
public record RunId(UUID value) implements Comparable<RunId> {
    /**
     * Validates the components (see the record's description).
     *
     * @param value the UUID, never null
     */
    public RunId {
        InvalidArgumentException.requireNonNull(value, "value");
    }

    /**
     * Parses the canonical text.
     *
     * @param text 36 hexadecimal digits grouped 8-4-4-4-12 by hyphens
     * @return the identifier
     * @throws InvalidArgumentException when {@code text} is null or not canonical
     */
    public static RunId parse(String text) {
        return new RunId(Uuids.parse(text, "runId"));
    }

    /** @return a new random (version 4) identifier */
    public static RunId random() {
        return new RunId(UUID.randomUUID());
    }

    /** @return the nil identifier {@code 00000000-0000-0000-0000-000000000000} */
    public static RunId nil() {
        return new RunId(new UUID(0L, 0L));
    }

    /** @return the canonical lower-case text */
    @Override
    public String toString() {
        return value.toString();
    }

    /** Orders by canonical text (unsigned 128-bit order, M3). */
    @Override
    public int compareTo(RunId other) {
        return Uuids.compare(value, other.value);
    }
}
