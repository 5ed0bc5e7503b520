package dev.durablestore.api.event;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.RunId;

/**
 * The workflow was resumed (projects Running; neither terminal nor reset).
 *
 * @param envelope the sequence, time and workflow of this event
 * @param runId the resumed run
 * @param operator who resumed it, or {@code null}
 */
public record WorkflowResumed(EventEnvelope envelope, RunId runId, String operator) implements Event {
    /**
     * Validates the components (see the record's description).
     *
     * @param envelope the sequence, time and workflow of this event
     * @param runId the resumed run
     * @param operator see the record component
     */
    public WorkflowResumed {
        InvalidArgumentException.requireNonNull(envelope, "envelope");
        InvalidArgumentException.requireNonNull(runId, "runId");
    }

    @Override
    public EventKind kind() {
        return EventKind.WORKFLOW_RESUMED;
    }
}
