package dev.durablestore.sqlite.internal;

import dev.durablestore.api.BackendException;
import dev.durablestore.api.StoreException;
import dev.durablestore.api.TransientBackendException;
import java.sql.SQLException;

/**
 * Maps driver failures onto the store's error types in one place (X1, X7): a file busy or locked by
 * another process after the busy timeout ({@code SQLITE_BUSY}, {@code SQLITE_LOCKED}, with any
 * extended code) is a {@link TransientBackendException}; every other driver failure a
 * {@link BackendException}.
 */
final class Failures {

    /** SQLite's primary result codes that pass once the other connection lets go. */
    private static final int SQLITE_BUSY = 5;

    private static final int SQLITE_LOCKED = 6;

    private Failures() {}

    /**
     * @param operation what was being done
     * @param failure the failure
     * @return the failure itself when it is already a {@link StoreException}, else a
     *     {@link BackendException} naming the operation and carrying the driver's message
     */
    static StoreException backend(String operation, Throwable failure) {
        if (failure instanceof StoreException se) {
            return se;
        }
        String message = operation + " failed: "
                + (failure instanceof SQLException sql ? sql.getMessage() : String.valueOf(failure));
        return isTransient(failure)
                ? new TransientBackendException(message, failure)
                : new BackendException(message, failure);
    }

    /**
     * @param failure a failure
     * @return true when it, or one of its causes, is SQLite's busy or locked result (the extended
     *     codes keep the primary code in their low byte)
     */
    static boolean isTransient(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql) {
                int primary = sql.getErrorCode() & 0xFF;
                if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED) {
                    return true;
                }
            }
        }
        return false;
    }
}
