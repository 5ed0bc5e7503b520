package dev.durablestore.bench.pg;

import com.zaxxer.hikari.HikariDataSource;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.bench.Stats;
import dev.durablestore.bench.raw.RawDb;
import dev.durablestore.core.codec.EventCodec;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/**
 * The raw multi-row staging on PostgreSQL, plain JDBC and no store: each batch of rows as one
 * guarded {@code INSERT INTO outbox (…) SELECT … FROM unnest(?::text[], …) ON CONFLICT DO NOTHING}
 * (River's {@code InsertMany} shape), one column per array, the inputs encoded as the store encodes
 * them and sent as {@code bytea[]}, one statement per batch in autocommit, on one connection. Every
 * row of the run must land.
 */
final class RawPgStage {

    /** The statement; its sixteen arrays in the order of the store's outbox columns. */
    static final String INSERT = "INSERT INTO outbox (dispatch_key, workflow_id, ordinal, run_id, namespace, "
            + "task_queue, node, activity_type, input, status, attempt, visible_after, claimed_at, settled_at, "
            + "trace_context, priority) "
            + "SELECT * FROM unnest(?::text[], ?::text[], ?::bigint[], ?::text[], ?::text[], ?::text[], ?::text[], "
            + "?::text[], ?::bytea[], ?::text[], ?::bigint[], ?::bigint[], ?::bigint[], ?::bigint[], ?::text[], "
            + "?::int[]) ON CONFLICT DO NOTHING";

    private final EventCodec codec;

    /** @param codec encodes the inputs as the store does */
    RawPgStage(EventCodec codec) {
        this.codec = codec;
    }

    /**
     * @param pool connections to the schema (one is used)
     * @param batches the rows, one statement per batch, distinct keys
     * @param rows how many rows the batches hold
     * @return rows per second
     */
    double stage(HikariDataSource pool, List<List<OutboxRow>> batches, int rows) {
        long nanos = Workers.run(1, worker -> {
            try (Connection c = pool.getConnection();
                    PreparedStatement insert = c.prepareStatement(INSERT)) {
                c.setAutoCommit(true);
                for (List<OutboxRow> batch : batches) {
                    int landed = insertBatch(c, insert, batch);
                    if (landed != batch.size()) {
                        throw new IllegalStateException("raw staging landed " + landed + " of " + batch.size());
                    }
                }
            }
        });
        return Stats.perSecond(rows, nanos);
    }

    private int insertBatch(Connection c, PreparedStatement insert, List<OutboxRow> batch) throws SQLException {
        int n = batch.size();
        String[] key = new String[n];
        String[] workflow = new String[n];
        Long[] ordinal = new Long[n];
        String[] run = new String[n];
        String[] namespace = new String[n];
        String[] taskQueue = new String[n];
        String[] node = new String[n];
        String[] activity = new String[n];
        byte[][] input = new byte[n][];
        String[] status = new String[n];
        Long[] attempt = new Long[n];
        Long[] visibleAfter = new Long[n];
        Long[] claimedAt = new Long[n];
        Long[] settledAt = new Long[n];
        String[] trace = new String[n];
        Integer[] priority = new Integer[n];
        long now = RawDb.nowNanos();
        for (int i = 0; i < n; i++) {
            OutboxRow r = batch.get(i);
            key[i] = r.dispatchKey();
            workflow[i] = r.workflowId().toString();
            ordinal[i] = r.ordinal();
            run[i] = r.runId() == null ? null : r.runId().toString();
            namespace[i] = r.namespace();
            taskQueue[i] = r.taskQueue();
            node[i] = r.node();
            activity[i] = r.activityType();
            input[i] = codec.encodePayload(r.input());
            status[i] = r.status().token();
            attempt[i] = (long) r.attempt();
            visibleAfter[i] = RawDb.nanos(r.visibleAfter());
            claimedAt[i] = r.claimedAt() == null ? null : RawDb.nanos(r.claimedAt());
            settledAt[i] = r.isLive() ? null : now;
            trace[i] = r.traceContext();
            priority[i] = r.priority();
        }
        insert.setArray(1, c.createArrayOf("text", key));
        insert.setArray(2, c.createArrayOf("text", workflow));
        insert.setArray(3, c.createArrayOf("bigint", ordinal));
        insert.setArray(4, c.createArrayOf("text", run));
        insert.setArray(5, c.createArrayOf("text", namespace));
        insert.setArray(6, c.createArrayOf("text", taskQueue));
        insert.setArray(7, c.createArrayOf("text", node));
        insert.setArray(8, c.createArrayOf("text", activity));
        insert.setArray(9, c.createArrayOf("bytea", input));
        insert.setArray(10, c.createArrayOf("text", status));
        insert.setArray(11, c.createArrayOf("bigint", attempt));
        insert.setArray(12, c.createArrayOf("bigint", visibleAfter));
        insert.setArray(13, c.createArrayOf("bigint", claimedAt));
        insert.setArray(14, c.createArrayOf("bigint", settledAt));
        insert.setArray(15, c.createArrayOf("text", trace));
        insert.setArray(16, c.createArrayOf("int4", priority));
        return insert.executeUpdate();
    }
}
