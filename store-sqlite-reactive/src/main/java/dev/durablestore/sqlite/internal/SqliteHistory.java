package dev.durablestore.sqlite.internal;

import dev.durablestore.api.RunSummary;
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
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** The event history of the SQLite store (contract groups E and R). */
final class SqliteHistory implements HistoryStorage {

    private static final String READ_HISTORY =
            "SELECT workflow_id, seq, event FROM events WHERE workflow_id = ? ORDER BY seq";
    private static final String READ_FROM =
            "SELECT workflow_id, seq, event FROM events WHERE workflow_id = ? AND seq >= ? ORDER BY seq";
    private static final String WORKFLOW_IDS = "SELECT DISTINCT workflow_id FROM events ORDER BY workflow_id";
    /** The last lifecycle kind of each workflow, read from the projection index (S3). */
    private static final String LIFECYCLE = "SELECT workflow_id, kind FROM events WHERE queryable = 1 "
            + "AND kind <> 'ChildWorkflowStarted' ORDER BY workflow_id, seq";

    private static final String QUERYABLE =
            "SELECT workflow_id, seq, event FROM events WHERE queryable = 1 ORDER BY workflow_id, seq";
    private static final String QUERYABLE_OF =
            // named: without statistics SQLite would read the whole history by its primary key
            "SELECT workflow_id, seq, event FROM events INDEXED BY events_queryable "
                    + "WHERE queryable = 1 AND workflow_id = ? ORDER BY seq";
    /** The events that name a workflow as a child (R30), from the projection index (S3). */
    private static final String CHILD_STARTS_OF = "SELECT workflow_id, seq, event FROM events WHERE queryable = 1 "
            + "AND kind = 'ChildWorkflowStarted' AND child_workflow_id = ? ORDER BY workflow_id, seq";

    private static final String ALL_EVENTS = "SELECT workflow_id, seq, event FROM events ORDER BY workflow_id, seq";

    private static final Comparator<WorkflowSummary> QUERY_ORDER =
            Comparator.comparing(WorkflowSummary::startedAt).thenComparing(WorkflowSummary::workflowId);

    private final Writer writer;
    private final ReaderPool readers;
    private final EventRows events;
    private final OutboxRows outboxRows;
    private final Clock clock;
    private final HeadCache heads = new HeadCache(100_000);

    /**
     * @param writer the single writer
     * @param readers the reader pool
     * @param events event row codec
     * @param outboxRows outbox row codec
     * @param clock the store clock
     */
    SqliteHistory(Writer writer, ReaderPool readers, EventRows events, OutboxRows outboxRows, Clock clock) {
        this.writer = writer;
        this.readers = readers;
        this.events = events;
        this.outboxRows = outboxRows;
        this.clock = clock;
        writer.addListener(heads);
    }

    /** @return the cache of committed heads, which a delete of events must update (D5, D8) */
    HeadCache heads() {
        return heads;
    }

    /**
     * E3–E22: one command of the writer.
     *
     * @param workflowId workflow
     * @param expectedSeq guard
     * @param encoded events
     * @param staged outbox rows (empty for a plain append)
     * @return completion
     */
    @Override
    public Mono<Void> append(
            WorkflowId workflowId,
            long expectedSeq,
            List<EventEncoder.Encoded> encoded,
            List<OutboxRowEncoder.Encoded> staged) {
        return writer.submit(new AppendCommand(workflowId.toString(), expectedSeq, encoded, staged, clock, heads));
    }

    /**
     * W1–W12: one step in one writer transaction.
     *
     * @param step the step
     * @return completion
     */
    @Override
    public Mono<Void> commitStep(StepEncoder.Encoded step) {
        return writer.submit(new StepCommand(step, clock, heads));
    }

    /** R1, R2. @param workflowId workflow @return events */
    @Override
    public Flux<Event> readHistory(WorkflowId workflowId) {
        return Mono.defer(() -> {
                    String w = workflowId.toString();
                    return readers.read("readHistory", c -> {
                        PreparedStatement ps = c.prepare(READ_HISTORY);
                        ps.setString(1, w);
                        try (ResultSet rs = ps.executeQuery()) {
                            return events.decodeAll(rs);
                        }
                    });
                })
                .flatMapMany(Flux::fromIterable);
    }

    /** R3–R8: a range scan of the primary key (S28). @param workflowId w @param fromSeq from @return events */
    @Override
    public Flux<Event> readHistoryFrom(WorkflowId workflowId, long fromSeq) {
        return Mono.defer(() -> {
                    String w = workflowId.toString();
                    return readers.read("readHistoryFrom", c -> {
                        PreparedStatement ps = c.prepare(READ_FROM);
                        ps.setString(1, w);
                        ps.setLong(2, fromSeq);
                        try (ResultSet rs = ps.executeQuery()) {
                            return events.decodeAll(rs);
                        }
                    });
                })
                .flatMapMany(Flux::fromIterable);
    }

    /** E2. @param workflowId w @return head */
    @Override
    public Mono<Long> readHead(WorkflowId workflowId) {
        String w = workflowId.toString();
        return readers.read("readHead", c -> EventRows.head(c, w));
    }

    /** R9. @return ids */
    @Override
    public Flux<WorkflowId> listWorkflowIds() {
        return readers.read("listWorkflowIds", SqliteHistory::workflowIds).flatMapMany(Flux::fromIterable);
    }

    private static List<WorkflowId> workflowIds(DbConnection c) throws SQLException {
        List<WorkflowId> ids = new ArrayList<>();
        try (ResultSet rs = c.prepare(WORKFLOW_IDS).executeQuery()) {
            while (rs.next()) {
                ids.add(StoredRows.workflowId(rs.getString(1)));
            }
        }
        return ids;
    }

    /**
     * The projected status (R10) is the one of the last lifecycle event, or RUNNING without one
     * (R11, R23), so only lifecycle kinds are read, from the covering projection index.
     */
    @Override
    public Flux<WorkflowId> listWithStatus(String name, WorkflowStatus wanted) {
        return readers.readConsistent(name, c -> {
                    Map<String, EventKind> last = new TreeMap<>();
                    try (ResultSet rs = c.prepare(LIFECYCLE).executeQuery()) {
                        while (rs.next()) {
                            String w = rs.getString(1);
                            EventKind kind = EventKind.fromTypeName(rs.getString(2));
                            if (kind == null || !kind.isLifecycle()) {
                                throw new dev.durablestore.api.SerializationException("stored event kind '"
                                        + rs.getString(2) + "' of workflow " + w + " is not a lifecycle kind");
                            }
                            last.put(w, kind);
                        }
                    }
                    List<WorkflowId> matching = new ArrayList<>();
                    for (WorkflowId id : workflowIds(c)) {
                        EventKind kind = last.get(id.toString());
                        WorkflowStatus status = kind == null ? WorkflowStatus.RUNNING : kind.projectedStatus();
                        if (status == wanted) {
                            matching.add(id);
                        }
                    }
                    return matching;
                })
                .flatMapMany(Flux::fromIterable);
    }

    /**
     * R24–R39. Projects from the queryable events (lifecycle plus {@code ChildWorkflowStarted});
     * only workflows whose current lease ended in {@code WorkflowFailed} need their full history,
     * for the failed step (R28).
     *
     * @param filter the filter
     * @return matching summaries ordered by start time then id
     */
    @Override
    public Flux<WorkflowSummary> query(WorkflowFilter filter) {
        return Mono.defer(() -> {
                    return readers.readConsistent("query", c -> {
                        Map<WorkflowId, List<Event>> byWorkflow = new TreeMap<>();
                        ParentIndex parents = new ParentIndex();
                        try (ResultSet rs = c.prepare(QUERYABLE).executeQuery()) {
                            for (Event e : events.decodeAll(rs)) {
                                byWorkflow
                                        .computeIfAbsent(e.workflowId(), k -> new ArrayList<>())
                                        .add(e);
                                parents.accept(e);
                            }
                        }
                        List<WorkflowSummary> out = new ArrayList<>();
                        for (Map.Entry<WorkflowId, List<Event>> entry : byWorkflow.entrySet()) {
                            WorkflowId id = entry.getKey();
                            List<Event> history = entry.getValue();
                            if (HistoryProjection.currentLeaseTerminal(history).orElse(null)
                                    instanceof WorkflowFailed) {
                                history = fullHistory(c, id);
                            }
                            HistoryProjection.summarize(
                                            id, history, parents.parentOf(id).orElse(null))
                                    .filter(filter::matches)
                                    .ifPresent(out::add);
                        }
                        out.sort(QUERY_ORDER);
                        return out;
                    });
                })
                .flatMapMany(Flux::fromIterable);
    }

    /**
     * R24–R31 for one workflow: the summary {@link #query} projects for it, from its queryable
     * events, the {@code ChildWorkflowStarted} events naming it (its parent, R30) and, when its
     * current lease ended in {@code WorkflowFailed}, its full history (R28), in one snapshot.
     *
     * @param workflowId the workflow
     * @return its summary, or empty when it has no {@code WorkflowStarted}
     */
    @Override
    public Mono<WorkflowSummary> readSummary(WorkflowId workflowId) {
        return Mono.defer(() -> {
            String w = workflowId.toString();
            return readers.readConsistent("readSummary", c -> {
                List<Event> history;
                PreparedStatement ps = c.prepare(QUERYABLE_OF);
                ps.setString(1, w);
                try (ResultSet rs = ps.executeQuery()) {
                    history = events.decodeAll(rs);
                }
                if (history.isEmpty()) {
                    return null; // unknown, or nothing a summary is made of
                }
                ParentIndex parents = new ParentIndex();
                PreparedStatement starts = c.prepare(CHILD_STARTS_OF);
                starts.setString(1, w);
                try (ResultSet rs = starts.executeQuery()) {
                    parents.acceptAll(events.decodeAll(rs));
                }
                if (HistoryProjection.currentLeaseTerminal(history).orElse(null) instanceof WorkflowFailed) {
                    history = fullHistory(c, workflowId);
                }
                return HistoryProjection.summarize(
                                workflowId,
                                history,
                                parents.parentOf(workflowId).orElse(null))
                        .orElse(null);
            });
        });
    }

    private List<Event> fullHistory(DbConnection c, WorkflowId id) throws SQLException {
        PreparedStatement ps = c.prepare(READ_HISTORY);
        ps.setString(1, id.toString());
        try (ResultSet rs = ps.executeQuery()) {
            return events.decodeAll(rs);
        }
    }

    /** R40–R45. @param workflowId w @return the chain */
    @Override
    public Mono<List<RunSummary>> readRunChain(WorkflowId workflowId) {
        return Mono.defer(() -> {
            String w = workflowId.toString();
            return readers.read("readRunChain", c -> {
                PreparedStatement ps = c.prepare(QUERYABLE_OF);
                ps.setString(1, w);
                try (ResultSet rs = ps.executeQuery()) {
                    return HistoryProjection.runChain(events.decodeAll(rs));
                }
            });
        });
    }

    /** @return every undecodable stored event, in (workflow id, seq) order */
    @Override
    public Flux<UndecodableEvent> findUndecodableEvents() {
        return readers.readConsistent("findUndecodableEvents", c -> {
                    List<UndecodableEvent> problems = new ArrayList<>();
                    try (ResultSet rs = c.prepare(ALL_EVENTS).executeQuery()) {
                        while (rs.next()) {
                            try {
                                events.decode(rs.getString(1), rs.getLong(2), rs.getBytes(3));
                            } catch (dev.durablestore.api.SerializationException e) {
                                problems.add(new UndecodableEvent(
                                        String.valueOf(rs.getString(1)), rs.getLong(2), e.getMessage()));
                            }
                        }
                    }
                    return problems;
                })
                .flatMapMany(Flux::fromIterable);
    }

    /** S25. @return completion or the first decoding error */
    @Override
    public Mono<Void> validateStoredEvents() {
        return readers.readConsistent("validateStoredEvents", c -> {
                    try (ResultSet rs = c.prepare(ALL_EVENTS).executeQuery()) {
                        while (rs.next()) {
                            events.decode(rs.getString(1), rs.getLong(2), rs.getBytes(3));
                        }
                    }
                    return null;
                })
                .then();
    }
}
