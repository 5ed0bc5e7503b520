package dev.durablestore.migration;

import dev.durablestore.api.InvalidArgumentException;
import java.util.List;

/**
 * The comparison of a copy with its source: per workflow its head, its events and the checksum of
 * its history's bytes; the outbox rows of each status; the timers.
 *
 * @param workflows the workflows (histories) in the source
 * @param outboxRows the outbox rows in the source
 * @param timers the timers in the source
 * @param mismatches what differs, one sentence each, the first {@link #MAX_LISTED} of them
 * @param mismatchCount how many differences were found, listed or not
 */
public record MigrationVerification(
        long workflows, long outboxRows, long timers, List<String> mismatches, long mismatchCount) {

    /** The most mismatches {@link #mismatches()} lists. */
    public static final int MAX_LISTED = 100;

    /**
     * @param workflows the workflows in the source
     * @param outboxRows the outbox rows in the source
     * @param timers the timers in the source
     * @param mismatches the listed mismatches (copied)
     * @param mismatchCount how many were found
     * @throws InvalidArgumentException naming the argument that is null or negative, or
     *     {@code mismatchCount} when it is smaller than the mismatches listed
     */
    public MigrationVerification {
        InvalidArgumentException.requireNonNegative(workflows, "workflows");
        InvalidArgumentException.requireNonNegative(outboxRows, "outboxRows");
        InvalidArgumentException.requireNonNegative(timers, "timers");
        mismatches = List.copyOf(InvalidArgumentException.requireNonNull(mismatches, "mismatches"));
        if (mismatchCount < mismatches.size()) {
            throw new InvalidArgumentException(
                    "mismatchCount", "is " + mismatchCount + ", below the " + mismatches.size() + " mismatches listed");
        }
    }

    /** @return true when the copy equals the source in everything compared */
    public boolean verified() {
        return mismatchCount == 0;
    }
}
