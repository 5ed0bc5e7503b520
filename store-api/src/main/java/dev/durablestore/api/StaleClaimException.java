package dev.durablestore.api;

/**
 * A fenced settle or a step named a claim that is no longer current: since the claim that returned
 * the row, the lease reaper re-armed it, another dispatcher claimed it again, or something settled
 * it (see {@link OutboxRow#claimToken()}). Nothing was written. The row now belongs to whoever holds
 * its current claim, or to no one; the caller that receives this must not act on it again.
 *
 * <p>Not transient: retrying the same settle fails the same way.
 */
public final class StaleClaimException extends StoreException {

    /** The row whose claim is stale. */
    private final String dispatchKey;
    /** The claim the caller named. */
    private final long claimToken;

    /**
     * @param operation the refused operation ({@code complete}, {@code commitStep} …)
     * @param dispatchKey the row
     * @param claimToken the claim the caller named
     */
    public StaleClaimException(String operation, String dispatchKey, long claimToken) {
        super(
                operation + " refused: the claim " + claimToken + " of outbox row " + dispatchKey
                        + " is no longer current (re-armed, claimed again or settled since); nothing was written",
                null);
        this.dispatchKey = dispatchKey;
        this.claimToken = claimToken;
    }

    /** @return the row whose claim is stale */
    public String dispatchKey() {
        return dispatchKey;
    }

    /** @return the claim token the caller named */
    public long claimToken() {
        return claimToken;
    }
}
