package dev.durablestore.r2dbc.internal;

import dev.durablestore.api.StaleClaimException;
import dev.durablestore.core.internal.StepEncoder;
import io.r2dbc.spi.Connection;
import reactor.core.publisher.Mono;

/**
 * The statements of fenced settles (W6), the same text on PostgreSQL and H2: each changes its row
 * only while it is {@code claimed} under the settle's claim token, so an update count of 0 means
 * the claim is no longer current and the settle fails with {@link StaleClaimException}.
 */
final class FencedSettles {

    private static final String FENCE = " WHERE dispatch_key = $3 AND status = 'claimed' AND claim_token = $4";

    /** A settle without a reason binds {@code NULL} as {@code $5} and leaves the failures as they are (O66). */
    private static final String SETTLE = "UPDATE outbox SET status = $1, claimed_at = NULL, settled_at = $2, "
            + "failures = COALESCE($5, failures)" + FENCE;

    private static final String RETRY = "UPDATE outbox SET status = 'pending', attempt = $1, visible_after = $2, "
            + "claimed_at = NULL, failures = COALESCE($5, failures)" + FENCE;

    private FencedSettles() {}

    /**
     * Writes one settle, failing when the claim is no longer current; inside a transaction the
     * failure rolls back everything written before it.
     *
     * @param c the connection
     * @param s the settle
     * @param nowNanos the store's clock: the settle time, the base of a retry's delay, and the time
     *     of the failure a reason records
     * @param operation the operation name for the error
     * @return completes once the row is settled
     */
    static Mono<Void> apply(Connection c, StepEncoder.Settle s, long nowNanos, String operation) {
        Object failures = Sql.text(s.failuresAfter(nowNanos));
        Mono<Long> update = switch (s.kind()) {
            case RETRY ->
                Sql.update(
                        c,
                        RETRY,
                        (long) s.nextAttempt(),
                        s.retryVisibleAfter(nowNanos),
                        s.dispatchKey(),
                        s.claimToken(),
                        failures);
            case COMPLETE, FAIL, CANCEL ->
                Sql.update(c, SETTLE, s.kind().status().token(), nowNanos, s.dispatchKey(), s.claimToken(), failures);
        };
        return update.flatMap(n -> n == 1
                ? Mono.<Void>empty()
                : Mono.error(new StaleClaimException(operation, s.dispatchKey(), s.claimToken())));
    }
}
