package dev.durablestore.api;

import java.time.Duration;
import java.time.Instant;

/**
 * The closed workflows a {@link RetentionPolicy} says are due for deletion at {@code asOf} and are
 * still stored ({@link OperatorStore#retentionBacklog}, D9).
 *
 * @param asOf the instant the policy was applied at
 * @param overdueWorkflows closed workflows whose retention has run out
 * @param heldByLiveRows those of them kept because a row of theirs is pending or claimed (D6)
 * @param oldestClosedAt the close time of the one closed longest ago, or {@code null} when none is
 *     overdue
 */
public record RetentionBacklog(Instant asOf, long overdueWorkflows, long heldByLiveRows, Instant oldestClosedAt) {

    /**
     * Checks the instant.
     *
     * @param asOf see the record component
     * @param overdueWorkflows see the record component
     * @param heldByLiveRows see the record component
     * @param oldestClosedAt see the record component
     */
    public RetentionBacklog {
        InvalidArgumentException.requireNonNull(asOf, "asOf");
    }

    /**
     * @return how long ago the oldest overdue workflow closed ({@code asOf - oldestClosedAt}), zero
     *     when none is overdue
     */
    public Duration oldestAge() {
        return oldestClosedAt == null ? Duration.ZERO : Duration.between(oldestClosedAt, asOf);
    }
}
