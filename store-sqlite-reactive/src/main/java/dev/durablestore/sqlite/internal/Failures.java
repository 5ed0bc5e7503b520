package dev.durablestore.sqlite.internal;

import dev.durablestore.api.BackendException;
import dev.durablestore.api.StoreException;
import java.sql.SQLException;

/** Maps driver failures onto the store's error types in one place (X1, X7). */
public final class Failures {

    private Failures() {}

    /**
     * @param operation what was being done
     * @param failure the failure
     * @return the failure itself when it is already a {@link StoreException}, else a
     *     {@link BackendException} naming the operation and carrying the driver's message
     */
    public static StoreException backend(String operation, Throwable failure) {
        if (failure instanceof StoreException se) {
            return se;
        }
        String message = failure instanceof SQLException sql ? sql.getMessage() : String.valueOf(failure);
        return new BackendException(operation + " failed: " + message, failure);
    }
}
