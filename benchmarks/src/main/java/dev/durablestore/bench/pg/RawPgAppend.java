package dev.durablestore.bench.pg;

import com.zaxxer.hikari.HikariDataSource;
import dev.durablestore.api.event.Event;
import dev.durablestore.bench.Stats;
import dev.durablestore.bench.raw.RawRows;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/**
 * The raw multi-row guarded append on PostgreSQL, plain JDBC and no store: {@value #GROUP} appends
 * (each one event at expected head 0 on its own workflow) as one {@code INSERT … SELECT … FROM
 * unnest(arrays)} whose per-row guard inserts a row only where the workflow's head is the expected
 * one, one statement per group in autocommit, on one connection. Every append of the run must land.
 */
final class RawPgAppend {

    /** Appends per statement: as many as the store has in flight. */
    static final int GROUP = 64;

    private static final String INSERT = "INSERT INTO events "
            + "(workflow_id, seq, event, recorded_at, kind, queryable, workflow_type, child_workflow_id) "
            + "SELECT u.w, u.expected + 1, u.e, u.t, u.k, u.q, u.wt, u.c "
            + "FROM unnest(?::text[], ?::bigint[], ?::bytea[], ?::bigint[], ?::text[], ?::int[], ?::text[], ?::text[]) "
            + "AS u(w, expected, e, t, k, q, wt, c) "
            + "WHERE COALESCE((SELECT max(seq) FROM events e WHERE e.workflow_id = u.w), 0) = u.expected";

    private final RawRows rows;

    /** @param rows encodes the events as the store does */
    RawPgAppend(RawRows rows) {
        this.rows = rows;
    }

    /**
     * @param pool connections to the schema (one is used)
     * @param events first events, each of a new workflow
     * @return appends per second
     */
    double append(HikariDataSource pool, List<Event> events) {
        long nanos = Workers.run(1, worker -> {
            try (Connection c = pool.getConnection();
                    PreparedStatement insert = c.prepareStatement(INSERT)) {
                c.setAutoCommit(true);
                for (int from = 0; from < events.size(); from += GROUP) {
                    List<Event> group = events.subList(from, Math.min(events.size(), from + GROUP));
                    int landed = insertGroup(c, insert, group);
                    if (landed != group.size()) {
                        throw new IllegalStateException("raw guarded append landed " + landed + " of " + group.size());
                    }
                }
            }
        });
        return Stats.perSecond(events.size(), nanos);
    }

    private int insertGroup(Connection c, PreparedStatement insert, List<Event> group) throws SQLException {
        int n = group.size();
        String[] workflow = new String[n];
        Long[] expected = new Long[n];
        byte[][] event = new byte[n][];
        Long[] recordedAt = new Long[n];
        String[] kind = new String[n];
        Integer[] queryable = new Integer[n];
        String[] type = new String[n];
        String[] child = new String[n];
        for (int i = 0; i < n; i++) {
            RawRows.EventColumns e = rows.eventColumns(group.get(i));
            workflow[i] = e.workflowId();
            expected[i] = e.seq() - 1;
            event[i] = e.event();
            recordedAt[i] = e.recordedAt();
            kind[i] = e.kind();
            queryable[i] = e.queryable();
            type[i] = e.workflowType();
            child[i] = e.childWorkflowId();
        }
        insert.setArray(1, c.createArrayOf("text", workflow));
        insert.setArray(2, c.createArrayOf("bigint", expected));
        insert.setArray(3, c.createArrayOf("bytea", event));
        insert.setArray(4, c.createArrayOf("bigint", recordedAt));
        insert.setArray(5, c.createArrayOf("text", kind));
        insert.setArray(6, c.createArrayOf("int4", queryable));
        insert.setArray(7, c.createArrayOf("text", type));
        insert.setArray(8, c.createArrayOf("text", child));
        return insert.executeUpdate();
    }
}
