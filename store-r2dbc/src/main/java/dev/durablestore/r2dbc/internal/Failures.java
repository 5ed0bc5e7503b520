package dev.durablestore.r2dbc.internal;

import dev.durablestore.api.BackendException;
import dev.durablestore.api.StoreException;
import io.r2dbc.spi.R2dbcException;

/** Maps driver failures onto the store's error types in one place (X1, X7). */
final class Failures {

    /** SQLSTATE of a unique-key violation, the same on PostgreSQL and H2. */
    private static final String UNIQUE_VIOLATION = "23505";

    /** SQLSTATEs of a statement aborted so that another can go on: nothing changed, it may be sent again. */
    private static final java.util.Set<String> RETRYABLE = java.util.Set.of("40P01", "40001");

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
        String message = failure instanceof R2dbcException r2dbc && r2dbc.getSqlState() != null
                ? "[" + r2dbc.getSqlState() + "] " + r2dbc.getMessage()
                : String.valueOf(failure);
        return new BackendException(operation + " failed: " + message, failure);
    }

    /**
     * @param failure a failure
     * @return true when it, or one of its causes, is a unique-key violation (another writer took the key)
     */
    static boolean isUniqueViolation(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof R2dbcException e && UNIQUE_VIOLATION.equals(e.getSqlState())) {
                return true;
            }
        }
        return false;
    }

    /**
     * @param failure a failure
     * @return true when it, or one of its causes, is a deadlock or serialization abort: the
     *     statement changed nothing and may be sent again
     */
    static boolean isDeadlock(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof R2dbcException e && RETRYABLE.contains(e.getSqlState())) {
                return true;
            }
        }
        return false;
    }
}
