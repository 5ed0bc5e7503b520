package dev.durablestore.api.event;

import dev.durablestore.api.ActivityId;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.RunId;
import java.util.List;

/**
 * A closed workflow was reopened (reset point; projects Running).
 *
 * @param envelope the sequence, time and workflow of this event
 * @param runId the reopened run
 * @param reopened activities to re-dispatch
 */
public record WorkflowReopened(EventEnvelope envelope, RunId runId, List<ActivityId> reopened) implements Event {
    /**
     * Validates the components (see the record's description).
     *
     * @param envelope the sequence, time and workflow of this event
     * @param runId the reopened run
     * @param reopened activities to re-dispatch
     */
    public WorkflowReopened {
        InvalidArgumentException.requireNonNull(envelope, "envelope");
        InvalidArgumentException.requireNonNull(runId, "runId");
        InvalidArgumentException.requireNonNull(reopened, "reopened");
        reopened = Copies.list(reopened, "reopened");
    }

    @Override
    public EventKind kind() {
        return EventKind.WORKFLOW_REOPENED;
    }
}
