package dev.durablestore.api;

/**
 * A {@link BackendException} whose cause may pass: the database was busy or locked by another
 * process, aborted the transaction to resolve a conflict with another one (a serialization failure
 * or a deadlock), lost or refused the connection, was shutting down, or did not answer within the
 * operation timeout. Trying the same operation again later may succeed; any other
 * {@code BackendException} (a full disk, a read-only file, corruption, a constraint the store did
 * not expect) will not pass by itself, so retrying it only repeats the failure.
 *
 * <p>Every operation of the store is safe to retry after this error, with one caveat: when the
 * failure came after the statement reached the database (a lost connection, a timeout), the write
 * may have committed, whole (X12). The store's writes are built for that: an append or a step
 * retried with the same expected sequence fails with {@link SequenceConflictException} when the
 * first attempt committed (read the history to tell yours from another writer's), staging is
 * insert-or-ignore by dispatch key, a fenced settle fails with {@link StaleClaimException} once
 * the row is settled, and heartbeats, re-arms and the settles by key that complete, fail or
 * cancel leave the state one call leaves. A retry settled by key ({@link OperatorStore#settleKeys})
 * is not idempotent: read the row's state first. A claim that may have committed leaves its rows claimed until their lease
 * runs out and the lease reaper re-arms them. Each write's description says what its retry
 * answers.
 */
public final class TransientBackendException extends BackendException {

    /**
     * @param message what failed
     * @param cause the driver failure, or {@code null}
     */
    public TransientBackendException(String message, Throwable cause) {
        super(message, cause);
    }

    /** @param message what failed */
    public TransientBackendException(String message) {
        super(message, null);
    }
}
