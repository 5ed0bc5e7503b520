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
 * store.settle(row, Settlement.retryAfter(row.attempt() + 1, Duration.ofSeconds(30)));
 * }</pre>
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

    private static final Settlement COMPLETE = new Settlement(Kind.COMPLETE, 0, null, null);
    private static final Settlement FAIL = new Settlement(Kind.FAIL, 0, null, null);
    private static final Settlement CANCEL = new Settlement(Kind.CANCEL, 0, null, null);

    private final Kind kind;
    private final int nextAttempt;
    private final Instant visibleAfter;
    private final Duration delay;

    private Settlement(Kind kind, int nextAttempt, Instant visibleAfter, Duration delay) {
        this.kind = kind;
        this.nextAttempt = nextAttempt;
        this.visibleAfter = visibleAfter;
        this.delay = delay;
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
        return new Settlement(Kind.RETRY, nextAttempt, visibleAfter, null);
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
        return new Settlement(Kind.RETRY, nextAttempt, null, delay);
    }

    /** @return dead-lettered: the row will not be dispatched again unless redriven (O31) */
    public static Settlement fail() {
        return FAIL;
    }

    /** @return cancelled: the row's work is no longer wanted (O32) */
    public static Settlement cancel() {
        return CANCEL;
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

    @Override
    public boolean equals(Object o) {
        return o instanceof Settlement s
                && kind == s.kind
                && nextAttempt == s.nextAttempt
                && Objects.equals(visibleAfter, s.visibleAfter)
                && Objects.equals(delay, s.delay);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, nextAttempt, visibleAfter, delay);
    }

    @Override
    public String toString() {
        return switch (kind) {
            case RETRY ->
                "Settlement[RETRY, nextAttempt=" + nextAttempt
                        + (delay != null ? ", delay=" + delay : ", visibleAfter=" + visibleAfter) + "]";
            default -> "Settlement[" + kind + "]";
        };
    }
}
