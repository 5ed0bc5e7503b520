package dev.durablestore.sqlite.internal;

import static dev.durablestore.core.internal.Claims.CLAIM_ORDER;
import static dev.durablestore.core.internal.Claims.newClaimToken;

import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.DispatchPolicy;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.SerializationException;
import dev.durablestore.core.storage.ClaimBatch;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.IntSupplier;

/**
 * One claim of a whole batch (O16–O27, O62): due rows of the route, not held, highest priority,
 * then oldest {@code visible_after}, then dispatch key, flipped to {@code claimed} with
 * {@code claimed_at = now} and {@code claimed_by} the scope's node (O65; NULL without one).
 *
 * <p>Two statements in the writer's transaction, each an index walk that stops at its limit: first
 * the prioritized rows ({@code outbox_prioritized}, which holds only pending rows with a priority:
 * one empty seek when there are none), then, for what is left of the limit, exactly the statement
 * of a store without priorities ({@code outbox_pending}). The second needs no {@code priority = 0}
 * term (which would cost a table read per row there): when the first came back short it took every
 * due prioritized row the claim admits, so none is left for the second to meet.
 *
 * <p>A row whose stored input cannot be decoded is dead-lettered in the same transaction and the
 * claim reports a {@link SerializationException} naming it; the other rows of that batch are put
 * back exactly as they were, so the next claim takes them (a corrupt row never blocks the queue).
 */
final class ClaimCommand implements WriteCommand<ClaimBatch> {

    private static final String RESTORE = "UPDATE outbox SET status = 'pending', claimed_at = NULL "
            + "WHERE dispatch_key IN (SELECT value FROM json_each(?))";
    /**
     * O63: no row of the candidate's workflow is claimed, and no pending one comes before it
     * (ordinal, then key), so a workflow has one candidate at most: its first pending row. Read
     * through {@code outbox_by_workflow}. The writer serializes claims, and its transactions begin
     * {@code IMMEDIATE} (the write lock taken before the first read), so a claim of another
     * process on the same file never sees the workflow as it was before this one.
     */
    private static final String SERIAL = " AND NOT EXISTS (SELECT 1 FROM outbox s WHERE s.workflow_id = "
            + "outbox.workflow_id AND (s.status = 'claimed' OR (s.status = 'pending' AND (s.ordinal < outbox.ordinal "
            + "OR (s.ordinal = outbox.ordinal AND s.dispatch_key < outbox.dispatch_key)))))";

    /**
     * O64 and O65: the claimed rows of a route, on any node, and those of them claimed as the
     * scope's node, read through {@code outbox_claimed} (claims always write {@code claimed_at}).
     * In the writer's transaction, so the counts and the claim agree for every claimer of the file.
     * With no node bound the second count is 0.
     */
    private static final String CLAIMED_ON_ROUTE = "SELECT count(*), count(CASE WHEN claimed_by = ? THEN 1 END) "
            + "FROM outbox WHERE status = 'claimed' AND claimed_at IS NOT NULL AND namespace = ? AND task_queue = ?";

    private static final String DEAD_LETTER =
            "UPDATE outbox SET status = 'failed', claimed_at = NULL, " + "settled_at = ? WHERE dispatch_key = ?";

    private final OutboxRows codec;
    private final ClaimScope scope;
    private final Set<String> held;
    private final DispatchPolicy policy;
    /** Read when the claim runs: the claim stream's demand may grow while the command is queued. */
    private final IntSupplier limit;

    private final boolean wantNext;
    private final Clock clock;
    private final String claimSql;
    private final String prioritizedSql;
    private final String nextSql;
    private final String heldJson;

    ClaimCommand(
            OutboxRows codec,
            ClaimScope scope,
            Set<String> held,
            IntSupplier limit,
            boolean wantNext,
            Clock clock,
            DispatchPolicy policy) {
        this.codec = codec;
        this.scope = scope;
        this.held = held;
        this.policy = policy;
        this.limit = limit;
        this.wantNext = wantNext;
        this.clock = clock;
        // built here, when the claim is submitted, not inside the writer's transaction
        String filter = filter();
        // every claim records its claimer (O65), the node of its scope or NULL
        String update = "UPDATE outbox SET status = 'claimed', claimed_at = ?, claim_token = ?, claimed_by = ? "
                + "WHERE dispatch_key IN ";
        this.prioritizedSql = update + "(SELECT dispatch_key FROM outbox WHERE status = 'pending' AND priority > 0 "
                + "AND visible_after <= ?" + filter + " ORDER BY priority DESC, visible_after, dispatch_key LIMIT ?) "
                + "RETURNING " + OutboxRows.COLUMNS;
        this.claimSql = update + "(SELECT dispatch_key FROM outbox WHERE status = 'pending' AND visible_after <= ?"
                + filter + " ORDER BY visible_after, dispatch_key LIMIT ?) RETURNING " + OutboxRows.COLUMNS;
        this.nextSql = "SELECT min(visible_after) FROM outbox WHERE status = 'pending'" + filter;
        this.heldJson = held.isEmpty() ? null : JsonArrays.of(held);
    }

    @Override
    public ClaimBatch execute(DbConnection c) throws SQLException {
        long now = Times.nowNanos(clock.instant()); // read once per claim (O17, O20)
        int limit = capped(c, this.limit.getAsInt());
        if (limit == 0) {
            // the route or the node is at its cap (O64, O65): no next due time, so a stream waits
            // for a settle's wake-up or its poll instead of claiming again at once
            return new ClaimBatch(List.of(), null, null);
        }
        long token = newClaimToken(policy);
        // not sized by the limit: any non-negative limit is valid (O19), Integer.MAX_VALUE included,
        // and the lists grow with the rows actually due
        List<OutboxRow> rows = new ArrayList<>();
        List<String> claimedKeys = new ArrayList<>();
        List<String> corruptKeys = new ArrayList<>();
        SerializationException corrupt =
                take(c, prioritizedSql, now, token, limit, rows, claimedKeys, corruptKeys, null);
        if (claimedKeys.size() < limit) {
            corrupt =
                    take(c, claimSql, now, token, limit - claimedKeys.size(), rows, claimedKeys, corruptKeys, corrupt);
        }
        if (corrupt != null) {
            return deadLetter(c, now, claimedKeys, corruptKeys, corrupt);
        }
        rows.sort(CLAIM_ORDER);
        Long next = wantNext && rows.size() < limit ? nextVisibleAfter(c) : null;
        return new ClaimBatch(rows, null, next);
    }

    /**
     * The limit, lowered to what the policy's caps leave room for on the route (O64) and for the
     * scope's node on it (O65): the smaller room of the two.
     */
    private int capped(DbConnection c, int limit) throws SQLException {
        if ((policy.concurrencyCap().isEmpty() && policy.nodeConcurrencyCap().isEmpty()) || limit == 0) {
            return limit;
        }
        PreparedStatement ps = c.prepare(CLAIMED_ON_ROUTE);
        setText(ps, 1, claimer());
        ps.setString(2, scope.namespace());
        ps.setString(3, scope.taskQueue());
        try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            int routeRoom = dev.durablestore.core.internal.Claims.capped(limit, policy, rs.getLong(1));
            return dev.durablestore.core.internal.Claims.nodeCapped(routeRoom, policy, rs.getLong(2));
        }
    }

    /** @return the node this claim records as the claimer of its rows (O65), or {@code null} */
    private String claimer() {
        return scope == null ? null : scope.node();
    }

    private static void setText(PreparedStatement ps, int index, String value) throws SQLException {
        if (value == null) {
            ps.setNull(index, Types.VARCHAR);
        } else {
            ps.setString(index, value);
        }
    }

    /** Runs one claim statement, adding what it took to the lists; returns the corruption met so far. */
    private SerializationException take(
            DbConnection c,
            String sql,
            long now,
            long token,
            int limit,
            List<OutboxRow> rows,
            List<String> claimedKeys,
            List<String> corruptKeys,
            SerializationException corrupt)
            throws SQLException {
        PreparedStatement ps = c.prepare(sql);
        int i = 1;
        ps.setLong(i++, now);
        ps.setLong(i++, token);
        setText(ps, i++, claimer());
        ps.setLong(i++, now);
        i = bindFilter(ps, i);
        ps.setInt(i, limit);
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                String key = rs.getString(1);
                claimedKeys.add(key);
                try {
                    rows.add(codec.decode(rs));
                } catch (SerializationException e) {
                    corruptKeys.add(key);
                    if (corrupt == null) {
                        corrupt = e;
                    } else {
                        corrupt.addSuppressed(e);
                    }
                }
            }
        }
        return corrupt;
    }

    private ClaimBatch deadLetter(
            DbConnection c,
            long now,
            List<String> claimedKeys,
            List<String> corruptKeys,
            SerializationException corrupt)
            throws SQLException {
        claimedKeys.removeAll(corruptKeys);
        if (!claimedKeys.isEmpty()) {
            PreparedStatement restore = c.prepare(RESTORE);
            restore.setString(1, JsonArrays.of(claimedKeys));
            restore.executeUpdate();
        }
        PreparedStatement dl = c.prepare(DEAD_LETTER);
        for (String key : corruptKeys) {
            dl.setLong(1, now);
            dl.setString(2, key);
            dl.executeUpdate();
        }
        SerializationException reported = new SerializationException(
                "claim dead-lettered undecodable outbox row(s) " + corruptKeys + "; the other due rows stay pending: "
                        + corrupt.getMessage(),
                corrupt);
        return new ClaimBatch(List.of(), reported, null);
    }

    private Long nextVisibleAfter(DbConnection c) throws SQLException {
        PreparedStatement ps = c.prepare(nextSql);
        bindFilter(ps, 1);
        try (ResultSet rs = ps.executeQuery()) {
            if (rs.next()) {
                long v = rs.getLong(1);
                return rs.wasNull() ? null : v;
            }
            return null;
        }
    }

    private String filter() {
        StringBuilder sb = new StringBuilder();
        if (scope != null) {
            sb.append(" AND namespace = ? AND task_queue = ?");
            sb.append(scope.node() == null ? " AND node IS NULL" : " AND (node IS NULL OR node = ?)");
        }
        if (!held.isEmpty()) {
            sb.append(" AND workflow_id NOT IN (SELECT value FROM json_each(?))");
        }
        if (policy.serialPerWorkflow()) {
            sb.append(SERIAL);
        }
        return sb.toString();
    }

    private int bindFilter(PreparedStatement ps, int index) throws SQLException {
        int i = index;
        if (scope != null) {
            ps.setString(i++, scope.namespace());
            ps.setString(i++, scope.taskQueue());
            if (scope.node() != null) {
                ps.setString(i++, scope.node());
            }
        }
        if (!held.isEmpty()) {
            ps.setString(i++, heldJson);
        }
        return i;
    }

    @Override
    public String name() {
        return "claim";
    }
}
