package dev.durablestore.core.internal;

import dev.durablestore.api.SerializationException;
import dev.durablestore.api.TimerEntry;
import dev.durablestore.api.TimerId;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.core.storage.StoredTimer;
import java.util.Comparator;

/**
 * Decoding of stored values every backend reads the same way: a stored text that does not decode
 * fails the read with {@link SerializationException} naming the row, never a partial answer.
 */
public final class StoredRows {

    /**
     * T4: fire time, then workflow id, then canonical timer-id text, texts in code-point order (the
     * order PostgreSQL's {@code "C"} collation and SQLite's byte order give; H2 compares UTF-16
     * units, so the order is applied here for every backend).
     */
    public static final Comparator<TimerEntry> TIMER_ORDER = Comparator.comparing(TimerEntry::fireAt)
            .thenComparing(e -> e.workflowId().toString(), Claims.CODE_POINT_ORDER)
            .thenComparing(e -> e.timerId().canonicalText(), Claims.CODE_POINT_ORDER);

    private StoredRows() {}

    /**
     * @param text a stored workflow id
     * @return the id
     * @throws SerializationException when the text is not a canonical UUID
     */
    public static WorkflowId workflowId(String text) {
        try {
            return WorkflowId.parse(text);
        } catch (RuntimeException e) {
            throw new SerializationException("stored workflow id '" + text + "' is not a canonical UUID", e);
        }
    }

    /**
     * @param stored a stored timer
     * @return the timer entry
     * @throws SerializationException when its workflow id or timer id does not decode
     */
    public static TimerEntry timer(StoredTimer stored) {
        TimerId id;
        try {
            id = TimerId.parse(stored.timerId());
        } catch (RuntimeException e) {
            throw new SerializationException(
                    "stored timer id '" + stored.timerId() + "' of workflow " + stored.workflowId()
                            + " is not canonical",
                    e);
        }
        return new TimerEntry(workflowId(stored.workflowId()), id, EpochNanos.toInstant(stored.fireAtNanos()));
    }
}
