package dev.durablestore.api;

/**
 * Root of every error a store reports (contract group X).
 *
 * <p>Store operations never throw: errors reach the subscriber as {@code onError} signals carrying
 * one of the subtypes ({@link SequenceConflictException}, {@link SerializationException},
 * {@link BackendException} and its {@link TransientBackendException} and
 * {@link SchemaVersionException}, {@link InvalidArgumentException}, {@link StoreClosedException},
 * {@link StaleClaimException}).
 */
public abstract class StoreException extends RuntimeException {

    /**
     * @param message what went wrong, naming the argument, workflow, sequence or dispatch key involved
     * @param cause the underlying failure, or {@code null}
     */
    protected StoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
