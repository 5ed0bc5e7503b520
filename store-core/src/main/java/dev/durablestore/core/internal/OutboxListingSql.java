package dev.durablestore.core.internal;

import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.OutboxCounts;
import dev.durablestore.api.OutboxQuery;
import dev.durablestore.api.OutboxRouteActivity;
import dev.durablestore.api.OutboxRouteCounts;
import dev.durablestore.api.OutboxStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.IntFunction;

/**
 * The SQL of {@code listOutbox}, {@code countByRoute} and {@code routeActivity} (O60, O61, O68), shared by the backends: the
 * statements differ only in bind markers ({@code ?} or {@code $n}) and in how keys are ordered.
 * Timestamps are epoch nanoseconds, as every backend stores them.
 */
public final class OutboxListingSql {

    /** The status time {@link OutboxQuery#olderThan()} compares with. */
    private static final String STATUS_TIME =
            "(CASE status WHEN 'claimed' THEN claimed_at " + "WHEN 'pending' THEN visible_after ELSE settled_at END)";

    /** Routes as O48 orders them: namespace, task queue, then node with unpinned first, in code-point order. */
    private static final Comparator<ClaimScope> ROUTE_ORDER = Comparator.comparing(
                    ClaimScope::namespace, Claims.CODE_POINT_ORDER)
            .thenComparing(ClaimScope::taskQueue, Claims.CODE_POINT_ORDER)
            .thenComparing(ClaimScope::node, Comparator.nullsFirst(Claims.CODE_POINT_ORDER));

    private OutboxListingSql() {}

    /**
     * A statement and its arguments, in bind order.
     *
     * @param sql the statement
     * @param args the arguments: {@link String} or {@link Long}
     */
    public record Statement(String sql, List<Object> args) {
        /** Copies the arguments. */
        public Statement {
            args = List.copyOf(args);
        }
    }

    /**
     * @param query the listing (checked: not null, see {@link OutboxQuery#matchesNothing()})
     * @param columns the row columns to select
     * @param marker the bind marker of the {@code i}-th argument, from 1
     * @param collate appended to the key in comparisons and ordering (e.g. {@code  COLLATE "C"}), or ""
     * @return the listing statement
     */
    public static Statement list(OutboxQuery query, String columns, IntFunction<String> marker, String collate) {
        List<Object> args = new ArrayList<>();
        List<String> where = new ArrayList<>();
        if (query.status() != null) {
            where.add("status = '" + query.status().token() + "'");
        }
        text(where, args, marker, "namespace", query.namespace(), "");
        text(where, args, marker, "task_queue", query.taskQueue(), "");
        text(where, args, marker, "node", query.node(), "");
        text(where, args, marker, "activity_type", query.activityType(), "");
        text(
                where,
                args,
                marker,
                "workflow_id",
                query.workflowId() == null ? null : query.workflowId().toString(),
                "");
        text(where, args, marker, "dispatch_key", query.dispatchKey(), "");
        if (query.olderThan() != null) {
            args.add(EpochNanos.of(query.olderThan(), "query.olderThan"));
            where.add(STATUS_TIME + " < " + marker.apply(args.size()));
        }
        if (query.afterKey() != null) {
            args.add(query.afterKey());
            where.add("dispatch_key" + collate + " > " + marker.apply(args.size()));
        }
        StringBuilder sql = new StringBuilder("SELECT ").append(columns).append(" FROM outbox");
        if (!where.isEmpty()) {
            sql.append(" WHERE ").append(String.join(" AND ", where));
        }
        args.add((long) query.limit());
        sql.append(" ORDER BY dispatch_key").append(collate).append(" LIMIT ").append(marker.apply(args.size()));
        return new Statement(sql.toString(), args);
    }

    private static void text(
            List<String> where,
            List<Object> args,
            IntFunction<String> marker,
            String column,
            String value,
            String collate) {
        if (value != null) {
            args.add(value);
            where.add(column + collate + " = " + marker.apply(args.size()));
        }
    }

    /**
     * Checks the arguments of {@code countByRoute}.
     *
     * @param dueBy the due bound
     * @param claimedBefore the stale bound
     * @param cap the cap
     * @return the two bounds in epoch nanoseconds
     */
    public static long[] countArguments(Instant dueBy, Instant claimedBefore, int cap) {
        long due = EpochNanos.of(dueBy, "dueBy");
        long stale = EpochNanos.of(claimedBefore, "claimedBefore");
        requireCap(cap);
        return new long[] {due, stale};
    }

    /**
     * Checks the arguments of {@code routeActivity}.
     *
     * @param dueBy the due bound
     * @param cap the cap
     * @return the due bound in epoch nanoseconds
     */
    public static long activityArguments(Instant dueBy, int cap) {
        long due = EpochNanos.of(dueBy, "dueBy");
        requireCap(cap);
        return due;
    }

    private static void requireCap(int cap) {
        if (cap < 1 || cap > OutboxQuery.MAX_COUNT_CAP) {
            throw new InvalidArgumentException(
                    "cap", "must be between 1 and " + OutboxQuery.MAX_COUNT_CAP + ", was " + cap);
        }
    }

    /** The three reads of {@code routeActivity} (O68), each over at most {@code cap} rows from the outbox's edge. */
    public enum Activity {
        /** The oldest due rows; arguments: the due bound, the cap. */
        OLDEST_DUE(
                "MIN",
                "visible_after",
                "SELECT namespace, task_queue, node, visible_after FROM outbox "
                        + "WHERE status = 'pending' AND visible_after <= {1} ORDER BY visible_after LIMIT {2}",
                ""),
        /** The newest claims; argument: the cap. */
        LAST_CLAIMED(
                "MAX",
                "claimed_at",
                "SELECT namespace, task_queue, node, claimed_at FROM outbox "
                        + "WHERE status = 'claimed' AND claimed_at IS NOT NULL ORDER BY claimed_at DESC LIMIT {1}",
                ""),
        /**
         * The newest settles, cancellations among them (the settled rows' index covers all three
         * statuses), of which only done and failed count; argument: the cap.
         */
        LAST_SETTLED(
                "MAX",
                "settled_at",
                "SELECT namespace, task_queue, node, status, settled_at FROM outbox "
                        + "WHERE status IN ('done', 'failed', 'cancelled') AND settled_at IS NOT NULL "
                        + "ORDER BY settled_at DESC LIMIT {1}",
                " WHERE status <> 'cancelled'");

        private final String aggregate;
        private final String column;
        private final String sample;
        private final String where;

        Activity(String aggregate, String column, String sample, String where) {
            this.aggregate = aggregate;
            this.column = column;
            this.sample = sample;
            this.where = where;
        }

        /**
         * @param marker the bind markers
         * @return the statement: route columns and the instant, in epoch nanoseconds, per route
         */
        public String sql(IntFunction<String> marker) {
            String inner = sample.replace("{1}", marker.apply(1)).replace("{2}", marker.apply(2));
            return "SELECT namespace, task_queue, node, " + aggregate + "(" + column + ") FROM (" + inner + ") sample"
                    + where + " GROUP BY namespace, task_queue, node";
        }
    }

    /**
     * One grouped row of an {@link Activity} read.
     *
     * @param activity the read
     * @param namespace the namespace
     * @param taskQueue the task queue
     * @param node the node, null when unpinned
     * @param nanos the instant, epoch nanoseconds
     */
    public record ActivityRow(Activity activity, String namespace, String taskQueue, String node, long nanos) {}

    /**
     * Folds the grouped rows of the three reads into the answer.
     *
     * @param found the grouped rows
     * @return the activity per route, routes in code-point order
     */
    public static List<OutboxRouteActivity> foldActivity(List<ActivityRow> found) {
        Map<ClaimScope, Instant[]> byRoute = new LinkedHashMap<>();
        for (ActivityRow r : found) {
            ClaimScope route = route(r.namespace(), r.taskQueue(), r.node());
            byRoute.computeIfAbsent(route, k -> new Instant[3])[r.activity().ordinal()] =
                    EpochNanos.toInstant(r.nanos());
        }
        List<OutboxRouteActivity> out = new ArrayList<>();
        byRoute.forEach((route, at) -> out.add(new OutboxRouteActivity(route, at[0], at[1], at[2])));
        out.sort(Comparator.comparing(OutboxRouteActivity::route, ROUTE_ORDER));
        return out;
    }

    /**
     * The count of one status: route columns, rows, aged rows (due or stale), over at most
     * {@code cap} rows of the status. Its arguments are the age bound (pending and claimed only) then
     * the cap.
     *
     * @param status the status
     * @param marker the bind markers
     * @return the statement text
     */
    public static String countSql(OutboxStatus status, IntFunction<String> marker) {
        String aged;
        int next = 1;
        if (status == OutboxStatus.PENDING) {
            aged = "CASE WHEN visible_after <= " + marker.apply(next++) + " THEN 1 ELSE 0 END";
        } else if (status == OutboxStatus.CLAIMED) {
            aged = "CASE WHEN claimed_at < " + marker.apply(next++) + " THEN 1 ELSE 0 END";
        } else {
            aged = "0";
        }
        return "SELECT namespace, task_queue, node, count(*), sum(aged) FROM (SELECT namespace, task_queue, node, "
                + aged + " AS aged FROM outbox WHERE status = '" + status.token() + "' LIMIT " + marker.apply(next)
                + ") sample GROUP BY namespace, task_queue, node";
    }

    /**
     * One grouped row of {@link #countSql}.
     *
     * @param status the status counted
     * @param namespace the namespace
     * @param taskQueue the task queue
     * @param node the node, null when unpinned
     * @param rows the rows
     * @param aged the due or stale rows
     */
    public record CountRow(
            OutboxStatus status, String namespace, String taskQueue, String node, long rows, long aged) {}

    /**
     * Folds the grouped rows of every status into the answer.
     *
     * @param found the grouped rows
     * @param cap the cap each status was read with
     * @return the counts, routes in code-point order
     */
    public static OutboxCounts fold(List<CountRow> found, int cap) {
        Map<ClaimScope, long[]> byRoute = new LinkedHashMap<>();
        Map<OutboxStatus, Long> totals = new LinkedHashMap<>();
        for (CountRow r : found) {
            ClaimScope route = route(r.namespace(), r.taskQueue(), r.node());
            long[] c = byRoute.computeIfAbsent(route, k -> new long[7]);
            switch (r.status()) {
                case PENDING -> {
                    c[0] += r.rows();
                    c[1] += r.aged();
                }
                case CLAIMED -> {
                    c[2] += r.rows();
                    c[3] += r.aged();
                }
                case DONE -> c[4] += r.rows();
                case FAILED -> c[5] += r.rows();
                case CANCELLED -> c[6] += r.rows();
                default -> throw new IllegalStateException(r.status().toString());
            }
            totals.merge(r.status(), r.rows(), Long::sum);
        }
        Set<OutboxStatus> capped = EnumSet.noneOf(OutboxStatus.class);
        totals.forEach((status, total) -> {
            if (total >= cap) {
                capped.add(status);
            }
        });
        List<OutboxRouteCounts> routes = new ArrayList<>();
        byRoute.forEach(
                (route, c) -> routes.add(new OutboxRouteCounts(route, c[0], c[1], c[2], c[3], c[4], c[5], c[6])));
        routes.sort(Comparator.comparing(OutboxRouteCounts::route, ROUTE_ORDER));
        return new OutboxCounts(routes, capped, cap);
    }

    /** A stored route; rows that predate namespaces or task queues have none stored (O1). */
    private static ClaimScope route(String namespace, String taskQueue, String node) {
        return new ClaimScope(
                Objects.requireNonNullElse(namespace, "default"),
                Objects.requireNonNullElse(taskQueue, "default"),
                node);
    }
}
