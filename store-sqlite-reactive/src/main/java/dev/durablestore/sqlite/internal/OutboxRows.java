package dev.durablestore.sqlite.internal;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.Payload;
import dev.durablestore.api.RunId;
import dev.durablestore.api.SerializationException;
import dev.durablestore.api.internal.Rows;
import dev.durablestore.core.codec.EventCodec;
import dev.durablestore.core.internal.FailureHistory;
import dev.durablestore.core.internal.OutboxRowEncoder;
import dev.durablestore.core.internal.StoredRows;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** The {@code outbox} table: row validation, encoding, insertion and decoding (O1, O6, S5, S8). */
final class OutboxRows {

    /** The columns every row-returning outbox statement selects, in this order. */
    static final String COLUMNS = "dispatch_key, workflow_id, ordinal, run_id, namespace, task_queue, node, "
            + "activity_type, input, status, attempt, visible_after, claimed_at, claim_token, "
            + "trace_context, priority, failures";

    /** The condition of a live row (pending or claimed), which settles, cancels and counts look for. */
    static final String LIVE = "status IN ('pending', 'claimed')";

    static final String INSERT_OR_IGNORE = "INSERT OR IGNORE INTO outbox (dispatch_key, workflow_id, ordinal, "
            + "run_id, namespace, task_queue, node, activity_type, input, status, attempt, visible_after, claimed_at, "
            + "settled_at, trace_context, priority) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

    private final EventCodec codec;

    /** @param codec encodes row inputs */
    OutboxRows(EventCodec codec) {
        this.codec = codec;
    }

    /**
     * Inserts rows, skipping keys already stored (O9, E21).
     *
     * @param c the write connection
     * @param rows encoded rows
     * @param nowNanos the settle time recorded for rows staged in a terminal status
     * @return number of rows inserted
     * @throws SQLException on failure
     */
    static int insertOrIgnore(DbConnection c, List<OutboxRowEncoder.Encoded> rows, long nowNanos) throws SQLException {
        PreparedStatement ps = c.prepare(INSERT_OR_IGNORE);
        int inserted = 0;
        for (OutboxRowEncoder.Encoded e : rows) {
            OutboxRow r = e.row();
            ps.setString(1, r.dispatchKey());
            ps.setString(2, r.workflowId().toString());
            ps.setLong(3, r.ordinal());
            EventRows.setNullable(ps, 4, r.runId() == null ? null : r.runId().toString());
            ps.setString(5, r.namespace());
            ps.setString(6, r.taskQueue());
            EventRows.setNullable(ps, 7, r.node());
            ps.setString(8, r.activityType());
            ps.setBytes(9, e.input());
            ps.setString(10, r.status().token());
            ps.setLong(11, r.attempt());
            ps.setLong(12, e.visibleAfterNanos());
            setNullableLong(ps, 13, e.claimedAtNanos());
            setNullableLong(ps, 14, r.status().isLive() ? null : nowNanos);
            EventRows.setNullable(ps, 15, r.traceContext());
            ps.setInt(16, r.priority());
            inserted += ps.executeUpdate();
        }
        return inserted;
    }

    /**
     * Decodes one row of {@link #COLUMNS}.
     *
     * @param rs positioned result set
     * @return the row
     * @throws SQLException on driver failure
     * @throws SerializationException naming the dispatch key when a column does not decode
     */
    OutboxRow decode(ResultSet rs) throws SQLException {
        String key = rs.getString(1);
        try {
            String runId = rs.getString(4);
            String namespace = rs.getString(5);
            String taskQueue = rs.getString(6);
            long attempt = rs.getLong(11);
            if (attempt < 0 || attempt > Integer.MAX_VALUE) {
                throw new SerializationException("stored attempt " + attempt + " is out of range");
            }
            Instant visibleAfter = Times.readInstant(rs, 12, "visible_after");
            Long claimedAt = Times.readNanos(rs, 13, "claimed_at");
            OutboxStatus status = OutboxStatus.fromToken(rs.getString(10));
            // a token is the claim's while the row stays claimed; settles and re-arms leave it behind
            long claimToken = status == OutboxStatus.CLAIMED ? rs.getLong(14) : 0L;
            return Rows.stored(
                    key,
                    StoredRows.workflowId(rs.getString(2)),
                    rs.getLong(3),
                    runId == null ? null : RunId.parse(runId),
                    namespace == null ? OutboxRow.DEFAULT_ROUTE : namespace,
                    taskQueue == null ? OutboxRow.DEFAULT_ROUTE : taskQueue,
                    rs.getString(7),
                    rs.getString(8),
                    decodeInput(rs.getBytes(9)),
                    status,
                    (int) attempt,
                    visibleAfter,
                    Times.fromNanos(claimedAt),
                    claimToken,
                    rs.getString(15),
                    rs.getInt(16), // NOT NULL DEFAULT 0: rows older than the column read 0
                    FailureHistory.decode(rs.getString(17))); // NULL in rows older than the column
        } catch (SerializationException | InvalidArgumentException e) {
            throw new SerializationException("stored outbox row " + key + " cannot be decoded: " + e.getMessage(), e);
        }
    }

    /**
     * Decodes every row of a result set.
     *
     * @param rs result set over {@link #COLUMNS}
     * @return rows in result order
     * @throws SQLException on driver failure
     */
    List<OutboxRow> decodeAll(ResultSet rs) throws SQLException {
        List<OutboxRow> rows = new ArrayList<>();
        while (rs.next()) {
            rows.add(decode(rs));
        }
        return rows;
    }

    private Payload decodeInput(byte[] bytes) {
        if (bytes == null) {
            throw new SerializationException("stored input is NULL");
        }
        return codec.decodePayload(bytes);
    }

    static void setNullableLong(PreparedStatement ps, int index, Long value) throws SQLException {
        if (value == null) {
            ps.setNull(index, Types.INTEGER);
        } else {
            ps.setLong(index, value);
        }
    }
}
