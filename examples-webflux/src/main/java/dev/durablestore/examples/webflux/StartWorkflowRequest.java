package dev.durablestore.examples.webflux;

import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * The body of {@code POST /workflows}.
 *
 * <pre>{@code
 * {"type": "checkout", "input": {"order": 42},
 *  "activities": [{"type": "charge-card", "input": {"amount": 10}}, {"type": "send-email", "taskQueue": "mail"}]}
 * }</pre>
 *
 * @param id the workflow id (canonical UUID text), or {@code null} for a new random one; posting
 *     the same id twice is a conflict (409)
 * @param type the workflow type; required, not blank
 * @param input the workflow input, any JSON value; {@code {}} when absent
 * @param activities the activities to schedule, in order; none when absent
 */
public record StartWorkflowRequest(String id, String type, JsonNode input, List<Activity> activities) {

    /**
     * One activity to schedule.
     *
     * @param type the activity type; required, not blank
     * @param input the activity input, any JSON value; {@code {}} when absent
     * @param taskQueue the task queue its dispatch row is routed to; {@code default} when absent
     */
    public record Activity(String type, JsonNode input, String taskQueue) {}
}
