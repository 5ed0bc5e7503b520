package dev.durablestore.sqlite.internal;

import dev.durablestore.api.BackendException;
import dev.durablestore.api.StoreException;
import java.sql.SQLException;

/**
 * One mutation, run by the {@link Writer} inside a group-commit transaction.
 *
 * <p>The rule every command follows: <b>validate before the first write</b>. A command that rejects
 * its input throws a {@link StoreException} before writing anything, and its batch commits without
 * it; no savepoint is needed. Any other exception means the command may have written part of its
 * work, so the writer rolls the whole transaction back, fails that command, and runs the rest of
 * the batch again in a new transaction.
 *
 * @param <T> the result delivered to the subscriber after commit ({@code null} for none)
 */
interface WriteCommand<T> {

    /**
     * Runs inside the open transaction.
     *
     * @param c the write connection
     * @return the result to deliver after commit
     * @throws SQLException on storage failure (the transaction is rolled back)
     * @throws StoreException to reject the command before it wrote anything
     */
    T execute(DbConnection c) throws SQLException;

    /**
     * Maps a failure of the transaction that held this command (beginning it, one of its
     * statements, or the commit) to the error its subscriber receives. Runs on the writer thread
     * after the rollback, so it may read the committed state (E15).
     *
     * @param c the write connection, outside any transaction
     * @param failure what failed
     * @return the error to signal
     */
    default Throwable onTransactionFailure(DbConnection c, Throwable failure) {
        return Failures.backend(name(), failure);
    }

    /** @return true when a successful commit may have made outbox rows claimable (wakes claim streams) */
    default boolean wakesClaimers() {
        return false;
    }

    /** @return the operation name, for errors, logs and metrics */
    String name();

    /**
     * Convenience for commands whose failure is a plain backend error.
     *
     * @param name operation name
     * @param failure cause
     * @return the mapped error
     */
    static Throwable backend(String name, Throwable failure) {
        return failure instanceof StoreException
                ? failure
                : new BackendException(name + " failed: " + failure, failure);
    }
}
