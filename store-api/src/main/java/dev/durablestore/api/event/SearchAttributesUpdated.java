package dev.durablestore.api.event;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.WorkflowId;
import java.util.Map;

/**
 * Search attributes were set; later updates overwrite the keys they name (M19).
 *
 * @param envelope the sequence, time and workflow of this event
 * @param attributesWorkflowId the workflow id as recorded in the update
 * @param attributes the attributes this update sets
 */
public record SearchAttributesUpdated(
        EventEnvelope envelope, WorkflowId attributesWorkflowId, Map<String, SearchAttributeValue> attributes)
        implements Event {
    /**
     * Validates the components (see the record's description).
     *
     * @param envelope the sequence, time and workflow of this event
     * @param attributesWorkflowId the workflow id as recorded in the update
     * @param attributes the attributes this update sets
     */
    public SearchAttributesUpdated {
        InvalidArgumentException.requireNonNull(envelope, "envelope");
        InvalidArgumentException.requireNonNull(attributesWorkflowId, "attributesWorkflowId");
        InvalidArgumentException.requireNonNull(attributes, "attributes");
        attributes = Copies.map(attributes, "attributes");
    }

    @Override
    public EventKind kind() {
        return EventKind.SEARCH_ATTRIBUTES_UPDATED;
    }
}
