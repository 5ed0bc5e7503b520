package dev.durablestore.bench.raw;

import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.event.ChildWorkflowStarted;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.event.WorkflowStarted;
import dev.durablestore.core.codec.EventCodec;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.HexFormat;

/**
 * Binds events and outbox rows to the store's insert statements and reads claimed rows back, doing
 * the same encoding and decoding work as the store (JSON through {@link EventCodec}).
 */
public final class RawRows {

    private final EventCodec codec;

    /** @param codec the codec (the public one from {@code store-core}, as the store uses) */
    public RawRows(EventCodec codec) {
        this.codec = codec;
    }

    /**
     * Encodes an event into the values of the {@code events} columns, in {@link RawSql#INSERT_EVENT}'s
     * order: workflow id, seq, event (bytes), recorded at (epoch nanos), kind, queryable (0 or 1),
     * workflow type and child workflow id (both {@code null} when they do not apply).
     *
     * @param event the event
     * @return the eight column values
     */
    public EventColumns eventColumns(Event event) {
        String type = null;
        String child = null;
        if (event instanceof WorkflowStarted s) {
            type = s.workflowType();
        } else if (event instanceof ChildWorkflowStarted c) {
            type = c.workflowType();
            child = c.childWorkflowId().toString();
        }
        return new EventColumns(
                event.workflowId().toString(),
                event.seq(),
                codec.encode(event),
                RawDb.nanos(event.recordedAt()),
                event.kind().typeName(),
                event.kind().isQueryable() ? 1 : 0,
                type,
                child);
    }

    /**
     * One encoded {@code events} row.
     *
     * @param workflowId the workflow's text
     * @param seq the sequence number
     * @param event the encoded event
     * @param recordedAt epoch nanoseconds
     * @param kind the kind's type name
     * @param queryable 1 when the kind is queryable, else 0
     * @param workflowType the workflow type, or {@code null}
     * @param childWorkflowId the child workflow's text, or {@code null}
     */
    public record EventColumns(
            String workflowId,
            long seq,
            byte[] event,
            long recordedAt,
            String kind,
            int queryable,
            String workflowType,
            String childWorkflowId) {}

    /**
     * Encodes an event and binds it to {@link RawSql#INSERT_EVENT}.
     *
     * @param ps the prepared insert
     * @param event the event
     * @throws SQLException on failure
     */
    public void bindEvent(PreparedStatement ps, Event event) throws SQLException {
        EventColumns e = eventColumns(event);
        ps.setString(1, e.workflowId());
        ps.setLong(2, e.seq());
        ps.setBytes(3, e.event());
        ps.setLong(4, e.recordedAt());
        ps.setString(5, e.kind());
        ps.setInt(6, e.queryable());
        setNullable(ps, 7, e.workflowType());
        setNullable(ps, 8, e.childWorkflowId());
    }

    /**
     * Encodes a row and binds it to {@link RawSql#INSERT_OR_IGNORE_ROW}.
     *
     * @param ps the prepared insert
     * @param r the row
     * @param settledAtNanos the settle time for a terminal row, ignored for a live one
     * @throws SQLException on failure
     */
    public void bindRow(PreparedStatement ps, OutboxRow r, long settledAtNanos) throws SQLException {
        ps.setString(1, r.dispatchKey());
        ps.setString(2, r.workflowId().toString());
        ps.setLong(3, r.ordinal());
        setNullable(ps, 4, r.runId() == null ? null : r.runId().toString());
        ps.setString(5, r.namespace());
        ps.setString(6, r.taskQueue());
        setNullable(ps, 7, r.node());
        ps.setString(8, r.activityType());
        ps.setBytes(9, codec.encodePayload(r.input()));
        ps.setString(10, r.status().token());
        ps.setLong(11, r.attempt());
        ps.setLong(12, RawDb.nanos(r.visibleAfter()));
        if (r.claimedAt() == null) {
            ps.setNull(13, Types.INTEGER);
        } else {
            ps.setLong(13, RawDb.nanos(r.claimedAt()));
        }
        if (r.isLive()) {
            ps.setNull(14, Types.INTEGER);
        } else {
            ps.setLong(14, settledAtNanos);
        }
    }

    /**
     * Reads the first eight columns, which a full row and the PostgreSQL claim's row share: the
     * dispatch key, workflow, ordinal, run, route, node and activity type.
     *
     * @param rs a positioned result set
     * @return the dispatch key
     * @throws SQLException on failure
     */
    private static String readLeadingColumns(ResultSet rs) throws SQLException {
        String key = rs.getString(1);
        rs.getString(2);
        rs.getLong(3);
        rs.getString(4);
        rs.getString(5);
        rs.getString(6);
        rs.getString(7);
        rs.getString(8);
        return key;
    }

    /**
     * Reads a row of {@link RawSql#COLUMNS} the way a dispatcher needs it: every column, the input
     * decoded.
     *
     * @param rs a positioned result set
     * @return the dispatch key
     * @throws SQLException on failure
     */
    public String readRow(ResultSet rs) throws SQLException {
        String key = readLeadingColumns(rs);
        var unused = codec.decodePayload(rs.getBytes(9)); // decoded for its cost, as a dispatcher would
        rs.getString(10);
        rs.getLong(11);
        rs.getLong(12);
        rs.getLong(13);
        return key;
    }

    /**
     * Reads one row of the store's PostgreSQL claim ({@code OutboxRows.CLAIMED_RETURNING_PG}): the
     * 13 columns a claim does not set itself, the input as hex text ({@code encode(input, 'hex')}),
     * decoded as the store decodes it.
     *
     * @param rs a positioned result set
     * @return the row's dispatch key
     * @throws SQLException on driver failure
     */
    public String readClaimedRow(ResultSet rs) throws SQLException {
        String key = readLeadingColumns(rs);
        var unused = codec.decodePayload(HexFormat.of().parseHex(rs.getString(9)));
        rs.getInt(10);
        rs.getLong(11);
        rs.getString(12);
        rs.getInt(13);
        return key;
    }

    private static void setNullable(PreparedStatement ps, int index, String value) throws SQLException {
        if (value == null) {
            ps.setNull(index, Types.VARCHAR);
        } else {
            ps.setString(index, value);
        }
    }
}
