package dev.durablestore.api;

/**
 * Everything that goes wrong below the contract (X7): storage, driver and lock failures that are
 * not normalised into a {@link SequenceConflictException}, a non-contiguous batch (E6), a malformed
 * run chain (R44), a value out of the stored range.
 */
public class BackendException extends StoreException {

    /**
     * @param message what failed
     * @param cause the driver failure, or {@code null}
     */
    public BackendException(String message, Throwable cause) {
        super(message, cause);
    }

    /** @param message what failed */
    public BackendException(String message) {
        super(message, null);
    }
}
