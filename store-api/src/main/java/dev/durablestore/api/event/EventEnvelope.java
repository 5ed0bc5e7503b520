package dev.durablestore.api.event;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.WorkflowId;
import java.time.Instant;

/**
 * The part every event carries (M8, M9): its position in the history, the engine's record time
 * (kept to the nanosecond, never replaced by the store) and the workflow it belongs to.
 *
 * @param seq the 1-based position in the workflow's history
 * @param recordedAt the caller-supplied UTC instant
 * @param workflowId the workflow; must equal the workflow argument of the append (E11)
 */
public record EventEnvelope(long seq, Instant recordedAt, WorkflowId workflowId) {
    /**
     * Validates the components (see the record's description).
     *
     * @param seq the 1-based position in the workflow's history
     * @param recordedAt the caller-supplied UTC instant
     * @param workflowId the workflow; must equal the workflow argument of the append (E11)
     */
    public EventEnvelope {
        InvalidArgumentException.requireNonNegative(seq, "seq");
        InvalidArgumentException.requireNonNull(recordedAt, "recordedAt");
        InvalidArgumentException.requireNonNull(workflowId, "workflowId");
    }
}
