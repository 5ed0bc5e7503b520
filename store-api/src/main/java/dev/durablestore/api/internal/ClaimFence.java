package dev.durablestore.api.internal;

import com.google.errorprone.annotations.CanIgnoreReturnValue;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;

/**
 * The argument check of every fenced settle, the same in every backend and in
 * {@link dev.durablestore.api.WorkflowStep}: the row must come from a claim, that is be
 * {@code CLAIMED} with a non-zero {@link OutboxRow#claimToken()}.
 */
public final class ClaimFence {

    private ClaimFence() {}

    /**
     * @param row the row a caller wants to settle under its claim
     * @param argument the argument name to report ({@code claimed}, {@code settles[2]})
     * @return the row
     * @throws InvalidArgumentException naming {@code argument} when the row is null, or
     *     {@code argument.claimToken} when it does not come from a claim
     */
    @CanIgnoreReturnValue // a check; returns its argument
    public static OutboxRow requireClaimed(OutboxRow row, String argument) {
        InvalidArgumentException.requireNonNull(row, argument);
        if (row.status() != OutboxStatus.CLAIMED || row.claimToken() == 0) {
            throw new InvalidArgumentException(
                    argument + ".claimToken",
                    "must come from a claim (status CLAIMED and a "
                            + "non-zero claim token); row " + row.dispatchKey() + " has status " + row.status()
                            + " and claim token " + row.claimToken());
        }
        return row;
    }
}
