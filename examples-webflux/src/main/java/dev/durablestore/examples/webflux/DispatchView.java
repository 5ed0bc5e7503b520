package dev.durablestore.examples.webflux;

import java.time.Instant;
import tools.jackson.databind.JsonNode;

/**
 * The data of one {@code dispatch} event of {@code GET /dispatches}: a claimed outbox row.
 *
 * @param dispatchKey the row's key (also the event's {@code id})
 * @param workflowId the workflow that scheduled it
 * @param activityId the activity's position in that workflow's history (the row's ordinal)
 * @param activityType the activity to run
 * @param taskQueue the task queue it was routed to
 * @param input the activity input
 * @param attempt the zero-based dispatch count: 0 on the first delivery
 * @param claimedAt when it was claimed
 */
public record DispatchView(
        String dispatchKey,
        String workflowId,
        long activityId,
        String activityType,
        String taskQueue,
        JsonNode input,
        int attempt,
        Instant claimedAt) {}
