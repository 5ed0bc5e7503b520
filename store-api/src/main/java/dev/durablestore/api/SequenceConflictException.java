package dev.durablestore.api;

import java.util.Objects;

/**
 * An append's expected head did not match the committed head of the workflow (E3, E13, E15).
 *
 * <p>Two values are equal when both {@link #expected()} and {@link #found()} are equal (X3), so
 * tests may compare them directly.
 */
public final class SequenceConflictException extends StoreException {

    /** The head the caller expected. */
    private final long expected;
    /** The head actually stored. */
    private final long found;

    /**
     * @param expected the caller's {@code expectedSeq}
     * @param found the committed head the store observed
     */
    public SequenceConflictException(long expected, long found) {
        super("sequence conflict: expected head " + expected + " but found " + found, null);
        this.expected = expected;
        this.found = found;
    }

    /** @return the caller's expected head */
    public long expected() {
        return expected;
    }

    /** @return the committed head the store observed */
    public long found() {
        return found;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SequenceConflictException other && other.expected == expected && other.found == found;
    }

    @Override
    public int hashCode() {
        return Objects.hash(expected, found);
    }
}
