package dev.durablestore.core.storage;

/**
 * A timer row as stored, before decoding (the store decodes it, so a row that does not decode
 * fails alike on every backend).
 *
 * @param workflowId the stored workflow id text
 * @param timerId the stored canonical timer-id text
 * @param fireAtNanos the fire time in epoch nanoseconds
 */
public record StoredTimer(String workflowId, String timerId, long fireAtNanos) {}
