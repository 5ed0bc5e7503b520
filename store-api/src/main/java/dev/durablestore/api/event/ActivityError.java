package dev.durablestore.api.event;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.Payload;

/**
 * Why an activity attempt failed (M18).
 *
 * @param kind whether the engine may retry
 * @param message the human-readable reason
 * @param details structured details, or {@code null}
 */
public record ActivityError(Kind kind, String message, Payload details) {

    /** Whether a failure may be retried. */
    public enum Kind {
        /** Another attempt may succeed. */
        RETRYABLE,
        /** No attempt will succeed. */
        TERMINAL
    }
    /**
     * Validates the components (see the record's description).
     *
     * @param kind whether the engine may retry
     * @param message the human-readable reason
     * @param details see the record component
     */
    public ActivityError {
        InvalidArgumentException.requireNonNull(kind, "kind");
        InvalidArgumentException.requireNonNull(message, "message");
    }
}
