package dev.durablestore.api;

import dev.durablestore.api.spi.StoredText;
import java.time.Instant;

/**
 * A filter and page of {@link OutboxStore#listOutbox(OutboxQuery)}: every non-null field narrows
 * the listing, which is ordered by dispatch key and continues after {@link #afterKey()}.
 *
 * @param status only rows in this status; null for any status
 * @param namespace only rows of this namespace; null for any
 * @param taskQueue only rows of this task queue; null for any
 * @param node only rows pinned to this node; null for any node or none
 * @param activityType only rows of this activity type; null for any
 * @param workflowId only rows of this workflow; null for any
 * @param dispatchKey only the row with this key; null for any
 * @param olderThan only rows whose status time is strictly before it: the claim time of a claimed
 *     row, the visibility of a pending row, the settle time of a settled one (a settled row without
 *     a recorded settle time never matches); null for any age
 * @param afterKey the page cursor: only rows whose key sorts strictly after it (code-point order);
 *     null to start at the first row
 * @param limit the most rows of the page, 0 to {@value #MAX_LIMIT}
 */
public record OutboxQuery(
        OutboxStatus status,
        String namespace,
        String taskQueue,
        String node,
        String activityType,
        WorkflowId workflowId,
        String dispatchKey,
        Instant olderThan,
        String afterKey,
        int limit) {

    /** The largest page. */
    public static final int MAX_LIMIT = 10_000;

    /** The largest cap of {@link OutboxStore#countByRoute}. */
    public static final int MAX_COUNT_CAP = 10_000_000;

    /** Checks the limit. */
    public OutboxQuery {
        if (limit < 0 || limit > MAX_LIMIT) {
            throw new InvalidArgumentException("limit", "must be between 0 and " + MAX_LIMIT + ", was " + limit);
        }
    }

    /**
     * @param limit the most rows
     * @return a query of every row, first page
     */
    public static OutboxQuery all(int limit) {
        return new OutboxQuery(null, null, null, null, null, null, null, null, null, limit);
    }

    /**
     * @param value the status, null for any
     * @return this query with the status
     */
    public OutboxQuery withStatus(OutboxStatus value) {
        return new OutboxQuery(
                value, namespace, taskQueue, node, activityType, workflowId, dispatchKey, olderThan, afterKey, limit);
    }

    /**
     * @param ns the namespace, null for any
     * @param queue the task queue, null for any
     * @param pinnedNode the node, null for any
     * @return this query with the route fields
     */
    public OutboxQuery withRoute(String ns, String queue, String pinnedNode) {
        return new OutboxQuery(
                status, ns, queue, pinnedNode, activityType, workflowId, dispatchKey, olderThan, afterKey, limit);
    }

    /**
     * @param value the activity type, null for any
     * @return this query with the activity type
     */
    public OutboxQuery withActivityType(String value) {
        return new OutboxQuery(
                status, namespace, taskQueue, node, value, workflowId, dispatchKey, olderThan, afterKey, limit);
    }

    /**
     * @param value the workflow, null for any
     * @return this query with the workflow
     */
    public OutboxQuery withWorkflowId(WorkflowId value) {
        return new OutboxQuery(
                status, namespace, taskQueue, node, activityType, value, dispatchKey, olderThan, afterKey, limit);
    }

    /**
     * @param value the dispatch key, null for any
     * @return this query with the key
     */
    public OutboxQuery withDispatchKey(String value) {
        return new OutboxQuery(
                status, namespace, taskQueue, node, activityType, workflowId, value, olderThan, afterKey, limit);
    }

    /**
     * @param value the age bound, null for any
     * @return this query with the age bound
     */
    public OutboxQuery withOlderThan(Instant value) {
        return new OutboxQuery(
                status, namespace, taskQueue, node, activityType, workflowId, dispatchKey, value, afterKey, limit);
    }

    /**
     * @param value the cursor, null for the first page
     * @return this query continuing after the key
     */
    public OutboxQuery withAfterKey(String value) {
        return new OutboxQuery(
                status, namespace, taskQueue, node, activityType, workflowId, dispatchKey, olderThan, value, limit);
    }

    /**
     * @param value the page size
     * @return this query with the page size
     */
    public OutboxQuery withLimit(int value) {
        return new OutboxQuery(
                status, namespace, taskQueue, node, activityType, workflowId, dispatchKey, olderThan, afterKey, value);
    }

    /** @return true when a text filter cannot be stored, so that no row can match (O33) */
    public boolean matchesNothing() {
        return unstorable(namespace)
                || unstorable(taskQueue)
                || unstorable(node)
                || unstorable(activityType)
                || unstorable(dispatchKey);
    }

    private static boolean unstorable(String text) {
        return text != null && !StoredText.storable(text);
    }
}
