package dev.durablestore.r2dbc.internal;

import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.EventKind;
import dev.durablestore.core.storage.RetentionStorage;
import io.r2dbc.spi.Connection;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Retention and purge over R2DBC (D1–D11): the walk of closed workflows in one read-only snapshot,
 * the deletes of one call in one short transaction, each workflow by its id through the primary
 * keys and {@code outbox_workflow}, with no lock beyond the rows it deletes. The transaction locks
 * the workflow's outbox rows and checks its head and rows again before deleting (D6).
 *
 * <p>D11: PostgreSQL inserts of a new key do not wait for deletes, so an append whose guard read
 * the head before this transaction deleted the history can commit its events after it. After the
 * commit the deleted workflows are read again; a workflow that has events from a sequence above 1
 * got such a late append, which is kept, logged in one line and counted.
 */
final class R2dbcRetention implements RetentionStorage {

    private static final Logger log = LoggerFactory.getLogger(R2dbcRetention.class);

    /** Workflow ids bound per statement of the walk. */
    private static final int IDS_PER_STATEMENT = 1_000;

    /** The terminal kinds (M12) as SQL literals: constants of the code, never user text. */
    private static final String TERMINAL_KINDS = Arrays.stream(EventKind.values())
            .filter(EventKind::isTerminal)
            .map(k -> "'" + k.typeName() + "'")
            .collect(Collectors.joining(", ", "(", ")"));

    /** D1: each workflow whose last lifecycle event is terminal, with its instant, after a cursor. */
    private static final String CLOSED = "SELECT e.workflow_id, e.recorded_at FROM events e "
            + "WHERE e.queryable = 1 AND e.workflow_id > $1 AND e.kind IN " + TERMINAL_KINDS
            + " AND e.recorded_at < $2"
            + " AND NOT EXISTS (SELECT 1 FROM events l WHERE l.workflow_id = e.workflow_id AND l.queryable = 1 "
            + "AND l.seq > e.seq AND l.kind <> 'ChildWorkflowStarted') ORDER BY e.workflow_id LIMIT $3";

    private static final String LIVE = "status IN ('pending', 'claimed')";

    private final Db db;

    /** @param db database access */
    R2dbcRetention(Db db) {
        this.db = db;
    }

    @Override
    public Mono<List<ClosedWorkflow>> scanClosed(String afterWorkflowId, long closedBeforeNanos, int limit) {
        return db.readConsistent(
                "sweepRetention",
                c -> Sql.query(
                                c,
                                CLOSED,
                                row -> new Object[] {Sql.textAt(row, 0), Sql.longAt(row, 1)},
                                afterWorkflowId,
                                closedBeforeNanos,
                                limit)
                        .collectList()
                        .flatMap(found -> describe(c, found)));
    }

    /** D2: heads and rows of the workflows found, {@value #IDS_PER_STATEMENT} ids per statement. */
    private static Mono<List<ClosedWorkflow>> describe(Connection c, List<Object[]> found) {
        List<String> ids = new ArrayList<>(found.size());
        for (Object[] f : found) {
            ids.add((String) f[0]);
        }
        Map<String, Long> heads = new HashMap<>();
        Map<String, long[]> rows = new HashMap<>(); // rows, live
        Map<String, Set<String>> namespaces = new HashMap<>();
        List<List<String>> chunks = new ArrayList<>();
        for (int i = 0; i < ids.size(); i += IDS_PER_STATEMENT) {
            chunks.add(ids.subList(i, Math.min(ids.size(), i + IDS_PER_STATEMENT)));
        }
        return Flux.fromIterable(chunks)
                .concatMap(chunk -> {
                    Sql.Params p = new Sql.Params();
                    String in = p.list(chunk);
                    Mono<Void> readHeads = Sql.query(
                                    c,
                                    "SELECT workflow_id, max(seq) FROM events WHERE workflow_id IN " + in
                                            + " GROUP BY workflow_id",
                                    row -> {
                                        String w = Sql.textAt(row, 0);
                                        heads.put(w, Sql.longAt(row, 1));
                                        return w;
                                    },
                                    p.values())
                            .then();
                    Mono<Void> readRows = Sql.query(
                                    c,
                                    "SELECT workflow_id, namespace, count(*), sum(CASE WHEN " + LIVE
                                            + " THEN 1 ELSE 0 END) FROM outbox WHERE workflow_id IN " + in
                                            + " GROUP BY workflow_id, namespace",
                                    row -> {
                                        String w = Sql.textAt(row, 0);
                                        namespaces
                                                .computeIfAbsent(w, k -> new TreeSet<>())
                                                .add(Sql.textAt(row, 1));
                                        long[] counts = rows.computeIfAbsent(w, k -> new long[2]);
                                        counts[0] += Sql.longAt(row, 2);
                                        counts[1] += Sql.longAt(row, 3);
                                        return w;
                                    },
                                    p.values())
                            .then();
                    return readHeads.then(readRows);
                })
                .then(Mono.fromSupplier(() -> {
                    List<ClosedWorkflow> closed = new ArrayList<>(found.size());
                    for (Object[] f : found) {
                        String w = (String) f[0];
                        long[] counts = rows.getOrDefault(w, new long[2]);
                        closed.add(new ClosedWorkflow(
                                w,
                                heads.getOrDefault(w, 0L),
                                (Long) f[1],
                                namespaces.getOrDefault(w, Set.of()),
                                counts[0],
                                counts[1]));
                    }
                    return closed;
                }));
    }

    /** D5, D6 in one short transaction; D11 checked after its commit. */
    @Override
    public Mono<Deleted> deleteClosed(List<ClosedWorkflow> due) {
        return Mono.defer(() -> {
            List<String> deleted = new ArrayList<>(); // per subscription: a retried step starts afresh
            return db.write(
                            "sweepRetention",
                            c -> Flux.fromIterable(due)
                                    .concatMap(w -> deleteGuarded(c, w).doOnNext(d -> {
                                        if (d.workflows() > 0) {
                                            deleted.add(w.workflowId());
                                        }
                                    }))
                                    .reduce(Deleted.NONE, Deleted::plus))
                    .flatMap(d -> deleted.isEmpty()
                            ? Mono.just(d)
                            : lateAppends(deleted).map(late -> d.plus(new Deleted(0, 0, 0, 0, late))));
        });
    }

    /** D6: the rows locked, then the head and rows compared with what the walk saw. */
    private static Mono<Deleted> deleteGuarded(Connection c, ClosedWorkflow w) {
        String id = w.workflowId();
        Mono<long[]> rows = Sql.query(
                        c, "SELECT status FROM outbox WHERE workflow_id = $1 FOR UPDATE", row -> Sql.textAt(row, 0), id)
                .collectList()
                .map(statuses -> new long[] {
                    statuses.size(),
                    statuses.stream()
                            .filter(s -> s.equals("pending") || s.equals("claimed"))
                            .count()
                });
        return rows.flatMap(counts -> {
            if (counts[0] != w.outboxRows() || counts[1] != 0) {
                return Mono.just(Deleted.NONE); // given rows or a live row since the walk: kept
            }
            return EventRows.head(c, id)
                    .flatMap(head -> head != w.head()
                            ? Mono.just(Deleted.NONE) // appended to or reopened since the walk: kept
                            : delete(c, id, head));
        });
    }

    private static Mono<Deleted> delete(Connection c, String w, long upToSeq) {
        // one statement after the other: a connection runs one at a time
        return Sql.update(c, "DELETE FROM events WHERE workflow_id = $1 AND seq <= $2", w, upToSeq)
                .flatMap(events -> Sql.update(c, "DELETE FROM timers WHERE workflow_id = $1", w)
                        .flatMap(timers -> Sql.update(c, "DELETE FROM outbox WHERE workflow_id = $1", w)
                                .map(rows ->
                                        new Deleted(events + timers + rows > 0 ? 1 : 0, events, timers, rows, 0))));
    }

    /** D11: the deleted workflows that have events again, from a sequence above 1: late appends. */
    private Mono<Long> lateAppends(List<String> deleted) {
        return db.read("sweepRetention", c -> {
            Sql.Params p = new Sql.Params();
            String in = p.list(deleted);
            return Sql.query(
                            c,
                            "SELECT workflow_id, min(seq), count(*) FROM events WHERE workflow_id IN " + in
                                    + " GROUP BY workflow_id",
                            row -> new Object[] {Sql.textAt(row, 0), Sql.longAt(row, 1), Sql.longAt(row, 2)},
                            p.values())
                    .filter(r -> (Long) r[1] > 1)
                    .doOnNext(r -> log.warn(
                            "retention deleted workflow {} while an append wrote {} events from seq {}: they are kept"
                                    + " without the history before them (contract D11)",
                            r[0],
                            r[2],
                            r[1]))
                    .count();
        });
    }

    /** D8: every event, timer and row of the workflow, in one transaction. */
    @Override
    public Mono<Deleted> purge(WorkflowId workflowId) {
        String w = workflowId.toString();
        return db.write("purgeWorkflow", c -> delete(c, w, Long.MAX_VALUE));
    }
}
