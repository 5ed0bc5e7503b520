package dev.durablestore.api;

import java.util.function.IntSupplier;

/**
 * Hooks a backend calls so operations can be measured. Every method has a no-op default and must
 * not block; {@link #NONE} records nothing. {@code dev.durablestore.micrometer.MicrometerStoreMetrics} (module
 * {@code durable-store-micrometer}) records into a
 * Micrometer registry when Micrometer is on the class path.
 */
public interface StoreMetrics {

    /** Records nothing. */
    StoreMetrics NONE = new StoreMetrics() {};

    /**
     * One operation finished (for writes: its commit returned or it failed).
     *
     * @param operation the operation name, e.g. {@code append}, {@code claim}, {@code complete}
     * @param nanos time from subscription to the signal
     * @param success false when it ended with an error
     */
    default void operation(String operation, long nanos, boolean success) {}

    /**
     * Rows handed out by one claim.
     *
     * @param rows number of rows claimed
     */
    default void rowsClaimed(int rows) {}

    /**
     * One group-commit transaction committed.
     *
     * @param commands commands it held
     * @param nanos time from {@code BEGIN} to the end of {@code COMMIT}
     */
    default void batchCommitted(int commands, long nanos) {}

    /**
     * Called once when the store opens.
     *
     * @param depth reports the number of write commands waiting for the writer
     */
    default void registerQueueDepth(IntSupplier depth) {}

    /**
     * One step of a retention pass deleted rows ({@link OperatorStore#sweepRetention}); called by
     * {@link RetentionSweeper} for each step that deleted or pruned anything.
     *
     * @param step what the step deleted
     */
    default void retentionSwept(RetentionSweep step) {}

    /**
     * The retention backlog as a {@link RetentionSweeper} found it after its last pass.
     *
     * @param backlog the closed workflows overdue for deletion and the oldest close among them
     */
    default void retentionBacklog(RetentionBacklog backlog) {}
}
