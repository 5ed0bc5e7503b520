package dev.durablestore.core.internal;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.ChildWorkflowStarted;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.event.WorkflowStarted;
import dev.durablestore.api.internal.StoredText;
import dev.durablestore.core.codec.EventCodec;
import java.util.ArrayList;
import java.util.List;

/**
 * Validates the arguments of an append and encodes its events before the write, the same way in
 * every backend: bad input is refused with {@link InvalidArgumentException} naming the argument,
 * and an event that cannot be encoded fails the append (E16), before anything is written.
 */
public final class EventEncoder {

    private final EventCodec codec;

    /** @param codec the event codec */
    public EventEncoder(EventCodec codec) {
        this.codec = InvalidArgumentException.requireNonNull(codec, "codec");
    }

    /**
     * Checks an append's arguments (non-null, {@code expectedSeq ≥ 0}, every event of
     * {@code workflowId}, E11, the indexed workflow type of a start {@linkplain StoredText storable})
     * and encodes its events.
     *
     * @param workflowId the workflow appended to
     * @param events the events
     * @param expectedSeq the expected head
     * @return the encoded events, in list order
     */
    public List<Encoded> forAppend(WorkflowId workflowId, List<Event> events, long expectedSeq) {
        InvalidArgumentException.requireNonNull(workflowId, "workflowId");
        InvalidArgumentException.requireNonNull(events, "events");
        InvalidArgumentException.requireNonNegative(expectedSeq, "expectedSeq");
        List<Encoded> encoded = new ArrayList<>(events.size());
        for (int i = 0; i < events.size(); i++) {
            Event e = InvalidArgumentException.requireNonNull(events.get(i), "events[" + i + "]");
            if (!workflowId.equals(e.workflowId())) {
                throw new InvalidArgumentException(
                        "events[" + i + "].envelope.workflowId",
                        "is " + e.workflowId() + " but the append is for workflow " + workflowId + " (E11)");
            }
            encoded.add(encode(e, "events[" + i + "]"));
        }
        return encoded;
    }

    private Encoded encode(Event event, String name) {
        long recordedAt = EpochNanos.of(event.recordedAt(), name + ".recordedAt");
        byte[] json = codec.encode(event);
        String type = null;
        String child = null;
        if (event instanceof WorkflowStarted s) {
            type = StoredText.require(s.workflowType(), name + ".workflowType");
        } else if (event instanceof ChildWorkflowStarted c) {
            type = StoredText.require(c.workflowType(), name + ".workflowType");
            child = c.childWorkflowId().toString();
        }
        return new Encoded(
                event.seq(),
                json,
                recordedAt,
                event.kind().typeName(),
                event.kind().isQueryable(),
                type,
                child);
    }

    /**
     * An event ready for insertion: the columns of the {@code events} table (S2).
     *
     * @param seq its sequence number
     * @param json the encoded event
     * @param recordedAtNanos {@code recordedAt} in epoch nanoseconds
     * @param kind the kind's type name
     * @param queryable whether projections read it (M13)
     * @param workflowType the indexed workflow type, or {@code null} (M14)
     * @param childWorkflowId the indexed child workflow id, or {@code null} (M15)
     */
    public record Encoded(
            long seq,
            byte[] json,
            long recordedAtNanos,
            String kind,
            boolean queryable,
            String workflowType,
            String childWorkflowId) {}
}
