package dev.durablestore.api;

import java.time.Instant;
import java.util.Objects;

/**
 * One failed attempt of an outbox row, as the store recorded it (O66): which attempt, when, and
 * the reason the settle gave. A row keeps its last {@value OutboxRow#MAX_FAILURES}
 * ({@link OutboxRow#failures()}).
 *
 * <p><b>Attempts are numbered from 1</b>: attempt {@code n} is the row's {@code n}-th dispatch. A
 * row's {@link OutboxRow#attempt()} counts its earlier dispatches, from 0, so the attempt a claimed
 * row is on, and the one a retry or dead-letter of it ends, is {@code attempt() + 1} (O67).
 *
 * <p>Immutable; equal when every field is.
 */
public final class AttemptFailure {

    private final int attempt;
    private final Instant failedAt;
    private final FailureReason reason;

    private AttemptFailure(int attempt, Instant failedAt, FailureReason reason) {
        this.attempt = attempt;
        this.failedAt = failedAt;
        this.reason = reason;
    }

    /**
     * @param attempt the attempt that failed, from 1
     * @param failedAt when the store recorded it (its clock when the settle was written)
     * @param reason why
     * @return the failure
     * @throws InvalidArgumentException naming {@code attempt} when below 1, {@code failedAt} or
     *     {@code reason} when {@code null}
     */
    public static AttemptFailure of(int attempt, Instant failedAt, FailureReason reason) {
        if (attempt < 1) {
            throw new InvalidArgumentException(
                    "attempt", "must be at least 1 (attempts are numbered from 1), was " + attempt);
        }
        InvalidArgumentException.requireNonNull(failedAt, "failedAt");
        InvalidArgumentException.requireNonNull(reason, "reason");
        return new AttemptFailure(attempt, failedAt, reason);
    }

    /** @return the attempt that failed, from 1: the row's {@code attempt() + 1} when it was settled */
    public int attempt() {
        return attempt;
    }

    /** @return when the store recorded the failure: its clock when the retry or dead-letter was written */
    public Instant failedAt() {
        return failedAt;
    }

    /** @return why the attempt failed */
    public FailureReason reason() {
        return reason;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AttemptFailure f
                && attempt == f.attempt
                && failedAt.equals(f.failedAt)
                && reason.equals(f.reason);
    }

    @Override
    public int hashCode() {
        return Objects.hash(attempt, failedAt, reason);
    }

    @Override
    public String toString() {
        return "attempt " + attempt + " failed at " + failedAt + ": " + reason;
    }
}
