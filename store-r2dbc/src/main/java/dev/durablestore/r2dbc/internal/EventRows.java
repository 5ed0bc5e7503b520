package dev.durablestore.r2dbc.internal;

import dev.durablestore.api.SerializationException;
import dev.durablestore.api.event.Event;
import dev.durablestore.core.codec.EventCodec;
import dev.durablestore.core.internal.EventEncoder;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.Row;
import java.util.ArrayList;
import java.util.List;
import reactor.core.publisher.Mono;

/** The {@code events} table: encoding an event into a row and decoding rows back (S2, S26). */
final class EventRows {

    static final String INSERT = "INSERT INTO events "
            + "(workflow_id, seq, event, recorded_at, kind, queryable, workflow_type, child_workflow_id) "
            + "VALUES ($1, $2, $3, $4, $5, $6, $7, $8)";
    static final String HEAD = "SELECT max(seq) FROM events WHERE workflow_id = $1";

    private final EventCodec codec;

    /** @param codec the event codec */
    EventRows(EventCodec codec) {
        this.codec = codec;
    }

    /**
     * Inserts encoded events, one execution per event.
     *
     * @param c a connection inside the write transaction
     * @param workflowId the workflow
     * @param events the encoded events
     * @return completes when inserted; a racing writer's key makes it fail with a unique violation
     */
    static Mono<Void> insert(Connection c, String workflowId, List<EventEncoder.Encoded> events) {
        List<Object[]> rows = new ArrayList<>(events.size());
        for (EventEncoder.Encoded e : events) {
            rows.add(new Object[] {
                workflowId,
                e.seq(),
                e.json(),
                e.recordedAtNanos(),
                e.kind(),
                e.queryable() ? 1 : 0,
                Sql.text(e.workflowType()),
                Sql.text(e.childWorkflowId())
            });
        }
        return Sql.updateEach(c, INSERT, rows).then();
    }

    /**
     * @param c a connection
     * @param workflowId the workflow's canonical text
     * @return its committed head, 0 when it has no events (E2)
     */
    static Mono<Long> head(Connection c, String workflowId) {
        return Sql.query(
                        c,
                        HEAD,
                        row -> {
                            Long v = Sql.longAt(row, 0);
                            return v == null ? 0L : v;
                        },
                        workflowId)
                .next()
                .defaultIfEmpty(0L);
    }

    /**
     * Copies a row of {@code workflow_id, seq, event} out of the driver.
     *
     * @param row the row
     * @return the stored values, not yet decoded
     */
    static Stored stored(Row row) {
        return new Stored(Sql.textAt(row, 0), Sql.longAt(row, 1), Sql.bytesAt(row, 2));
    }

    /**
     * @param stored a stored row
     * @return the event
     * @throws SerializationException naming the workflow and seq when the row does not decode
     */
    Event decode(Stored stored) {
        try {
            if (stored.json == null) {
                throw new SerializationException("event bytes are NULL");
            }
            return codec.decode(stored.json);
        } catch (SerializationException e) {
            throw new SerializationException(
                    "stored event of workflow " + stored.workflowId + " at seq " + stored.seq + " cannot be decoded: "
                            + e.getMessage(),
                    e);
        }
    }

    /**
     * @param rows stored rows
     * @return the events in the same order
     */
    List<Event> decodeAll(List<Stored> rows) {
        List<Event> events = new ArrayList<>(rows.size());
        for (Stored s : rows) {
            events.add(decode(s));
        }
        return events;
    }

    /** An event row as stored: {@code workflow_id, seq, event}. */
    record Stored(String workflowId, Long seq, byte[] json) {}
}
