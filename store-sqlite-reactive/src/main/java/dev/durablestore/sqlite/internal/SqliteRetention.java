package dev.durablestore.sqlite.internal;

import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.EventKind;
import dev.durablestore.core.storage.RetentionStorage;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import reactor.core.publisher.Mono;

/**
 * Retention and purge on SQLite (D1–D10): the walk of closed workflows runs on a reader, in one
 * snapshot; each call's deletes are one writer command (the store hands over about 2,000 rows per
 * call), so an append or a claim queued behind one waits a few milliseconds at most. The writer runs one
 * transaction at a time, so the checks a delete makes in its transaction are exact, and the heads
 * it zeroes reach the {@link HeadCache} with its commit.
 */
final class SqliteRetention implements RetentionStorage {

    /** The terminal kinds (M12) as SQL literals: constants of the code, never user text. */
    private static final String TERMINAL_KINDS = Arrays.stream(EventKind.values())
            .filter(EventKind::isTerminal)
            .map(k -> "'" + k.typeName() + "'")
            .collect(Collectors.joining(", ", "(", ")"));

    /**
     * D1: each workflow whose last lifecycle event is terminal, with that event's instant, after a
     * cursor, from the projection index (S3). A workflow has one last lifecycle event, so one row.
     */
    private static final String CLOSED =
            "SELECT e.workflow_id, e.recorded_at FROM events e INDEXED BY events_queryable "
                    + "WHERE e.queryable = 1 AND e.workflow_id > ? AND e.kind IN " + TERMINAL_KINDS
                    + " AND e.recorded_at < ?"
                    + " AND NOT EXISTS (SELECT 1 FROM events l INDEXED BY events_queryable WHERE l.queryable = 1 "
                    + "AND l.workflow_id = e.workflow_id AND l.seq > e.seq AND l.kind <> 'ChildWorkflowStarted') "
                    + "ORDER BY e.workflow_id LIMIT ?";
    /** D2: the namespaces of a workflow's rows, with how many rows and live rows each. */
    private static final String ROWS_OF = "SELECT namespace, COUNT(*), SUM(" + OutboxRows.LIVE + ") FROM outbox "
            + "WHERE workflow_id = ? GROUP BY namespace";
    /** D6: a workflow's rows and live rows, as the deleting transaction finds them. */
    private static final String ROW_COUNTS =
            "SELECT COUNT(*), COALESCE(SUM(" + OutboxRows.LIVE + "), 0) FROM outbox WHERE workflow_id = ?";

    private static final String DELETE_EVENTS = "DELETE FROM events WHERE workflow_id = ?";
    private static final String DELETE_TIMERS = "DELETE FROM timers WHERE workflow_id = ?";
    private static final String DELETE_ROWS = "DELETE FROM outbox WHERE workflow_id = ?";

    private final Writer writer;
    private final ReaderPool readers;
    private final HeadCache heads;

    /**
     * @param writer the single writer
     * @param readers the reader pool
     * @param heads the appends' cache of heads, told of every head a delete zeroes
     */
    SqliteRetention(Writer writer, ReaderPool readers, HeadCache heads) {
        this.writer = writer;
        this.readers = readers;
        this.heads = heads;
    }

    @Override
    public Mono<List<ClosedWorkflow>> scanClosed(String afterWorkflowId, long closedBeforeNanos, int limit) {
        return readers.readConsistent("sweepRetention", c -> {
            List<String[]> found = new ArrayList<>();
            PreparedStatement ps = c.prepare(CLOSED);
            ps.setString(1, afterWorkflowId);
            ps.setLong(2, closedBeforeNanos);
            ps.setInt(3, limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    found.add(new String[] {rs.getString(1), Long.toString(rs.getLong(2))});
                }
            }
            List<ClosedWorkflow> closed = new ArrayList<>(found.size());
            for (String[] f : found) {
                closed.add(describe(c, f[0], Long.parseLong(f[1])));
            }
            return closed;
        });
    }

    private static ClosedWorkflow describe(DbConnection c, String w, long closedAt) throws SQLException {
        long head = EventRows.head(c, w);
        Set<String> namespaces = new TreeSet<>();
        long rows = 0;
        long live = 0;
        PreparedStatement ps = c.prepare(ROWS_OF);
        ps.setString(1, w);
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                namespaces.add(rs.getString(1));
                rows += rs.getLong(2);
                live += rs.getLong(3);
            }
        }
        return new ClosedWorkflow(w, head, closedAt, namespaces, rows, live);
    }

    /** D5, D6: one writer command, so appends and claims queued behind it wait only for its few rows. */
    @Override
    public Mono<Deleted> deleteClosed(List<ClosedWorkflow> due) {
        return writer.submit(Commands.of("sweepRetention", false, c -> deleteGuarded(c, due)));
    }

    /** D6: each workflow deleted only when its head, its rows and their liveness are as the walk saw. */
    private Deleted deleteGuarded(DbConnection c, List<ClosedWorkflow> part) throws SQLException {
        Deleted total = Deleted.NONE;
        for (ClosedWorkflow w : part) {
            if (EventRows.head(c, w.workflowId()) != w.head() || !rowsAsSeen(c, w)) {
                continue; // appended to, reopened or given rows since the walk: kept
            }
            total = total.plus(delete(c, w.workflowId()));
        }
        return total;
    }

    private static boolean rowsAsSeen(DbConnection c, ClosedWorkflow w) throws SQLException {
        PreparedStatement ps = c.prepare(ROW_COUNTS);
        ps.setString(1, w.workflowId());
        try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1) == w.outboxRows() && rs.getLong(2) == 0;
        }
    }

    private Deleted delete(DbConnection c, String w) throws SQLException {
        long events = update(c, DELETE_EVENTS, w);
        long timers = update(c, DELETE_TIMERS, w);
        long rows = update(c, DELETE_ROWS, w);
        heads.advanced(w, 0); // E2: the head of a workflow without events, once this commits
        return new Deleted(events > 0 || timers > 0 || rows > 0 ? 1 : 0, events, timers, rows, 0);
    }

    private static long update(DbConnection c, String sql, String w) throws SQLException {
        PreparedStatement ps = c.prepare(sql);
        ps.setString(1, w);
        return ps.executeUpdate();
    }

    /** D8: one command, whatever the workflow's status and its rows'. */
    @Override
    public Mono<Deleted> purge(WorkflowId workflowId) {
        String w = workflowId.toString();
        return writer.submit(Commands.of("purgeWorkflow", false, c -> delete(c, w)));
    }
}
