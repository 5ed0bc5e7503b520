package dev.durablestore.sqlite.internal;

import dev.durablestore.api.SerializationException;
import dev.durablestore.api.event.Event;
import dev.durablestore.core.codec.EventCodec;
import dev.durablestore.core.internal.EventEncoder;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;

/** The {@code events} table: encoding an event into a row and decoding rows back (S2, S26). */
final class EventRows {

    static final String INSERT = insertOf(1);
    /** Rows of the larger multi-row insert (8 parameters each: 256 per statement). */
    static final int WIDE = 32;
    /** Rows of the smaller multi-row insert, for what a grouped append leaves under {@link #WIDE}. */
    static final int NARROW = 8;

    private static final int COLUMNS = 8;
    /** The statements a grouped insert uses, widest first. */
    private static final List<Width> WIDTHS =
            List.of(new Width(WIDE, insertOf(WIDE)), new Width(NARROW, insertOf(NARROW)), new Width(1, INSERT));

    static final String HEAD = "SELECT max(seq) FROM events WHERE workflow_id = ?";

    private final EventCodec codec;

    /** @param codec the event codec */
    EventRows(EventCodec codec) {
        this.codec = codec;
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
            bind(ps, 0, workflowId, e);
            ps.executeUpdate();
        }
    }

    /** A multi-row insert: how many rows one execution takes, and its text. */
    private record Width(int rows, String sql) {}

    /** One event row of a grouped append: the workflow it is filed under and its encoding. */
    record Row(String workflowId, EventEncoder.Encoded event) {}

    /**
     * Inserts the rows of several appends with multi-row statements ({@value #WIDE} rows, then
     * {@value #NARROW}, then one at a time): one statement step instead of one per event. A row
     * whose (workflow, seq) is already stored fails its statement, and so the transaction.
     *
     * @param c the write connection
     * @param rows the rows, in order
     * @throws SQLException on failure, a primary-key violation included
     */
    static void insertAll(DbConnection c, List<Row> rows) throws SQLException {
        int i = 0;
        int n = rows.size();
        for (Width width : WIDTHS) {
            PreparedStatement ps = null;
            for (; n - i >= width.rows(); i += width.rows()) {
                if (ps == null) {
                    ps = c.prepare(width.sql());
                }
                for (int k = 0; k < width.rows(); k++) {
                    Row row = rows.get(i + k);
                    bind(ps, k * COLUMNS, row.workflowId(), row.event());
                }
                ps.executeUpdate();
            }
        }
    }

    private static void bind(PreparedStatement ps, int offset, String workflowId, EventEncoder.Encoded e)
            throws SQLException {
        ps.setString(offset + 1, workflowId);
        ps.setLong(offset + 2, e.seq());
        ps.setBytes(offset + 3, e.json());
        ps.setLong(offset + 4, e.recordedAtNanos());
        ps.setString(offset + 5, e.kind());
        ps.setInt(offset + 6, e.queryable() ? 1 : 0);
        setNullable(ps, offset + 7, e.workflowType());
        setNullable(ps, offset + 8, e.childWorkflowId());
    }

    private static String insertOf(int rows) {
        StringBuilder sql = new StringBuilder("INSERT INTO events "
                + "(workflow_id, seq, event, recorded_at, kind, queryable, workflow_type, child_workflow_id) VALUES ");
        for (int i = 0; i < rows; i++) {
            sql.append(i == 0 ? "" : ", ").append("(?, ?, ?, ?, ?, ?, ?, ?)");
        }
        return sql.toString();
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
                    "stored event of workflow " + workflowId + " at seq " + seq + " cannot be decoded: "
                            + e.getMessage(),
                    e);
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
