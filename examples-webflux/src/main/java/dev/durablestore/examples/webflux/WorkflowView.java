package dev.durablestore.examples.webflux;

import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.WorkflowStatus;
import java.time.Instant;
import java.util.List;

/**
 * The body of {@code GET /workflows/{id}}: the summary projected from the history
 * ({@link dev.durablestore.core.projection.HistoryProjection#summarize}) and where each scheduled
 * activity's dispatch stands.
 *
 * @param workflowId the workflow
 * @param workflowType the type of the current run
 * @param status the projected status
 * @param startedAt when the current run started
 * @param endedAt when it ended, or {@code null}
 * @param failedStep the activity type that failed it, or {@code null}
 * @param failureReason why it failed, or {@code null}
 * @param head the number of events in the history
 * @param activities every scheduled activity, in history order
 */
public record WorkflowView(
        String workflowId,
        String workflowType,
        WorkflowStatus status,
        Instant startedAt,
        Instant endedAt,
        String failedStep,
        String failureReason,
        long head,
        List<Activity> activities) {

    /**
     * One scheduled activity and its outbox row.
     *
     * @param activityId the activity's position in the history
     * @param activityType its type
     * @param taskQueue its task queue
     * @param dispatchKey the key of its outbox row
     * @param dispatchStatus the row's status, or {@code null} when the row is gone (pruned)
     * @param dispatchAttempt the row's zero-based dispatch count, or {@code null} when the row is gone
     */
    public record Activity(
            long activityId,
            String activityType,
            String taskQueue,
            String dispatchKey,
            OutboxStatus dispatchStatus,
            Integer dispatchAttempt) {}
}
