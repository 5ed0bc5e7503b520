package dev.durablestore.sqlite.internal;

import dev.durablestore.core.internal.StepEncoder;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The statements of fenced settles (W6): each changes its row only while it is {@code claimed}
 * under the settle's claim token, so an update count of 0 means the claim is no longer current.
 */
final class FencedSettles {

    private static final String FENCE = " WHERE dispatch_key = ? AND status = 'claimed' AND claim_token = ?";
    private static final String CURRENT = "SELECT 1 FROM outbox" + FENCE;
    /** A settle without a reason binds {@code NULL} as the failures and leaves them as they are (O66). */
    private static final String SETTLE = "UPDATE outbox SET status = ?, claimed_at = NULL, settled_at = ?, "
            + "failures = COALESCE(?, failures)" + FENCE;

    private static final String RETRY = "UPDATE outbox SET status = 'pending', attempt = ?, visible_after = ?, "
            + "claimed_at = NULL, failures = COALESCE(?, failures)" + FENCE;

    private FencedSettles() {}

    /**
     * @param c the write connection, in the transaction
     * @param s the settle
     * @return true while the row is claimed under the settle's token
     * @throws SQLException on storage failure
     */
    static boolean current(DbConnection c, StepEncoder.Settle s) throws SQLException {
        PreparedStatement ps = c.prepare(CURRENT);
        ps.setString(1, s.dispatchKey());
        ps.setLong(2, s.claimToken());
        try (ResultSet rs = ps.executeQuery()) {
            return rs.next();
        }
    }

    /**
     * Writes one settle.
     *
     * @param c the write connection, in the transaction
     * @param s the settle
     * @param nowNanos the store's clock: the settle time, the base of a retry's delay, and the time
     *     of the failure a reason records
     * @return true when the row was claimed under the settle's token and is now settled; false when
     *     nothing changed
     * @throws SQLException on storage failure
     */
    static boolean apply(DbConnection c, StepEncoder.Settle s, long nowNanos) throws SQLException {
        PreparedStatement ps;
        int i = 1;
        switch (s.kind()) {
            case RETRY -> {
                ps = c.prepare(RETRY);
                ps.setLong(i++, s.nextAttempt());
                ps.setLong(i++, s.retryVisibleAfter(nowNanos));
            }
            case COMPLETE, FAIL, CANCEL -> {
                ps = c.prepare(SETTLE);
                ps.setString(i++, s.kind().status().token());
                ps.setLong(i++, nowNanos);
            }
            default -> throw new IllegalStateException("unknown settlement " + s.kind());
        }
        EventRows.setNullable(ps, i++, s.failuresAfter(nowNanos));
        ps.setString(i++, s.dispatchKey());
        ps.setLong(i, s.claimToken());
        return ps.executeUpdate() == 1;
    }
}
