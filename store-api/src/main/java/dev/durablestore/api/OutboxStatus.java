package dev.durablestore.api;

/**
 * The state of an outbox row (O3, O4). {@code PENDING} and {@code CLAIMED} are live; the others
 * are terminal.
 */
public enum OutboxStatus {
    /** Waiting to be claimed once {@code visibleAfter} has passed. */
    PENDING("pending"),
    /** Handed to a dispatcher at {@code claimedAt}. */
    CLAIMED("claimed"),
    /** Dispatched successfully. */
    DONE("done"),
    /** Dead-lettered. */
    FAILED("failed"),
    /** Cancelled because its workflow ended or the engine withdrew it. */
    CANCELLED("cancelled");

    private final String token;

    OutboxStatus(String token) {
        this.token = token;
    }

    /** @return the stored token: {@code pending}, {@code claimed}, {@code done}, {@code failed} or {@code cancelled} */
    public String token() {
        return token;
    }

    /** @return true for {@code PENDING} and {@code CLAIMED} */
    public boolean isLive() {
        return this == PENDING || this == CLAIMED;
    }

    /**
     * @param token a stored token
     * @return the status
     * @throws SerializationException when the token is not one of the five (O3)
     */
    public static OutboxStatus fromToken(String token) {
        if (token != null) {
            switch (token) {
                case "pending":
                    return PENDING;
                case "claimed":
                    return CLAIMED;
                case "done":
                    return DONE;
                case "failed":
                    return FAILED;
                case "cancelled":
                    return CANCELLED;
                default:
                    break;
            }
        }
        throw new SerializationException("unknown outbox status token '" + token + "'");
    }
}
