package dev.durablestore.examples.demo;

import dev.durablestore.api.ActivityId;

/**
 * One attempt's outcome, as the {@link Dispatcher} hands it to {@link WorkflowSteps}.
 *
 * @param activity the activity
 * @param attempt the 1-based attempt
 * @param succeeded true when the attempt succeeded
 * @param lastAttempt for a failure: true when no retry may follow (dead-letter)
 * @param message for a failure: why
 */
public record Outcome(ActivityId activity, int attempt, boolean succeeded, boolean lastAttempt, String message) {}
