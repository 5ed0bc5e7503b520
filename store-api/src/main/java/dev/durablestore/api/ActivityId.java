package dev.durablestore.api;

/**
 * Identifies an activity by the sequence position at which it was scheduled (M4). Canonical text:
 * {@code activity:<n>}.
 *
 * @param position the unsigned position; Java stores it in a non-negative {@code long}
 */
public record ActivityId(long position) {
    /**
     * Validates the components (see the record's description).
     *
     * @param position see the record component
     */
    public ActivityId {
        InvalidArgumentException.requireNonNegative(position, "position");
    }

    /** @return {@code activity:<position>} */
    @Override
    public String toString() {
        return "activity:" + position;
    }
}
