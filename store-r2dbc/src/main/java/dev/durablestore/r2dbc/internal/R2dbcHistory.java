package dev.durablestore.r2dbc.internal;

import dev.durablestore.api.BackendException;
import dev.durablestore.api.RunSummary;
import dev.durablestore.api.SequenceConflictException;
import dev.durablestore.api.SerializationException;
import dev.durablestore.api.StoreException;
import dev.durablestore.api.UndecodableEvent;
import dev.durablestore.api.WorkflowFilter;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.WorkflowStatus;
import dev.durablestore.api.WorkflowSummary;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.event.EventKind;
import dev.durablestore.api.event.WorkflowFailed;
import dev.durablestore.core.internal.EventEncoder;
import dev.durablestore.core.internal.OutboxRowEncoder;
import dev.durablestore.core.internal.StepEncoder;
import dev.durablestore.core.internal.StoredRows;
import dev.durablestore.core.projection.HistoryProjection;
import dev.durablestore.core.projection.ParentIndex;
import dev.durablestore.core.storage.HistoryStorage;
import io.r2dbc.spi.Connection;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** The event history over R2DBC (contract groups E and R). */
final class R2dbcHistory implements HistoryStorage {

    private static final String READ_HISTORY =
            "SELECT workflow_id, seq, event FROM events WHERE workflow_id = $1 ORDER BY seq";
    private static final String READ_FROM =
            "SELECT workflow_id, seq, event FROM events WHERE workflow_id = $1 AND seq >= $2 ORDER BY seq";
    private static final String WORKFLOW_IDS = "SELECT DISTINCT workflow_id FROM events ORDER BY workflow_id";
    /** Each workflow with the kind of its last lifecycle event (NULL without one), in one snapshot. */
    private static final String LAST_LIFECYCLE = "SELECT d.workflow_id, (SELECT l.kind FROM events l "
            + "WHERE l.workflow_id = d.workflow_id AND l.queryable = 1 AND l.kind <> 'ChildWorkflowStarted' "
            + "ORDER BY l.seq DESC LIMIT 1) FROM (SELECT DISTINCT workflow_id FROM events) d ORDER BY d.workflow_id";

    private static final String QUERYABLE =
            "SELECT workflow_id, seq, event FROM events WHERE queryable = 1 ORDER BY workflow_id, seq";
    private static final String QUERYABLE_OF =
            "SELECT workflow_id, seq, event FROM events WHERE queryable = 1 AND workflow_id = $1 ORDER BY seq";
    /** The events that name a workflow as a child (R30), from the projection index (S3). */
    private static final String CHILD_STARTS_OF = "SELECT workflow_id, seq, event FROM events WHERE queryable = 1 "
            + "AND kind = 'ChildWorkflowStarted' AND child_workflow_id = $1 ORDER BY workflow_id, seq";

    private static final String ALL_EVENTS = "SELECT workflow_id, seq, event FROM events ORDER BY workflow_id, seq";

    private static final int HEAD_REREADS = 3;
    private static final Comparator<WorkflowSummary> QUERY_ORDER =
            Comparator.comparing(WorkflowSummary::startedAt).thenComparing(WorkflowSummary::workflowId);

    private static final String STEP = "commitStep";

    private final Db db;
    private final EventRows events;
    private final OutboxRows outboxRows;
    private final Clock clock;
    private final Runnable wake;
    /** Group commit of appends, on PostgreSQL; {@code null} on H2, whose writes take turns anyway. */
    private final GroupedAppends grouped;

    /**
     * @param db database access
     * @param events event row codec
     * @param outboxRows outbox row codec
     * @param clock the store clock
     * @param wake called after a commit that staged outbox rows
     */
    R2dbcHistory(Db db, EventRows events, OutboxRows outboxRows, Clock clock, Runnable wake) {
        this.db = db;
        this.events = events;
        this.outboxRows = outboxRows;
        this.clock = clock;
        this.wake = wake;
        this.grouped = db.dialect().postgres() ? new GroupedAppends(db, clock, this::conflictOrFailure, wake) : null;
    }

    /**
     * E3–E22: the guard, contiguity, the inserts and
     * the rows in one transaction: on PostgreSQL one guarded statement shared with the concurrent
     * appends of this store ({@link GroupedAppends}), elsewhere a transaction of its own. A unique
     * violation from a racing writer becomes a sequence conflict once the head is re-read (E15).
     * The claim streams are woken after a commit that staged rows.
     */
    @Override
    public Mono<Void> append(
            WorkflowId workflowId,
            long expectedSeq,
            List<EventEncoder.Encoded> encoded,
            List<OutboxRowEncoder.Encoded> staged) {
        return Mono.defer(() -> {
            String w = workflowId.toString();
            String name = staged.isEmpty() ? "append" : "appendWithOutbox";
            boolean groupable = grouped != null && contiguous(encoded, expectedSeq);
            Mono<Void> write = groupable
                    ? grouped.submit(
                            new GroupedAppends.Append(name, w, expectedSeq, encoded, OutboxRows.firstPerKey(staged)))
                    : db.write(
                            name,
                            c -> appendIn(c, w, expectedSeq, encoded, staged),
                            (c, failure) -> normalise(c, name, w, expectedSeq, failure));
            // the grouped appends wake once per statement themselves
            return staged.isEmpty() || groupable ? write : write.doOnSuccess(v -> wake.run());
        });
    }

    /**
     * E15 for an append written alone by {@link GroupedAppends}: a unique violation (a writer on
     * another node took the sequence) becomes a conflict once the head is re-read.
     */
    private Mono<Void> conflictOrFailure(GroupedAppends.Append a, Mono<Void> write) {
        return write.onErrorResume(
                Failures::isUniqueViolation,
                mapped -> db.read(
                                a.name(),
                                c -> normalise(c, a.name(), a.workflowId(), a.expectedSeq(), driverFailure(mapped)))
                        .flatMap(Mono::error));
    }

    /** @return the driver's failure inside the store's mapping of it ({@link Failures#backend}) */
    private static Throwable driverFailure(Throwable mapped) {
        return mapped.getCause() == null ? mapped : mapped.getCause();
    }

    private Mono<Void> appendIn(
            Connection c,
            String w,
            long expectedSeq,
            List<EventEncoder.Encoded> encoded,
            List<OutboxRowEncoder.Encoded> staged) {
        return EventRows.head(c, w).flatMap(head -> {
            if (head != expectedSeq) {
                return Mono.error(new SequenceConflictException(expectedSeq, head)); // E3, E4: the guard first
            }
            for (int i = 0; i < encoded.size(); i++) {
                long wanted = expectedSeq + 1 + i;
                long actual = encoded.get(i).seq();
                if (actual != wanted) {
                    return Mono.error(new BackendException("event sequence must be contiguous: workflow " + w
                            + " expected seq " + wanted + " but event " + i + " has seq " + actual)); // E6
                }
            }
            Mono<Void> inserts = EventRows.insert(c, w, encoded);
            if (!staged.isEmpty()) {
                inserts = inserts.then(OutboxRows.insertOrIgnore(c, staged, Times.nowNanos(clock.instant())))
                        .then();
            }
            return inserts;
        });
    }

    /**
     * W1–W12: on PostgreSQL one guarded statement shared with the concurrent appends and steps of
     * this store ({@link GroupedAppends}); elsewhere one transaction: the guard and the events as
     * {@link #appendIn}, then
     * the settles (in key order, so concurrent steps lock rows in one order), each fenced by its
     * claim, then the timers. A stale claim fails the statement that finds it, which rolls the
     * whole step back. The claim streams are woken after a commit that staged or retried rows.
     */
    @Override
    public Mono<Void> commitStep(StepEncoder.Encoded e) {
        return Mono.defer(() -> {
            if (grouped != null && contiguous(e.events(), e.expectedSeq())) {
                // with the concurrent appends and steps of this store, one statement (it wakes itself)
                return grouped.submit(new GroupedAppends.Append(
                        STEP,
                        e.workflowId(),
                        e.expectedSeq(),
                        e.events(),
                        OutboxRows.firstPerKey(e.rows()),
                        e.settles(),
                        e.timers()));
            }
            Mono<Void> write = db.write(
                    STEP,
                    c -> stepIn(c, e),
                    (c, failure) -> normalise(c, STEP, e.workflowId(), e.expectedSeq(), failure));
            return e.wakesClaimers() ? write.doOnSuccess(v -> wake.run()) : write;
        });
    }

    private Mono<Void> stepIn(Connection c, StepEncoder.Encoded e) {
        long now = Times.nowNanos(clock.instant());
        String upsert = db.dialect().timerUpsert();
        return appendIn(c, e.workflowId(), e.expectedSeq(), e.events(), e.rows())
                .thenMany(Flux.fromIterable(e.settles()).concatMap(s -> FencedSettles.apply(c, s, now, STEP)))
                .thenMany(Flux.fromIterable(e.timers())
                        .concatMap(t -> t.fireAtNanos() == null
                                ? Sql.update(c, R2dbcTimers.DELETE, e.workflowId(), t.timerId())
                                : Sql.update(c, upsert, e.workflowId(), t.timerId(), t.fireAtNanos())))
                .then();
    }

    /** E6: whether the events carry the sequences {@code expectedSeq + 1, + 2, …}. */
    private static boolean contiguous(List<EventEncoder.Encoded> encoded, long expectedSeq) {
        for (int i = 0; i < encoded.size(); i++) {
            if (encoded.get(i).seq() != expectedSeq + 1 + i) {
                return false;
            }
        }
        return true;
    }

    /** E15: a storage failure is a conflict when the committed head has moved away from the guard. */
    private static Mono<Throwable> normalise(Connection c, String name, String w, long expectedSeq, Throwable failure) {
        if (failure instanceof StoreException se) {
            return Mono.just(se);
        }
        return EventRows.head(c, w)
                .retry(HEAD_REREADS - 1)
                .<Throwable>map(head -> head != expectedSeq
                        ? new SequenceConflictException(expectedSeq, head)
                        : Failures.backend(name, failure))
                .onErrorResume(reread -> {
                    failure.addSuppressed(reread);
                    return Mono.just(Failures.backend(name, failure));
                });
    }

    /** R1, R2. */
    @Override
    public Flux<Event> readHistory(WorkflowId workflowId) {
        String w = workflowId.toString();
        return db.stream("readHistory", c -> Sql.query(c, READ_HISTORY, EventRows::stored, w))
                .map(events::decode);
    }

    /** R3–R8: a range scan of the primary key (S28). */
    @Override
    public Flux<Event> readHistoryFrom(WorkflowId workflowId, long fromSeq) {
        String w = workflowId.toString();
        return db.stream("readHistoryFrom", c -> Sql.query(c, READ_FROM, EventRows::stored, w, fromSeq))
                .map(events::decode);
    }

    /** E2. */
    @Override
    public Mono<Long> readHead(WorkflowId workflowId) {
        String w = workflowId.toString();
        return db.read("readHead", c -> EventRows.head(c, w));
    }

    /** R9. */
    @Override
    public Flux<WorkflowId> listWorkflowIds() {
        return db.stream("listWorkflowIds", c -> Sql.query(c, WORKFLOW_IDS, row -> Sql.textAt(row, 0)))
                .map(StoredRows::workflowId);
    }

    /**
     * The projected status (R10) is the one of the last lifecycle event, or RUNNING without one
     * (R11, R23), so only that kind is read per workflow, in one statement.
     */
    @Override
    public Flux<WorkflowId> listWithStatus(String name, WorkflowStatus wanted) {
        return db.stream(
                        name,
                        c -> Sql.query(c, LAST_LIFECYCLE, row -> new String[] {Sql.textAt(row, 0), Sql.textAt(row, 1)}))
                .<WorkflowId>handle((pair, sink) -> {
                    WorkflowStatus status = WorkflowStatus.RUNNING;
                    if (pair[1] != null) {
                        EventKind kind = EventKind.fromTypeName(pair[1]);
                        if (kind == null || !kind.isLifecycle()) {
                            sink.error(new SerializationException("stored event kind '" + pair[1] + "' of workflow "
                                    + pair[0] + " is not a lifecycle kind"));
                            return;
                        }
                        status = kind.projectedStatus();
                    }
                    if (status == wanted) {
                        sink.next(StoredRows.workflowId(pair[0]));
                    }
                });
    }

    /**
     * R24–R39. Projects from the queryable events (lifecycle plus {@code ChildWorkflowStarted});
     * only workflows whose current lease ended in {@code WorkflowFailed} need their full history,
     * for the failed step (R28). Both reads share one snapshot.
     */
    @Override
    public Flux<WorkflowSummary> query(WorkflowFilter filter) {
        return Mono.defer(() -> {
                    return db.readConsistent(
                            "query",
                            c -> Sql.query(c, QUERYABLE, EventRows::stored)
                                    .collectList()
                                    .flatMap(stored -> summarize(c, events.decodeAll(stored), filter)));
                })
                .flatMapMany(Flux::fromIterable);
    }

    /**
     * R24–R31 for one workflow: the summary {@link #query} projects for it, from its queryable
     * events, the {@code ChildWorkflowStarted} events naming it (its parent, R30) and, when its
     * current lease ended in {@code WorkflowFailed}, its full history (R28), in one snapshot.
     */
    @Override
    public Mono<WorkflowSummary> readSummary(WorkflowId workflowId) {
        String w = workflowId.toString();
        return db.readConsistent(
                "readSummary",
                c -> Sql.query(c, QUERYABLE_OF, EventRows::stored, w)
                        .collectList()
                        .flatMap(stored -> {
                            List<Event> queryable = events.decodeAll(stored);
                            if (queryable.isEmpty()) {
                                return Mono.<WorkflowSummary>empty(); // unknown, or nothing a summary is made of
                            }
                            boolean failed = HistoryProjection.currentLeaseTerminal(queryable)
                                            .orElse(null)
                                    instanceof WorkflowFailed;
                            // one statement after the other on the snapshot's connection
                            return Sql.query(c, CHILD_STARTS_OF, EventRows::stored, w)
                                    .collectList()
                                    .flatMap(starts -> {
                                        WorkflowId parent = new ParentIndex()
                                                .acceptAll(events.decodeAll(starts))
                                                .parentOf(workflowId)
                                                .orElse(null);
                                        Mono<List<Event>> history = !failed
                                                ? Mono.just(queryable)
                                                : Mono.defer(() -> Sql.query(c, READ_HISTORY, EventRows::stored, w)
                                                        .collectList()
                                                        .map(events::decodeAll));
                                        return history.flatMap(h ->
                                                Mono.justOrEmpty(HistoryProjection.summarize(workflowId, h, parent)));
                                    });
                        }));
    }

    private Mono<List<WorkflowSummary>> summarize(Connection c, List<Event> queryable, WorkflowFilter filter) {
        Map<WorkflowId, List<Event>> byWorkflow = new TreeMap<>();
        ParentIndex parents = new ParentIndex();
        for (Event e : queryable) {
            byWorkflow.computeIfAbsent(e.workflowId(), k -> new ArrayList<>()).add(e);
            parents.accept(e);
        }
        return Flux.fromIterable(byWorkflow.entrySet())
                .concatMap(entry -> {
                    List<Event> history = entry.getValue();
                    if (HistoryProjection.currentLeaseTerminal(history).orElse(null) instanceof WorkflowFailed) {
                        return Sql.query(
                                        c,
                                        READ_HISTORY,
                                        EventRows::stored,
                                        entry.getKey().toString())
                                .collectList()
                                .map(full -> Map.entry(entry.getKey(), events.decodeAll(full)));
                    }
                    return Mono.just(entry);
                })
                .<WorkflowSummary>handle((entry, sink) -> HistoryProjection.summarize(
                                entry.getKey(),
                                entry.getValue(),
                                parents.parentOf(entry.getKey()).orElse(null))
                        .filter(filter::matches)
                        .ifPresent(sink::next))
                .collectList()
                .map(out -> {
                    List<WorkflowSummary> sorted = new ArrayList<>(out);
                    sorted.sort(QUERY_ORDER);
                    return sorted;
                });
    }

    /** R40–R45. */
    @Override
    public Mono<List<RunSummary>> readRunChain(WorkflowId workflowId) {
        String w = workflowId.toString();
        return db.read(
                "readRunChain",
                c -> Sql.query(c, QUERYABLE_OF, EventRows::stored, w)
                        .collectList()
                        .map(stored -> HistoryProjection.runChain(events.decodeAll(stored))));
    }

    /** S25: decodes every event in (workflow id, seq) order and fails at the first that does not. */
    @Override
    public Flux<UndecodableEvent> findUndecodableEvents() {
        return db.stream("findUndecodableEvents", c -> Sql.query(c, ALL_EVENTS, EventRows::stored))
                .handle((stored, sink) -> {
                    try {
                        events.decode(stored);
                    } catch (SerializationException e) {
                        sink.next(new UndecodableEvent(
                                String.valueOf(stored.workflowId()),
                                stored.seq() == null ? 0L : stored.seq(),
                                e.getMessage()));
                    }
                });
    }

    @Override
    public Mono<Void> validateStoredEvents() {
        return db.stream("validateStoredEvents", c -> Sql.query(c, ALL_EVENTS, EventRows::stored))
                .doOnNext(events::decode)
                .then();
    }
}
