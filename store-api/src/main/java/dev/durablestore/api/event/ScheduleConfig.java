package dev.durablestore.api.event;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.Payload;
import java.util.Map;

/**
 * A schedule's configuration (M10).
 *
 * @param trigger when it fires
 * @param overlapPolicy what happens on overlap
 * @param catchUpPolicy what happens with missed triggers
 * @param workflowType the type of workflow it starts
 * @param input the input of each started workflow
 * @param searchAttributes attributes given to each started workflow (copied)
 */
public record ScheduleConfig(
        ScheduleTrigger trigger,
        OverlapPolicy overlapPolicy,
        CatchUpPolicy catchUpPolicy,
        String workflowType,
        Payload input,
        Map<String, SearchAttributeValue> searchAttributes) {
    /**
     * Validates the components (see the record's description).
     *
     * @param trigger when it fires
     * @param overlapPolicy what happens on overlap
     * @param catchUpPolicy what happens with missed triggers
     * @param workflowType the type of workflow it starts
     * @param input the input of each started workflow
     * @param searchAttributes attributes given to each started workflow (copied)
     */
    public ScheduleConfig {
        InvalidArgumentException.requireNonNull(trigger, "trigger");
        InvalidArgumentException.requireNonNull(overlapPolicy, "overlapPolicy");
        InvalidArgumentException.requireNonNull(catchUpPolicy, "catchUpPolicy");
        InvalidArgumentException.requireNonNull(workflowType, "workflowType");
        InvalidArgumentException.requireNonNull(input, "input");
        InvalidArgumentException.requireNonNull(searchAttributes, "searchAttributes");
        searchAttributes = Copies.map(searchAttributes, "searchAttributes");
    }
}
