package dev.durablestore.sqlite.internal;

import dev.durablestore.api.SerializationException;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.codec.EventCodec;
import dev.durablestore.api.event.ActivityScheduled;
import dev.durablestore.api.event.ChildWorkflowStarted;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.event.WorkflowStarted;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;

/** The {@code events} table: encoding an event into a row and decoding rows back (S2, S26). */
public final class EventRows {

    static final String INSERT = "INSERT INTO events "
            + "(workflow_id, seq, event, recorded_at, kind, queryable, workflow_type, child_workflow_id) "
            + "VALUES (?, ?, ?, ?, ?, ?, ?, ?)";
    static final String HEAD = "SELECT max(seq) FROM events WHERE workflow_id = ?";

    private final EventCodec codec;

    /** @param codec the event codec */
    public EventRows(EventCodec codec) {
        this.codec = codec;
    }

    /**
     * Encodes an event for insertion; done before the write transaction so encoding failures
     * reject the command before anything is written (E16).
     *
     * @param event the event
     * @return its encoded row
     */
    public Encoded encode(Event event) {
        Times.requireStorable(event.recordedAt(), "events[seq=" + event.seq() + "].recordedAt");
        byte[] json = codec.encode(event);
        String type = null;
        String child = null;
        if (event instanceof WorkflowStarted s) {
            type = s.workflowType();
        } else if (event instanceof ChildWorkflowStarted c) {
            type = c.workflowType();
            child = c.childWorkflowId().toString();
        }
        return new Encoded(event.seq(), json, Times.toNanos(event.recordedAt(), "recordedAt"),
                event.kind().typeName(), event.kind().isQueryable(), type, child);
    }

    /**
     * Inserts encoded events.
     *
     * @param c the write connection
     * @param workflowId the workflow
     * @param events the encoded events
     * @throws SQLException on failure
     */
    static void insert(DbConnection c, String workflowId, List<Encoded> events) throws SQLException {
        PreparedStatement ps = c.prepare(INSERT);
        for (Encoded e : events) {
            ps.setString(1, workflowId);
            ps.setLong(2, e.seq);
            ps.setBytes(3, e.json);
            ps.setLong(4, e.recordedAtNanos);
            ps.setString(5, e.kind);
            ps.setInt(6, e.queryable ? 1 : 0);
            setNullable(ps, 7, e.workflowType);
            setNullable(ps, 8, e.childWorkflowId);
            ps.executeUpdate();
        }
    }

    /**
     * @param c a connection
     * @param workflowId the workflow's canonical text
     * @return its committed head, 0 when it has no events (E2)
     * @throws SQLException on failure
     */
    static long head(DbConnection c, String workflowId) throws SQLException {
        PreparedStatement ps = c.prepare(HEAD);
        ps.setString(1, workflowId);
        try (ResultSet rs = ps.executeQuery()) {
            return rs.next() ? rs.getLong(1) : 0L;
        }
    }

    /**
     * Decodes the rows of a query whose first two columns are {@code workflow_id, seq} and third is
     * {@code event}.
     *
     * @param rs the result set
     * @return the events in result order
     * @throws SQLException on failure
     */
    List<Event> decodeAll(ResultSet rs) throws SQLException {
        List<Event> events = new ArrayList<>();
        while (rs.next()) {
            events.add(decode(rs.getString(1), rs.getLong(2), rs.getBytes(3)));
        }
        return events;
    }

    /**
     * @param workflowId the stored workflow id
     * @param seq the stored seq
     * @param json the stored bytes
     * @return the event
     * @throws SerializationException naming the workflow and seq when the row does not decode
     */
    Event decode(String workflowId, long seq, byte[] json) {
        try {
            if (json == null) {
                throw new SerializationException("event bytes are NULL");
            }
            return codec.decode(json);
        } catch (SerializationException e) {
            throw new SerializationException(
                    "stored event of workflow " + workflowId + " at seq " + seq + " cannot be decoded: " + e.getMessage(), e);
        }
    }

    /**
     * @param text a stored workflow id
     * @return the id
     * @throws SerializationException when the text is not a canonical UUID
     */
    static WorkflowId workflowId(String text) {
        try {
            return WorkflowId.parse(text);
        } catch (RuntimeException e) {
            throw new SerializationException("stored workflow id '" + text + "' is not a canonical UUID", e);
        }
    }

    static void setNullable(PreparedStatement ps, int index, String value) throws SQLException {
        if (value == null) {
            ps.setNull(index, Types.VARCHAR);
        } else {
            ps.setString(index, value);
        }
    }

    /** An event ready for insertion. */
    public record Encoded(long seq, byte[] json, long recordedAtNanos, String kind, boolean queryable,
            String workflowType, String childWorkflowId) {}
}
