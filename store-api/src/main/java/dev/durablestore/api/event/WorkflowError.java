package dev.durablestore.api.event;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.Payload;

/**
 * Why a workflow (or child workflow) failed (M18).
 *
 * @param message the human-readable reason
 * @param details structured details, or {@code null}
 */
public record WorkflowError(String message, Payload details) {
    /**
     * Validates the components (see the record's description).
     *
     * @param message the human-readable reason
     * @param details see the record component
     */
    public WorkflowError {
        InvalidArgumentException.requireNonNull(message, "message");
    }
}
