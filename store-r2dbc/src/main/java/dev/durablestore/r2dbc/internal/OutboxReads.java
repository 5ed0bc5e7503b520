package dev.durablestore.r2dbc.internal;

import dev.durablestore.api.ClaimScope;
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
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** The read-only outbox operations (O39, O40, O43–O50); none takes a lock. */
final class OutboxReads implements OutboxReadStorage {

    private static final String LIVE = "status IN ('pending', 'claimed')";
    private static final String UNSETTLED =
            "SELECT DISTINCT workflow_id FROM outbox WHERE " + LIVE + " ORDER BY workflow_id";
    private static final String COUNT_INFLIGHT = "SELECT count(*) FROM outbox WHERE namespace = $1 AND " + LIVE;
    private static final String COUNT_CLAIMED =
            "SELECT count(*) FROM outbox WHERE namespace = $1 AND status = 'claimed'";
    private static final String COUNT_CLAIMED_BY_NS =
            "SELECT namespace, count(*) FROM outbox WHERE status = 'claimed' " + "AND namespace IN ";
    private static final String ROUTES = "SELECT DISTINCT namespace, task_queue, node FROM outbox "
            + "WHERE status = 'pending' AND visible_after <= $1";
    private static final String ROW_STATE = "SELECT status, attempt, visible_after FROM outbox WHERE dispatch_key = $1";

    /** O48: namespace, task queue, then node with unpinned first (Unicode code-point order, as SQL "C"). */
    private static final Comparator<ClaimScope> ROUTE_ORDER = Comparator.comparing(
                    ClaimScope::namespace, Times.CODE_POINT_ORDER)
            .thenComparing(ClaimScope::taskQueue, Times.CODE_POINT_ORDER)
            .thenComparing(ClaimScope::node, Comparator.nullsFirst(Times.CODE_POINT_ORDER));

    private final Db db;
    private final OutboxRows rows;
    private final Clock clock;

    OutboxReads(Db db, OutboxRows rows, Clock clock) {
        this.db = db;
        this.rows = rows;
        this.clock = clock;
    }

    /** O39, O40. */
    @Override
    public Flux<OutboxRow> listStaleClaimed(long olderThanNanos, int limit) {
        return db.read(
                        "listStaleClaimed",
                        c -> Sql.query(c, OutboxWrites.STALE, OutboxRows::stored, olderThanNanos, limit)
                                .collectList()
                                .map(rows::decodeAll))
                .flatMapMany(Flux::fromIterable);
    }

    /** O43. */
    @Override
    public Flux<WorkflowId> listUnsettledWorkflowIds() {
        return db.stream("listUnsettledWorkflowIds", c -> Sql.query(c, UNSETTLED, row -> Sql.textAt(row, 0)))
                .map(StoredRows::workflowId);
    }

    /** O44, O45: one count over the namespace's live or claimed rows. */
    @Override
    public Mono<Long> countInNamespace(String operation, String namespace, boolean claimedOnly) {
        return count(operation, claimedOnly ? COUNT_CLAIMED : COUNT_INFLIGHT, namespace);
    }

    private Mono<Long> count(String name, String sql, String namespace) {
        return db.read(
                name,
                c -> Sql.query(c, sql, row -> Sql.longAt(row, 0), namespace)
                        .next()
                        .defaultIfEmpty(0L));
    }

    /** O47. */
    @Override
    public Mono<Map<String, Long>> countClaimedByNamespace(SortedSet<String> namespaces) {
        Sql.Params p = new Sql.Params();
        String sql = COUNT_CLAIMED_BY_NS + p.list(namespaces) + " GROUP BY namespace";
        return db.read(
                "countClaimedByNamespace",
                c -> Sql.query(c, sql, row -> Map.entry(Sql.textAt(row, 0), Sql.longAt(row, 1)), p.values())
                        .collectMap(Map.Entry::getKey, Map.Entry::getValue));
    }

    /** O48, O49. */
    @Override
    public Flux<ClaimScope> pendingRoutes() {
        return Mono.defer(() -> {
                    long now = Times.nowNanos(clock.instant());
                    return db.read(
                            "pendingRoutes",
                            c -> Sql.query(
                                            c,
                                            ROUTES,
                                            row -> new String[] {
                                                Sql.textAt(row, 0), Sql.textAt(row, 1), Sql.textAt(row, 2)
                                            },
                                            now)
                                    .collectList()
                                    .map(found -> {
                                        List<ClaimScope> routes = new ArrayList<>(found.size());
                                        for (String[] r : found) {
                                            routes.add(new ClaimScope(r[0], r[1], r[2]));
                                        }
                                        routes.sort(ROUTE_ORDER);
                                        return routes;
                                    }));
                })
                .flatMapMany(Flux::fromIterable);
    }

    /** O60. */
    @Override
    public Flux<OutboxRow> listOutbox(OutboxQuery query) {
        return Mono.defer(() -> {
                    OutboxListingSql.Statement st = OutboxListingSql.list(
                            query,
                            OutboxRows.COLUMNS,
                            i -> "$" + i,
                            db.dialect().postgres() ? " COLLATE \"C\"" : "");
                    return db.read(
                            "listOutbox",
                            c -> Sql.query(
                                            c,
                                            st.sql(),
                                            OutboxRows::stored,
                                            st.args().toArray())
                                    .collectList()
                                    .map(rows::decodeAll));
                })
                .flatMapMany(Flux::fromIterable);
    }

    /** O61. */
    @Override
    public Mono<OutboxCounts> countByRoute(long dueByNanos, long claimedBeforeNanos, int cap) {
        return Mono.defer(() -> {
            long[] bounds = {dueByNanos, claimedBeforeNanos};
            return db.read(
                    "countByRoute",
                    c -> Flux.fromArray(OutboxStatus.values())
                            .concatMap(status -> {
                                Object[] args = status == OutboxStatus.PENDING
                                        ? new Object[] {bounds[0], (long) cap}
                                        : status == OutboxStatus.CLAIMED
                                                ? new Object[] {bounds[1], (long) cap}
                                                : new Object[] {(long) cap};
                                return Sql.query(
                                        c,
                                        OutboxListingSql.countSql(status, i -> "$" + i),
                                        row -> new OutboxListingSql.CountRow(
                                                status,
                                                Sql.textAt(row, 0),
                                                Sql.textAt(row, 1),
                                                Sql.textAt(row, 2),
                                                number(row, 3),
                                                number(row, 4)),
                                        args);
                            })
                            .collectList()
                            .map(found -> OutboxListingSql.fold(found, cap)));
        });
    }

    /** O68. */
    @Override
    public Flux<OutboxRouteActivity> routeActivity(long dueByNanos, int cap) {
        return db.read(
                        "routeActivity",
                        c -> Flux.fromArray(OutboxListingSql.Activity.values())
                                .concatMap(activity -> Sql.query(
                                        c,
                                        activity.sql(i -> "$" + i),
                                        row -> new OutboxListingSql.ActivityRow(
                                                activity,
                                                Sql.textAt(row, 0),
                                                Sql.textAt(row, 1),
                                                Sql.textAt(row, 2),
                                                number(row, 3)),
                                        activity == OutboxListingSql.Activity.OLDEST_DUE
                                                ? new Object[] {dueByNanos, (long) cap}
                                                : new Object[] {(long) cap}))
                                .collectList()
                                .map(OutboxListingSql::foldActivity))
                .flatMapMany(Flux::fromIterable);
    }

    private static long number(io.r2dbc.spi.Row row, int index) {
        Object v = row.get(index);
        return v == null ? 0L : ((Number) v).longValue();
    }

    /** O50. */
    @Override
    public Mono<OutboxRowState> rowState(String key) {
        return Mono.defer(() -> {
            return db.read(
                    "rowState",
                    c -> Sql.query(
                                    c,
                                    ROW_STATE,
                                    row -> new Object[] {Sql.textAt(row, 0), Sql.longAt(row, 1), Sql.longAt(row, 2)},
                                    key)
                            .next()
                            .map(r -> {
                                Long attempt = (Long) r[1];
                                if (attempt == null || attempt < 0 || attempt > Integer.MAX_VALUE || r[2] == null) {
                                    throw new SerializationException("stored outbox row " + key
                                            + " has an out-of-range attempt or no visible_after");
                                }
                                return new OutboxRowState(
                                        OutboxStatus.fromToken((String) r[0]),
                                        attempt.intValue(),
                                        Times.fromNanos((Long) r[2]));
                            }));
        });
    }
}
