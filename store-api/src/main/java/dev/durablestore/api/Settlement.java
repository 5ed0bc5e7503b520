package dev.durablestore.api;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * How a row is settled: completed, retried, dead-lettered or cancelled. One value for the three
 * places a row is settled: the fenced settle of a claimed row ({@link ReactiveStore#settle}), a
 * step's settle ({@link WorkflowStep.Builder#settle}) and the operator's settle by keys
 * ({@link OperatorStore#settleKeys}). Immutable; checked when a factory builds it.
 *
 * <pre>{@code
 * store.settle(row, Settlement.complete());
 * store.settle(row, Settlement.retryAfter(row.attempt() + 1, Duration.ofSeconds(30))
 *         .withReason(FailureReason.of(error)));
 * }</pre>
 *
 * <p>A retry or a dead-letter may say why the attempt failed ({@link #withReason}); the store keeps
 * the reason with the row, in the same transaction (O66).
 *
 * <p>Checks that need the store (an instant or a delay the store cannot keep, S15) are made when the
 * settle runs and name {@code settlement.visibleAfter}, {@code settlement.delay}, or in a step
 * {@code settles[i].visibleAfter}, {@code settles[i].delay}.
 */
public final class Settlement {

    /** The kinds of settle and the status each leaves the row in. */
    public enum Kind {
        /** {@code DONE} (O29). */
        COMPLETE,
        /** Back to {@code PENDING} with a new attempt and visibility (O30, O58). */
        RETRY,
        /** Dead-lettered: {@code FAILED} (O31). */
        FAIL,
        /** {@code CANCELLED} (O32). */
        CANCEL;

        /** @return the status a row settled this way has: {@code DONE}, {@code PENDING}, {@code FAILED} or {@code CANCELLED} */
        public OutboxStatus status() {
            return switch (this) {
                case COMPLETE -> OutboxStatus.DONE;
                case RETRY -> OutboxStatus.PENDING;
                case FAIL -> OutboxStatus.FAILED;
                case CANCEL -> OutboxStatus.CANCELLED;
            };
        }
    }

    private static final Settlement COMPLETE = new Settlement(Kind.COMPLETE, 0, null, null, null);
    private static final Settlement FAIL = new Settlement(Kind.FAIL, 0, null, null, null);
    private static final Settlement CANCEL = new Settlement(Kind.CANCEL, 0, null, null, null);

    private final Kind kind;
    private final int nextAttempt;
    private final Instant visibleAfter;
    private final Duration delay;
    private final FailureReason reason;

    private Settlement(Kind kind, int nextAttempt, Instant visibleAfter, Duration delay, FailureReason reason) {
        this.kind = kind;
        this.nextAttempt = nextAttempt;
        this.visibleAfter = visibleAfter;
        this.delay = delay;
        this.reason = reason;
    }

    /** @return done: the row's work succeeded (O29) */
    public static Settlement complete() {
        return COMPLETE;
    }

    /**
     * Pending again, with a new attempt, claimable from an instant (O30).
     *
     * @param nextAttempt the row's new attempt, at least 0
     * @param visibleAfter when it may be claimed again
     * @return the settlement
     * @throws InvalidArgumentException naming {@code nextAttempt} when negative, {@code visibleAfter}
     *     when {@code null}
     */
    public static Settlement retryAt(int nextAttempt, Instant visibleAfter) {
        InvalidArgumentException.requireNonNegative(nextAttempt, "nextAttempt");
        InvalidArgumentException.requireNonNull(visibleAfter, "visibleAfter");
        return new Settlement(Kind.RETRY, nextAttempt, visibleAfter, null, null);
    }

    /**
     * Pending again, with a new attempt, claimable once {@code delay} has passed on the store's
     * clock, read when the settle is written (O58): the backoff does not depend on the caller's clock.
     *
     * @param nextAttempt the row's new attempt, at least 0
     * @param delay how long after the write the row becomes claimable; zero or positive
     * @return the settlement
     * @throws InvalidArgumentException naming {@code nextAttempt} when negative, {@code delay} when
     *     {@code null} or negative
     */
    public static Settlement retryAfter(int nextAttempt, Duration delay) {
        InvalidArgumentException.requireNonNegative(nextAttempt, "nextAttempt");
        InvalidArgumentException.requireNonNull(delay, "delay");
        if (delay.isNegative()) {
            throw new InvalidArgumentException("delay", "must not be negative, was " + delay);
        }
        return new Settlement(Kind.RETRY, nextAttempt, null, delay, null);
    }

    /** @return dead-lettered: the row will not be dispatched again unless redriven (O31) */
    public static Settlement fail() {
        return FAIL;
    }

    /** @return cancelled: the row's work is no longer wanted (O32) */
    public static Settlement cancel() {
        return CANCEL;
    }

    /**
     * Says why the attempt failed: the store records the reason with the row, as the failure of the
     * attempt the settle ends (the row's {@code attempt() + 1}), in the same transaction, and keeps
     * the row's last {@value OutboxRow#MAX_FAILURES} ({@link OutboxRow#failures()}, O66).
     *
     * @param value why the attempt failed
     * @return a copy of this retry or dead-letter with the reason
     * @throws InvalidArgumentException naming {@code reason} when it is {@code null}, or when this
     *     settlement completes or cancels the row: only a retry or a dead-letter ends a failed attempt
     */
    public Settlement withReason(FailureReason value) {
        InvalidArgumentException.requireNonNull(value, "reason");
        if (kind != Kind.RETRY && kind != Kind.FAIL) {
            throw new InvalidArgumentException(
                    "reason", "is for a retry or a dead-letter (RETRY, FAIL); this settlement is " + kind);
        }
        return new Settlement(kind, nextAttempt, visibleAfter, delay, value);
    }

    /** @return the kind of settle */
    public Kind kind() {
        return kind;
    }

    /** @return the row's new attempt for a retry; 0 for the other kinds */
    public int nextAttempt() {
        return nextAttempt;
    }

    /** @return the instant a {@link #retryAt} row becomes claimable; {@code null} for the other forms */
    public Instant visibleAfter() {
        return visibleAfter;
    }

    /** @return the delay of a {@link #retryAfter} row; {@code null} for the other forms */
    public Duration delay() {
        return delay;
    }

    /** @return why the attempt failed ({@link #withReason}), or {@code null} for none */
    public FailureReason reason() {
        return reason;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Settlement s
                && kind == s.kind
                && nextAttempt == s.nextAttempt
                && Objects.equals(visibleAfter, s.visibleAfter)
                && Objects.equals(delay, s.delay)
                && Objects.equals(reason, s.reason);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, nextAttempt, visibleAfter, delay, reason);
    }

    @Override
    public String toString() {
        String why = reason == null ? "" : ", reason=" + reason;
        return switch (kind) {
            case RETRY ->
                "Settlement[RETRY, nextAttempt=" + nextAttempt
                        + (delay != null ? ", delay=" + delay : ", visibleAfter=" + visibleAfter) + why + "]";
            default -> "Settlement[" + kind + why + "]";
        };
    }
}
