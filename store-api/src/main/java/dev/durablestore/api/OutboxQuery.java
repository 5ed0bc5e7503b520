package dev.durablestore.api;

import dev.durablestore.api.internal.StoredText;
import java.time.Instant;
import java.util.Objects;

/**
 * A filter and page of {@link OperatorStore#listOutbox(OutboxQuery)}: every non-null field narrows
 * the listing, which is ordered by dispatch key and continues after {@link #afterKey()}. Immutable
 * and validated when built: start from {@link #all(int)}; each {@code with*} method returns a
 * checked copy and leaves this one unchanged, so its result must be used (a {@code with*} call as a
 * statement does nothing; Error Prone reports it).
 *
 * <pre>{@code
 * OutboxQuery failed = OutboxQuery.all(100)
 *         .withStatus(OutboxStatus.FAILED)
 *         .withRoute("default", "payments", null);
 * }</pre>
 */
public final class OutboxQuery {

    /** The largest page. */
    public static final int MAX_LIMIT = 10_000;

    /** The largest cap of {@link OperatorStore#countByRoute}. */
    public static final int MAX_COUNT_CAP = 10_000_000;

    private final OutboxStatus status;
    private final String namespace;
    private final String taskQueue;
    private final String node;
    private final String activityType;
    private final WorkflowId workflowId;
    private final String dispatchKey;
    private final Instant olderThan;
    private final String afterKey;
    private final int limit;

    private OutboxQuery(
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
        if (limit < 0 || limit > MAX_LIMIT) {
            throw new InvalidArgumentException("limit", "must be between 0 and " + MAX_LIMIT + ", was " + limit);
        }
        this.status = status;
        this.namespace = namespace;
        this.taskQueue = taskQueue;
        this.node = node;
        this.activityType = activityType;
        this.workflowId = workflowId;
        this.dispatchKey = dispatchKey;
        this.olderThan = olderThan;
        this.afterKey = afterKey;
        this.limit = limit;
    }

    /**
     * @param limit the most rows, 0 to {@value #MAX_LIMIT}
     * @return a query of every row, first page
     * @throws InvalidArgumentException naming {@code limit} when out of range
     */
    public static OutboxQuery all(int limit) {
        return new OutboxQuery(null, null, null, null, null, null, null, null, null, limit);
    }

    /**
     * @return only rows in this status; null for any status
     */
    public OutboxStatus status() {
        return status;
    }

    /**
     * @return only rows of this namespace; null for any
     */
    public String namespace() {
        return namespace;
    }

    /**
     * @return only rows of this task queue; null for any
     */
    public String taskQueue() {
        return taskQueue;
    }

    /**
     * @return only rows pinned to this node; null for any node or none
     */
    public String node() {
        return node;
    }

    /**
     * @return only rows of this activity type; null for any
     */
    public String activityType() {
        return activityType;
    }

    /**
     * @return only rows of this workflow; null for any
     */
    public WorkflowId workflowId() {
        return workflowId;
    }

    /**
     * @return only the row with this key; null for any
     */
    public String dispatchKey() {
        return dispatchKey;
    }

    /**
     * @return only rows whose status time is strictly before it: the claim time of a claimed
     *     row, the visibility of a pending row, the settle time of a settled one (a settled row
     *     without a recorded settle time never matches); null for any age
     */
    public Instant olderThan() {
        return olderThan;
    }

    /**
     * @return the page cursor: only rows whose key sorts strictly after it (code-point order);
     *     null to start at the first row
     */
    public String afterKey() {
        return afterKey;
    }

    /**
     * @return the most rows of the page, 0 to {@value #MAX_LIMIT}
     */
    public int limit() {
        return limit;
    }

    /**
     * @param value the status, null for any
     * @return a copy with the status
     */
    public OutboxQuery withStatus(OutboxStatus value) {
        return new OutboxQuery(
                value, namespace, taskQueue, node, activityType, workflowId, dispatchKey, olderThan, afterKey, limit);
    }

    /**
     * @param ns the namespace, null for any
     * @param queue the task queue, null for any
     * @param pinnedNode the node, null for any
     * @return a copy with the route fields
     */
    public OutboxQuery withRoute(String ns, String queue, String pinnedNode) {
        return new OutboxQuery(
                status, ns, queue, pinnedNode, activityType, workflowId, dispatchKey, olderThan, afterKey, limit);
    }

    /**
     * @param value the activity type, null for any
     * @return a copy with the activity type
     */
    public OutboxQuery withActivityType(String value) {
        return new OutboxQuery(
                status, namespace, taskQueue, node, value, workflowId, dispatchKey, olderThan, afterKey, limit);
    }

    /**
     * @param value the workflow, null for any
     * @return a copy with the workflow
     */
    public OutboxQuery withWorkflowId(WorkflowId value) {
        return new OutboxQuery(
                status, namespace, taskQueue, node, activityType, value, dispatchKey, olderThan, afterKey, limit);
    }

    /**
     * @param value the dispatch key, null for any
     * @return a copy with the key
     */
    public OutboxQuery withDispatchKey(String value) {
        return new OutboxQuery(
                status, namespace, taskQueue, node, activityType, workflowId, value, olderThan, afterKey, limit);
    }

    /**
     * @param value the age bound, null for any
     * @return a copy with the age bound
     */
    public OutboxQuery withOlderThan(Instant value) {
        return new OutboxQuery(
                status, namespace, taskQueue, node, activityType, workflowId, dispatchKey, value, afterKey, limit);
    }

    /**
     * @param value the cursor, null for the first page
     * @return a copy continuing after the key
     */
    public OutboxQuery withAfterKey(String value) {
        return new OutboxQuery(
                status, namespace, taskQueue, node, activityType, workflowId, dispatchKey, olderThan, value, limit);
    }

    /**
     * @param value the page size, 0 to {@value #MAX_LIMIT}
     * @return a copy with the page size
     * @throws InvalidArgumentException naming {@code limit} when out of range
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

    @Override
    public boolean equals(Object o) {
        return o instanceof OutboxQuery q
                && status == q.status
                && Objects.equals(namespace, q.namespace)
                && Objects.equals(taskQueue, q.taskQueue)
                && Objects.equals(node, q.node)
                && Objects.equals(activityType, q.activityType)
                && Objects.equals(workflowId, q.workflowId)
                && Objects.equals(dispatchKey, q.dispatchKey)
                && Objects.equals(olderThan, q.olderThan)
                && Objects.equals(afterKey, q.afterKey)
                && limit == q.limit;
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                status, namespace, taskQueue, node, activityType, workflowId, dispatchKey, olderThan, afterKey, limit);
    }

    @Override
    public String toString() {
        return "OutboxQuery[status=" + status + ", namespace=" + namespace + ", taskQueue=" + taskQueue + ", node="
                + node + ", activityType=" + activityType + ", workflowId=" + workflowId + ", dispatchKey="
                + dispatchKey + ", olderThan=" + olderThan + ", afterKey=" + afterKey + ", limit=" + limit + "]";
    }
}
