package dev.durablestore.r2dbc.internal;

import dev.durablestore.api.BackendException;
import dev.durablestore.api.StoreException;
import dev.durablestore.api.TransientBackendException;
import io.r2dbc.spi.R2dbcException;
import io.r2dbc.spi.R2dbcNonTransientResourceException;
import io.r2dbc.spi.R2dbcTransientException;
import java.io.IOException;
import java.util.Set;
import java.util.concurrent.TimeoutException;

/**
 * Maps driver failures onto the store's error types in one place (X1, X7). A failure that may pass
 * is a {@link TransientBackendException}: a serialization failure or deadlock (SQLSTATE 40001,
 * 40P01), a lost or refused connection (class 08, an I/O failure, or a connection that closed or
 * failed the pool's validation: a resource failure without SQLSTATE), the server shutting down or starting (57P01, 57P02, 57P03), too many connections (53300),
 * a write refused by a read-only server (25006: a hot standby before its promotion, X13), or anything the
 * driver itself calls transient. Every other failure is a {@link BackendException}.
 */
final class Failures {

    /** SQLSTATE of a unique-key violation, the same on PostgreSQL and H2. */
    private static final String UNIQUE_VIOLATION = "23505";
    /**
     * SQLSTATE of a write refused because the server is read-only: a hot standby (PostgreSQL refuses
     * {@code INSERT}, {@code UPDATE}, {@code LISTEN}, {@code NOTIFY} during recovery with it), or a
     * session whose {@code default_transaction_read_only} is on.
     */
    private static final String READ_ONLY = "25006";

    /** What a {@link #READ_ONLY} failure says before the driver's message (X13). */
    static final String READ_ONLY_MESSAGE = "the server is read-only (a standby, not the primary; writes succeed"
            + " again once the store's connections reach a primary: a promoted standby, or the primary named by a"
            + " failover URL with targetServerType=primary)";

    /** SQLSTATEs of failures that pass: retrying the operation later may succeed. */
    private static final Set<String> TRANSIENT_STATES =
            Set.of("40001", "40P01", "57P01", "57P02", "57P03", "53300", READ_ONLY);

    /** SQLSTATEs of a statement aborted so that another can go on: nothing changed, it may be sent again. */
    private static final Set<String> ABORTED = Set.of("40P01", "40001");

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
        if (isReadOnly(failure)) {
            message = READ_ONLY_MESSAGE + ": " + message;
        }
        return isTransient(failure)
                ? new TransientBackendException(operation + " failed: " + message, failure)
                : new BackendException(operation + " failed: " + message, failure);
    }

    /**
     * @param failure a failure
     * @return true when it, or one of its causes, is a failure that may pass (see the class comment)
     */
    static boolean isTransient(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof TransientBackendException
                    || t instanceof R2dbcTransientException
                    || t instanceof IOException
                    || t instanceof TimeoutException) {
                return true;
            }
            if (t instanceof R2dbcException e
                    && e.getSqlState() != null
                    && (e.getSqlState().startsWith("08") || TRANSIENT_STATES.contains(e.getSqlState()))) {
                return true;
            }
            // a connection that closed or failed the pool's validation: a resource failure with no
            // SQLSTATE (the server said nothing), "non-transient" for that connection, yet the next
            // operation gets another one
            if (t instanceof R2dbcNonTransientResourceException e && e.getSqlState() == null) {
                return true;
            }
        }
        return false;
    }

    /**
     * @param failure a failure
     * @return true when it, or one of its causes, is a write refused by a read-only server (25006)
     */
    static boolean isReadOnly(Throwable failure) {
        return hasSqlState(failure, Set.of(READ_ONLY));
    }

    /**
     * @param failure a failure
     * @return true when it, or one of its causes, is a unique-key violation (another writer took the key)
     */
    static boolean isUniqueViolation(Throwable failure) {
        return hasSqlState(failure, Set.of(UNIQUE_VIOLATION));
    }

    /**
     * @param failure a failure
     * @return true when it, or one of its causes, is a deadlock or serialization abort: the
     *     statement changed nothing and may be sent again
     */
    static boolean isDeadlock(Throwable failure) {
        return hasSqlState(failure, ABORTED);
    }

    /** @return true when the failure, or one of its causes, is a driver error with one of the states */
    private static boolean hasSqlState(Throwable failure, Set<String> states) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof R2dbcException e && e.getSqlState() != null && states.contains(e.getSqlState())) {
                return true;
            }
        }
        return false;
    }
}
