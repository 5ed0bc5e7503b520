package dev.durablestore.sqlite.internal;

import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.OutboxCounts;
import dev.durablestore.api.OutboxQuery;
import dev.durablestore.api.OutboxRouteActivity;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxRowState;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.SerializationException;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.core.internal.OutboxListingSql;
import dev.durablestore.core.internal.StoredRows;
import dev.durablestore.core.storage.OutboxReadStorage;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The read-only outbox operations of the SQLite store (O39, O40, O43–O50), each on a reader
 * connection of the {@link ReaderPool}, never through the writer. The R2DBC backend's counterpart
 * has the same name and the same operations.
 */
final class OutboxReads implements OutboxReadStorage {

    private static final String LIVE = OutboxRows.LIVE;
    /** Claimed rows older than a bound, oldest claim first; {@link OutboxWrites} re-arms what it lists. */
    static final String STALE = "SELECT " + OutboxRows.COLUMNS + " FROM outbox WHERE status = 'claimed' "
            + "AND claimed_at IS NOT NULL AND claimed_at < ? ORDER BY claimed_at, dispatch_key LIMIT ?";

    private static final String UNSETTLED =
            "SELECT DISTINCT workflow_id FROM outbox WHERE " + LIVE + " ORDER BY workflow_id";
    private static final String COUNT_INFLIGHT = "SELECT count(*) FROM outbox WHERE namespace = ? AND " + LIVE;
    private static final String COUNT_CLAIMED =
            "SELECT count(*) FROM outbox WHERE namespace = ? AND status = 'claimed'";
    private static final String COUNT_CLAIMED_BY_NS = "SELECT namespace, count(*) FROM outbox WHERE status = 'claimed' "
            + "AND namespace IN (SELECT value FROM json_each(?)) GROUP BY namespace";
    private static final String ROUTES = "SELECT DISTINCT namespace, task_queue, node FROM outbox "
            + "WHERE status = 'pending' AND visible_after <= ? ORDER BY namespace, task_queue, node";
    private static final String ROW_STATE = "SELECT status, attempt, visible_after FROM outbox WHERE dispatch_key = ?";

    private final ReaderPool readers;
    private final OutboxRows rows;
    private final Clock clock;

    /**
     * @param readers the reader pool
     * @param rows row codec
     * @param clock the store clock
     */
    OutboxReads(ReaderPool readers, OutboxRows rows, Clock clock) {
        this.readers = readers;
        this.rows = rows;
        this.clock = clock;
    }

    /**
     * O39, O40.
     *
     * @param olderThanNanos bound
     * @param limit most rows
     * @return stale rows
     */
    @Override
    public Flux<OutboxRow> listStaleClaimed(long olderThanNanos, int limit) {
        return readers.read("listStaleClaimed", c -> stale(c, olderThanNanos, limit))
                .flatMapMany(Flux::fromIterable);
    }

    private List<OutboxRow> stale(DbConnection c, long bound, int limit) throws SQLException {
        PreparedStatement ps = c.prepare(STALE);
        ps.setLong(1, bound);
        ps.setInt(2, limit);
        try (ResultSet rs = ps.executeQuery()) {
            return rows.decodeAll(rs);
        }
    }

    /** O43. @return unsettled workflow ids */
    @Override
    public Flux<WorkflowId> listUnsettledWorkflowIds() {
        return readers.read("listUnsettledWorkflowIds", c -> {
                    List<WorkflowId> ids = new ArrayList<>();
                    try (ResultSet rs = c.prepare(UNSETTLED).executeQuery()) {
                        while (rs.next()) {
                            ids.add(StoredRows.workflowId(rs.getString(1)));
                        }
                    }
                    return ids;
                })
                .flatMapMany(Flux::fromIterable);
    }

    /** O44, O45: one count over the namespace's live or claimed rows. */
    @Override
    public Mono<Long> countInNamespace(String operation, String namespace, boolean claimedOnly) {
        return count(operation, claimedOnly ? COUNT_CLAIMED : COUNT_INFLIGHT, namespace);
    }

    private Mono<Long> count(String name, String sql, String namespace) {
        return readers.read(name, c -> {
            PreparedStatement ps = c.prepare(sql);
            ps.setString(1, namespace);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0L;
            }
        });
    }

    /** O47. @param namespaces namespaces @return counts */
    @Override
    public Mono<Map<String, Long>> countClaimedByNamespace(SortedSet<String> namespaces) {
        return readers.read("countClaimedByNamespace", c -> {
            Map<String, Long> counts = new HashMap<>();
            PreparedStatement ps = c.prepare(COUNT_CLAIMED_BY_NS);
            ps.setString(1, JsonArrays.of(namespaces));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    counts.put(rs.getString(1), rs.getLong(2));
                }
            }
            return counts;
        });
    }

    /** O48, O49. @return due routes */
    @Override
    public Flux<ClaimScope> pendingRoutes() {
        return readers.read("pendingRoutes", c -> {
                    PreparedStatement ps = c.prepare(ROUTES);
                    ps.setLong(1, now());
                    List<ClaimScope> routes = new ArrayList<>();
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            routes.add(new ClaimScope(rs.getString(1), rs.getString(2), rs.getString(3)));
                        }
                    }
                    return routes;
                })
                .flatMapMany(Flux::fromIterable);
    }

    /** O50. @param key row @return state or empty */
    @Override
    public Mono<OutboxRowState> rowState(String key) {
        return Mono.defer(() -> {
            return readers.read("rowState", c -> {
                PreparedStatement ps = c.prepare(ROW_STATE);
                ps.setString(1, key);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return null;
                    }
                    try {
                        return new OutboxRowState(
                                OutboxStatus.fromToken(rs.getString(1)),
                                (int) rs.getLong(2),
                                Times.readInstant(rs, 3, "visible_after"));
                    } catch (SerializationException | InvalidArgumentException e) {
                        throw new SerializationException(
                                "stored outbox row " + key + " cannot be decoded: " + e.getMessage(), e);
                    }
                }
            });
        });
    }

    /** O60. @param query filter and page @return the rows */
    @Override
    public Flux<OutboxRow> listOutbox(OutboxQuery query) {
        return Mono.defer(() -> {
                    OutboxListingSql.Statement st = OutboxListingSql.list(query, OutboxRows.COLUMNS, i -> "?", "");
                    return readers.read("listOutbox", c -> {
                        PreparedStatement ps = c.prepare(st.sql());
                        bind(ps, st.args());
                        try (ResultSet rs = ps.executeQuery()) {
                            return rows.decodeAll(rs);
                        }
                    });
                })
                .flatMapMany(Flux::fromIterable);
    }

    /** O61. @param dueBy due bound @param claimedBefore stale bound @param cap cap @return counts */
    @Override
    public Mono<OutboxCounts> countByRoute(long dueByNanos, long claimedBeforeNanos, int cap) {
        return Mono.defer(() -> {
            long[] bounds = {dueByNanos, claimedBeforeNanos};
            return readers.read("countByRoute", c -> {
                List<OutboxListingSql.CountRow> found = new ArrayList<>();
                for (OutboxStatus status : OutboxStatus.values()) {
                    PreparedStatement ps = c.prepare(OutboxListingSql.countSql(status, i -> "?"));
                    int i = 1;
                    if (status == OutboxStatus.PENDING) {
                        ps.setLong(i++, bounds[0]);
                    } else if (status == OutboxStatus.CLAIMED) {
                        ps.setLong(i++, bounds[1]);
                    }
                    ps.setLong(i, cap);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            found.add(new OutboxListingSql.CountRow(
                                    status,
                                    rs.getString(1),
                                    rs.getString(2),
                                    rs.getString(3),
                                    rs.getLong(4),
                                    rs.getLong(5)));
                        }
                    }
                }
                return OutboxListingSql.fold(found, cap);
            });
        });
    }

    /** O68. @param dueByNanos due bound @param cap rows per read @return activity per route */
    @Override
    public Flux<OutboxRouteActivity> routeActivity(long dueByNanos, int cap) {
        return readers.read("routeActivity", c -> {
                    List<OutboxListingSql.ActivityRow> found = new ArrayList<>();
                    for (OutboxListingSql.Activity activity : OutboxListingSql.Activity.values()) {
                        PreparedStatement ps = c.prepare(activity.sql(i -> "?"));
                        if (activity == OutboxListingSql.Activity.OLDEST_DUE) {
                            ps.setLong(1, dueByNanos);
                            ps.setLong(2, cap);
                        } else {
                            ps.setLong(1, cap);
                        }
                        try (ResultSet rs = ps.executeQuery()) {
                            while (rs.next()) {
                                found.add(new OutboxListingSql.ActivityRow(
                                        activity, rs.getString(1), rs.getString(2), rs.getString(3), rs.getLong(4)));
                            }
                        }
                    }
                    return OutboxListingSql.foldActivity(found);
                })
                .flatMapMany(Flux::fromIterable);
    }

    private static void bind(PreparedStatement ps, List<Object> args) throws SQLException {
        for (int i = 0; i < args.size(); i++) {
            Object a = args.get(i);
            if (a instanceof Long l) {
                ps.setLong(i + 1, l);
            } else {
                ps.setString(i + 1, (String) a);
            }
        }
    }

    private long now() {
        return Times.nowNanos(clock.instant());
    }
}
