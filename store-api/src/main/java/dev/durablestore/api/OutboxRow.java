package dev.durablestore.api;

import java.time.Instant;

/**
 * One dispatch of the transactional outbox (O1): an activity to hand to a dispatcher, staged in the
 * same transaction as the events that scheduled it.
 *
 * <p>Immutable; the {@code with*} methods return copies. The constructor checks each field on its
 * own; the cross-field invariant "{@code claimedAt} is present exactly when the status is
 * {@code CLAIMED}" (O6) is checked when a row is staged, because rows read back from old databases
 * may break it (O40).
 *
 * <p>The texts of a row — dispatch key, namespace, task queue, node and activity type — are kept
 * exactly; staging or re-arming a row refuses one that the store cannot keep (a NUL, an unpaired
 * UTF-16 surrogate, more than 1,024 UTF-8
 * bytes: rule X10) with {@link InvalidArgumentException} naming
 * it ({@code rows[0].dispatchKey}). The constructor does not check this, because rows are also read
 * back from databases written before the rule.
 *
 * <p><b>Claim token.</b> A row returned by a claim carries the identity of that claim,
 * {@link #claimToken()}: a non-zero number the claim wrote with the row's status, so it costs no
 * extra read. The fenced settles ({@link ReactiveStore#settle}) and
 * {@link ReactiveStore#commitStep} succeed only while the row is still {@code CLAIMED} under that
 * same token: once the lease reaper re-arms it, another dispatcher claims it again, or something
 * settles it, they fail with {@link StaleClaimException} and change nothing.
 * {@link ReactiveStore#heartbeat} keeps the token. A {@code CLAIMED} row read back
 * ({@link OperatorStore#listStaleClaimed}) carries the token of its current claim; every other row
 * (pending or settled, staged, re-armed, built by hand) has token 0. The token is part of the row's
 * equality: two claims of the same row are different rows.
 *
 * @param dispatchKey unique identity, canonically {@code <workflowId>:<ordinal>} (O2); non-empty
 * @param workflowId the workflow that staged it
 * @param ordinal non-negative ordinal within the workflow
 * @param runId the run that staged it, or {@code null}
 * @param namespace non-empty namespace ({@code "default"} for rows that predate namespaces)
 * @param taskQueue non-empty task queue
 * @param node the node the row is pinned to, or {@code null}
 * @param activityType the activity type to run
 * @param input the activity input
 * @param status the dispatch status
 * @param attempt zero-based dispatch count (not the 1-based activity attempt)
 * @param visibleAfter the earliest instant the row may be claimed
 * @param claimedAt when it was claimed, or {@code null}
 * @param claimToken the identity of the claim that returned this row, or 0 for a row that does not
 *     come from a claim; non-zero only when the status is {@code CLAIMED}; negative when the claim
 *     was serial per workflow ({@link DispatchPolicy}, O63)
 * @param traceContext the trace context of the code that staged the row (O59), stored with it and
 *     returned by every read, or {@code null} for none: propagation fields as {@code name=value}
 *     lines (W3C {@code traceparent}, {@code tracestate}, …), written by
 *     {@code ObservedStore} (module {@code durable-store-micrometer}) and opaque to the store; at most
 *     {@value #MAX_TRACE_CONTEXT} characters
 * @param priority how early the row is claimed among the due rows (O62): {@value #MIN_PRIORITY}
 *     (the default: no priority) to {@value #MAX_PRIORITY}, higher first; rows of equal priority
 *     keep the claim order of O19 (visibility, then key). Priority is strict, without aging: while
 *     prioritized rows keep coming due, rows of lower priority on the same route wait
 */
public record OutboxRow(
        String dispatchKey,
        WorkflowId workflowId,
        long ordinal,
        RunId runId,
        String namespace,
        String taskQueue,
        String node,
        String activityType,
        Payload input,
        OutboxStatus status,
        int attempt,
        Instant visibleAfter,
        Instant claimedAt,
        long claimToken,
        String traceContext,
        int priority) {

    /** The namespace and task queue of rows that name none. */
    public static final String DEFAULT_ROUTE = "default";

    /** The longest {@link #traceContext()}, in characters. */
    public static final int MAX_TRACE_CONTEXT = 4096;

    /**
     * The lowest {@link #priority()}, and every row's default: rows staged without a priority keep
     * exactly the claim order and the claim cost they had before priorities existed (O62).
     */
    public static final int MIN_PRIORITY = 0;

    /**
     * The highest {@link #priority()}. Ten levels, like a queue's small priority byte: enough to
     * put urgent work first, few enough that each level stays a meaningful promise, and every level
     * above the default lives in a small index of its own (docs/claim-stream.md: priorities).
     */
    public static final int MAX_PRIORITY = 9;

    /**
     * Validates the components (see the record's description).
     *
     * @param dispatchKey see the record component
     * @param workflowId the workflow that staged it
     * @param ordinal non-negative ordinal within the workflow
     * @param runId see the record component
     * @param namespace see the record component
     * @param taskQueue non-empty task queue
     * @param node see the record component
     * @param activityType the activity type to run
     * @param input the activity input
     * @param status the dispatch status
     * @param attempt zero-based dispatch count (not the 1-based activity attempt)
     * @param visibleAfter the earliest instant the row may be claimed
     * @param claimedAt see the record component
     * @param claimToken see the record component
     * @param traceContext see the record component
     * @param priority see the record component
     */
    public OutboxRow {
        InvalidArgumentException.requireNonEmpty(dispatchKey, "row.dispatchKey");
        InvalidArgumentException.requireNonNull(workflowId, "row.workflowId");
        InvalidArgumentException.requireNonNegative(ordinal, "row.ordinal");
        InvalidArgumentException.requireNonEmpty(namespace, "row.namespace");
        InvalidArgumentException.requireNonEmpty(taskQueue, "row.taskQueue");
        if (node != null && node.isEmpty()) {
            throw new InvalidArgumentException("row.node", "must be null or non-empty");
        }
        InvalidArgumentException.requireNonNull(activityType, "row.activityType");
        InvalidArgumentException.requireNonNull(input, "row.input");
        InvalidArgumentException.requireNonNull(status, "row.status");
        InvalidArgumentException.requireNonNegative(attempt, "row.attempt");
        InvalidArgumentException.requireNonNull(visibleAfter, "row.visibleAfter");
        if (claimToken != 0 && status != OutboxStatus.CLAIMED) {
            throw new InvalidArgumentException(
                    "row.claimToken",
                    "must be 0 unless the status is CLAIMED, was " + claimToken + " with status " + status);
        }
        if (traceContext != null && (traceContext.isEmpty() || traceContext.length() > MAX_TRACE_CONTEXT)) {
            throw new InvalidArgumentException(
                    "row.traceContext",
                    "must be null or 1 to " + MAX_TRACE_CONTEXT + " characters, was " + traceContext.length());
        }
        if (priority < MIN_PRIORITY || priority > MAX_PRIORITY) {
            throw new InvalidArgumentException(
                    "row.priority", "must be between " + MIN_PRIORITY + " and " + MAX_PRIORITY + ", was " + priority);
        }
    }

    /**
     * A row without a priority (the default, {@value #MIN_PRIORITY}; see the record's description).
     *
     * @param dispatchKey see the record component
     * @param workflowId the workflow that staged it
     * @param ordinal non-negative ordinal within the workflow
     * @param runId see the record component
     * @param namespace see the record component
     * @param taskQueue non-empty task queue
     * @param node see the record component
     * @param activityType the activity type to run
     * @param input the activity input
     * @param status the dispatch status
     * @param attempt zero-based dispatch count (not the 1-based activity attempt)
     * @param visibleAfter the earliest instant the row may be claimed
     * @param claimedAt see the record component
     * @param claimToken see the record component
     * @param traceContext see the record component
     */
    public OutboxRow(
            String dispatchKey,
            WorkflowId workflowId,
            long ordinal,
            RunId runId,
            String namespace,
            String taskQueue,
            String node,
            String activityType,
            Payload input,
            OutboxStatus status,
            int attempt,
            Instant visibleAfter,
            Instant claimedAt,
            long claimToken,
            String traceContext) {
        this(
                dispatchKey,
                workflowId,
                ordinal,
                runId,
                namespace,
                taskQueue,
                node,
                activityType,
                input,
                status,
                attempt,
                visibleAfter,
                claimedAt,
                claimToken,
                traceContext,
                MIN_PRIORITY);
    }

    /**
     * A row without a trace context (see the record's description).
     *
     * @param dispatchKey see the record component
     * @param workflowId the workflow that staged it
     * @param ordinal non-negative ordinal within the workflow
     * @param runId see the record component
     * @param namespace see the record component
     * @param taskQueue non-empty task queue
     * @param node see the record component
     * @param activityType the activity type to run
     * @param input the activity input
     * @param status the dispatch status
     * @param attempt zero-based dispatch count (not the 1-based activity attempt)
     * @param visibleAfter the earliest instant the row may be claimed
     * @param claimedAt see the record component
     * @param claimToken see the record component
     */
    public OutboxRow(
            String dispatchKey,
            WorkflowId workflowId,
            long ordinal,
            RunId runId,
            String namespace,
            String taskQueue,
            String node,
            String activityType,
            Payload input,
            OutboxStatus status,
            int attempt,
            Instant visibleAfter,
            Instant claimedAt,
            long claimToken) {
        this(
                dispatchKey,
                workflowId,
                ordinal,
                runId,
                namespace,
                taskQueue,
                node,
                activityType,
                input,
                status,
                attempt,
                visibleAfter,
                claimedAt,
                claimToken,
                null,
                MIN_PRIORITY);
    }

    /**
     * A row that does not come from a claim: claim token 0, no trace context (see the record's
     * description).
     *
     * @param dispatchKey see the record component
     * @param workflowId the workflow that staged it
     * @param ordinal non-negative ordinal within the workflow
     * @param runId see the record component
     * @param namespace see the record component
     * @param taskQueue non-empty task queue
     * @param node see the record component
     * @param activityType the activity type to run
     * @param input the activity input
     * @param status the dispatch status
     * @param attempt zero-based dispatch count (not the 1-based activity attempt)
     * @param visibleAfter the earliest instant the row may be claimed
     * @param claimedAt see the record component
     */
    public OutboxRow(
            String dispatchKey,
            WorkflowId workflowId,
            long ordinal,
            RunId runId,
            String namespace,
            String taskQueue,
            String node,
            String activityType,
            Payload input,
            OutboxStatus status,
            int attempt,
            Instant visibleAfter,
            Instant claimedAt) {
        this(
                dispatchKey,
                workflowId,
                ordinal,
                runId,
                namespace,
                taskQueue,
                node,
                activityType,
                input,
                status,
                attempt,
                visibleAfter,
                claimedAt,
                0L,
                null,
                MIN_PRIORITY);
    }

    /**
     * The canonical dispatch key (O2).
     *
     * @param workflowId the workflow
     * @param ordinal the ordinal
     * @return {@code <workflowId>:<ordinal>}
     */
    public static String dispatchKey(WorkflowId workflowId, long ordinal) {
        return workflowId + ":" + ordinal;
    }

    /**
     * A fresh row (O5): canonical key, {@code PENDING}, attempt 0, visible at {@code now}, no claim,
     * no run, default namespace and task queue, no node.
     *
     * @param workflowId the workflow
     * @param ordinal the ordinal
     * @param activityType the activity type
     * @param input the input
     * @param now the instant it becomes claimable
     * @return the row
     */
    public static OutboxRow pending(
            WorkflowId workflowId, long ordinal, String activityType, Payload input, Instant now) {
        InvalidArgumentException.requireNonNull(workflowId, "workflowId");
        return new OutboxRow(
                dispatchKey(workflowId, ordinal),
                workflowId,
                ordinal,
                null,
                DEFAULT_ROUTE,
                DEFAULT_ROUTE,
                null,
                activityType,
                input,
                OutboxStatus.PENDING,
                0,
                now,
                null);
    }

    /** @return true when the status is live ({@code PENDING} or {@code CLAIMED}) */
    public boolean isLive() {
        return status.isLive();
    }

    /** @return the route of this row, as {@link OperatorStore#pendingRoutes()} reports it */
    public ClaimScope route() {
        return new ClaimScope(namespace, taskQueue, node);
    }

    /**
     * @param value the run that staged the row, or {@code null}
     * @return a copy with the run set
     */
    public OutboxRow withRunId(RunId value) {
        return new OutboxRow(
                dispatchKey,
                workflowId,
                ordinal,
                value,
                namespace,
                taskQueue,
                node,
                activityType,
                input,
                status,
                attempt,
                visibleAfter,
                claimedAt,
                claimToken,
                traceContext,
                priority);
    }

    /**
     * @param newNamespace the namespace
     * @param newTaskQueue the task queue
     * @param newNode the node, or {@code null}
     * @return a copy with the route set
     */
    public OutboxRow withRoute(String newNamespace, String newTaskQueue, String newNode) {
        return new OutboxRow(
                dispatchKey,
                workflowId,
                ordinal,
                runId,
                newNamespace,
                newTaskQueue,
                newNode,
                activityType,
                input,
                status,
                attempt,
                visibleAfter,
                claimedAt,
                claimToken,
                traceContext,
                priority);
    }

    /**
     * @param value the status
     * @param newClaimedAt the claim instant, or {@code null}
     * @return a copy with status and claim instant set; the claim token is kept when the status
     *     stays {@code CLAIMED} and is 0 otherwise
     */
    public OutboxRow withStatus(OutboxStatus value, Instant newClaimedAt) {
        return new OutboxRow(
                dispatchKey,
                workflowId,
                ordinal,
                runId,
                namespace,
                taskQueue,
                node,
                activityType,
                input,
                value,
                attempt,
                visibleAfter,
                newClaimedAt,
                value == OutboxStatus.CLAIMED ? claimToken : 0L,
                traceContext,
                priority);
    }

    /**
     * @param value the identity of the claim that returned the row; non-zero only for a
     *     {@code CLAIMED} row
     * @return a copy with the claim token set
     */
    public OutboxRow withClaimToken(long value) {
        return new OutboxRow(
                dispatchKey,
                workflowId,
                ordinal,
                runId,
                namespace,
                taskQueue,
                node,
                activityType,
                input,
                status,
                attempt,
                visibleAfter,
                claimedAt,
                value,
                traceContext,
                priority);
    }

    /**
     * @param value the dispatch count
     * @return a copy with the attempt set
     */
    public OutboxRow withAttempt(int value) {
        return new OutboxRow(
                dispatchKey,
                workflowId,
                ordinal,
                runId,
                namespace,
                taskQueue,
                node,
                activityType,
                input,
                status,
                value,
                visibleAfter,
                claimedAt,
                claimToken,
                traceContext,
                priority);
    }

    /**
     * @param value the earliest claim instant
     * @return a copy with {@code visibleAfter} set
     */
    public OutboxRow withVisibleAfter(Instant value) {
        return new OutboxRow(
                dispatchKey,
                workflowId,
                ordinal,
                runId,
                namespace,
                taskQueue,
                node,
                activityType,
                input,
                status,
                attempt,
                value,
                claimedAt,
                claimToken,
                traceContext,
                priority);
    }

    /**
     * @param value the trace context of the code that stages the row, or {@code null} (O59)
     * @return a copy with the trace context set
     */
    public OutboxRow withTraceContext(String value) {
        return new OutboxRow(
                dispatchKey,
                workflowId,
                ordinal,
                runId,
                namespace,
                taskQueue,
                node,
                activityType,
                input,
                status,
                attempt,
                visibleAfter,
                claimedAt,
                claimToken,
                value,
                priority);
    }

    /**
     * @param value {@value #MIN_PRIORITY} (none) to {@value #MAX_PRIORITY}, higher claimed first (O62)
     * @return a copy with the priority set
     * @throws InvalidArgumentException naming {@code row.priority} when out of range
     */
    public OutboxRow withPriority(int value) {
        return new OutboxRow(
                dispatchKey,
                workflowId,
                ordinal,
                runId,
                namespace,
                taskQueue,
                node,
                activityType,
                input,
                status,
                attempt,
                visibleAfter,
                claimedAt,
                claimToken,
                traceContext,
                value);
    }
}
