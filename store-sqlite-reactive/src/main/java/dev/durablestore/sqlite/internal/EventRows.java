package dev.durablestore.sqlite.internal;

import dev.durablestore.api.SerializationException;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.codec.EventCodec;
import dev.durablestore.api.spi.EventEncoder;
import dev.durablestore.api.event.Event;
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
    private final EventEncoder encoder;

    /** @param codec the event codec */
    public EventRows(EventCodec codec) {
        this.codec = codec;
        this.encoder = new EventEncoder(codec);
    }

    /** @return the validation and encoding of an append before the write, shared with the other backend */
    public EventEncoder encoder() {
        return encoder;
    }

    /**
     * Inserts encoded events.
     *
     * @param c the write connection
     * @param workflowId the workflow
     * @param events the encoded events
     * @throws SQLException on failure
     */
    static void insert(DbConnection c, String workflowId, List<EventEncoder.Encoded> events) throws SQLException {
        PreparedStatement ps = c.prepare(INSERT);
        for (EventEncoder.Encoded e : events) {
            ps.setString(1, workflowId);
            ps.setLong(2, e.seq());
            ps.setBytes(3, e.json());
            ps.setLong(4, e.recordedAtNanos());
            ps.setString(5, e.kind());
            ps.setInt(6, e.queryable() ? 1 : 0);
            setNullable(ps, 7, e.workflowType());
            setNullable(ps, 8, e.childWorkflowId());
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

}
