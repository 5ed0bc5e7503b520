package dev.durablestore.api;

import java.time.Instant;

/**
 * The dispatch state of a stored row (O50).
 *
 * @param status its status
 * @param attempt its zero-based dispatch count
 * @param visibleAfter the earliest instant it may be claimed
 */
public record OutboxRowState(OutboxStatus status, int attempt, Instant visibleAfter) {
    /**
     * Validates the components (see the record's description).
     *
     * @param status its status
     * @param attempt its zero-based dispatch count
     * @param visibleAfter the earliest instant it may be claimed
     */
    public OutboxRowState {
        InvalidArgumentException.requireNonNull(status, "status");
        InvalidArgumentException.requireNonNegative(attempt, "attempt");
        InvalidArgumentException.requireNonNull(visibleAfter, "visibleAfter");
    }
}
