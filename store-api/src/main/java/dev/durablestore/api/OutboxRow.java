package dev.durablestore.api;

import dev.durablestore.api.internal.Rows;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * One dispatch of the transactional outbox (O1): an activity to hand to a dispatcher, staged in the
 * same transaction as the events that scheduled it.
 *
 * <p>Immutable; built with {@link #pending} and the {@code with*} copies, each checking every field
 * on its own; the cross-field invariant "{@code claimedAt} is present exactly when the status is
 * {@code CLAIMED}" (O6) is checked when a row is staged, because rows read back from old databases
 * may break it (O40).
 *
 * <p>The texts of a row — dispatch key, namespace, task queue, node and activity type — are kept
 * exactly; staging or re-arming a row refuses one that the store cannot keep (a NUL, an unpaired
 * UTF-16 surrogate, more than 1,024 UTF-8
 * bytes: rule X10) with {@link InvalidArgumentException} naming
 * it ({@code rows[0].dispatchKey}). Building a row does not check this, because rows are also read
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
 * equality ({@link #equals}, over every field): two claims of the same row are different rows.
 *
 * <p><b>Failures.</b> A retry or dead-letter that gives a reason ({@link Settlement#withReason})
 * records it with the row; every read of the row returns its last {@value #MAX_FAILURES}
 * ({@link #failures()}, O66). Only settles write them: staging and re-arming never do, and a row
 * built by hand has none.
 */
public final class OutboxRow {

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
     * The most {@link #failures()} a row keeps: a new failure beyond them replaces the oldest. With
     * each reason at most {@value FailureReason#MAX_BYTES} bytes of text, a row holds at most 20 KiB
     * of failure texts however often it is retried.
     */
    public static final int MAX_FAILURES = 5;

    static {
        Rows.install(new RowAccess());
    }

    private final String dispatchKey;
    private final WorkflowId workflowId;
    private final long ordinal;
    private final RunId runId;
    private final String namespace;
    private final String taskQueue;
    private final String node;
    private final String activityType;
    private final Payload input;
    private final OutboxStatus status;
    private final int attempt;
    private final Instant visibleAfter;
    private final Instant claimedAt;
    private final long claimToken;
    private final String traceContext;
    private final int priority;
    private final List<AttemptFailure> failures;

    /** Checks each field on its own (see the class description); the one constructor. */
    private OutboxRow(
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
            int priority,
            List<AttemptFailure> failures) {
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
        InvalidArgumentException.requireNonNull(failures, "row.failures");
        if (failures.size() > MAX_FAILURES) {
            throw new InvalidArgumentException(
                    "row.failures", "must hold at most " + MAX_FAILURES + " failures, was " + failures.size());
        }
        for (int i = 0; i < failures.size(); i++) {
            InvalidArgumentException.requireNonNull(failures.get(i), "row.failures[" + i + "]");
        }

        this.dispatchKey = dispatchKey;
        this.workflowId = workflowId;
        this.ordinal = ordinal;
        this.runId = runId;
        this.namespace = namespace;
        this.taskQueue = taskQueue;
        this.node = node;
        this.activityType = activityType;
        this.input = input;
        this.status = status;
        this.attempt = attempt;
        this.visibleAfter = visibleAfter;
        this.claimedAt = claimedAt;
        this.claimToken = claimToken;
        this.traceContext = traceContext;
        this.priority = priority;
        this.failures = List.copyOf(failures);
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
                null,
                0L,
                null,
                MIN_PRIORITY,
                List.of());
    }

    /** @return unique identity, canonically {@code <workflowId>:<ordinal>} (O2); non-empty */
    public String dispatchKey() {
        return dispatchKey;
    }

    /** @return the workflow that staged it */
    public WorkflowId workflowId() {
        return workflowId;
    }

    /** @return non-negative ordinal within the workflow */
    public long ordinal() {
        return ordinal;
    }

    /** @return the run that staged it, or {@code null} */
    public RunId runId() {
        return runId;
    }

    /** @return non-empty namespace ({@code "default"} for rows that predate namespaces) */
    public String namespace() {
        return namespace;
    }

    /** @return non-empty task queue */
    public String taskQueue() {
        return taskQueue;
    }

    /** @return the node the row is pinned to, or {@code null} */
    public String node() {
        return node;
    }

    /** @return the activity type to run */
    public String activityType() {
        return activityType;
    }

    /** @return the activity input */
    public Payload input() {
        return input;
    }

    /** @return the dispatch status */
    public OutboxStatus status() {
        return status;
    }

    /** @return zero-based dispatch count (not the 1-based activity attempt) */
    public int attempt() {
        return attempt;
    }

    /** @return the earliest instant the row may be claimed */
    public Instant visibleAfter() {
        return visibleAfter;
    }

    /** @return when it was claimed, or {@code null} */
    public Instant claimedAt() {
        return claimedAt;
    }

    /**
     * @return the identity of the claim that returned this row, or 0 for a row that does not come
     *     from a claim; non-zero only when the status is {@code CLAIMED}; negative when the claim was
     *     serial per workflow ({@link DispatchPolicy}, O63)
     */
    public long claimToken() {
        return claimToken;
    }

    /**
     * @return the trace context of the code that staged the row (O59), stored with it and returned
     *     by every read, or {@code null} for none: propagation fields as {@code name=value} lines (W3C
     *     {@code traceparent}, {@code tracestate}, …), written by {@code ObservedStore} (module {@code
     *     durable-store-micrometer}) and opaque to the store; at most {@value #MAX_TRACE_CONTEXT}
     *     characters
     */
    public String traceContext() {
        return traceContext;
    }

    /**
     * @return how early the row is claimed among the due rows (O62): {@value #MIN_PRIORITY} (the
     *     default: no priority) to {@value #MAX_PRIORITY}, higher first; rows of equal priority keep
     *     the claim order of O19 (visibility, then key). Priority is strict, without aging: while
     *     prioritized rows keep coming due, rows of lower priority on the same route wait
     */
    public int priority() {
        return priority;
    }

    /**
     * @return the row's last failed attempts, oldest first, at most {@value #MAX_FAILURES}: one for
     *     each retry or dead-letter that gave a reason ({@link Settlement#withReason}, O66); empty
     *     when none did, and for rows stored before failures were kept (an older file or database,
     *     migrated in place). Attempts are numbered from 1 ({@link AttemptFailure#attempt()}, O67)
     */
    public List<AttemptFailure> failures() {
        return failures;
    }

    /** @return the newest of {@link #failures()}, or {@code null} when the row has none */
    public AttemptFailure lastFailure() {
        return failures.isEmpty() ? null : failures.get(failures.size() - 1);
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
     * @param value the row's identity, for a row whose key is not the canonical
     *     {@code <workflowId>:<ordinal>} (O2); non-empty
     * @return a copy with the dispatch key set
     * @throws InvalidArgumentException naming {@code row.dispatchKey} when null or empty
     */
    public OutboxRow withDispatchKey(String value) {
        return with(d -> d.dispatchKey = value);
    }

    /**
     * @param value the run that staged the row, or {@code null}
     * @return a copy with the run set
     */
    public OutboxRow withRunId(RunId value) {
        return with(d -> d.runId = value);
    }

    /**
     * @param newNamespace the namespace
     * @param newTaskQueue the task queue
     * @param newNode the node, or {@code null}
     * @return a copy with the route set
     * @throws InvalidArgumentException naming {@code row.namespace}, {@code row.taskQueue} or
     *     {@code row.node} when empty
     */
    public OutboxRow withRoute(String newNamespace, String newTaskQueue, String newNode) {
        return with(d -> {
            d.namespace = newNamespace;
            d.taskQueue = newTaskQueue;
            d.node = newNode;
        });
    }

    /**
     * @param value the status
     * @param newClaimedAt the claim instant, or {@code null}
     * @return a copy with status and claim instant set; the claim token is kept when the status
     *     stays {@code CLAIMED} and is 0 otherwise
     */
    public OutboxRow withStatus(OutboxStatus value, Instant newClaimedAt) {
        return with(d -> {
            d.status = value;
            d.claimedAt = newClaimedAt;
            d.claimToken = value == OutboxStatus.CLAIMED ? claimToken : 0L;
        });
    }

    /**
     * @param value the dispatch count
     * @return a copy with the attempt set
     */
    public OutboxRow withAttempt(int value) {
        return with(d -> d.attempt = value);
    }

    /**
     * @param value the earliest claim instant
     * @return a copy with {@code visibleAfter} set
     */
    public OutboxRow withVisibleAfter(Instant value) {
        return with(d -> d.visibleAfter = value);
    }

    /**
     * @param value the trace context of the code that stages the row, or {@code null} (O59)
     * @return a copy with the trace context set
     */
    public OutboxRow withTraceContext(String value) {
        return with(d -> d.traceContext = value);
    }

    /**
     * @param value {@value #MIN_PRIORITY} (none) to {@value #MAX_PRIORITY}, higher claimed first (O62)
     * @return a copy with the priority set
     * @throws InvalidArgumentException naming {@code row.priority} when out of range
     */
    public OutboxRow withPriority(int value) {
        return with(d -> d.priority = value);
    }

    /**
     * @return a checked copy of this row with {@code change} made to it: the one way rows are
     *     copied
     */
    private OutboxRow with(Consumer<Draft> change) {
        Draft d = new Draft(this);
        change.accept(d);
        return d.build();
    }

    /** A row being changed. */
    private static final class Draft {

        private String dispatchKey;
        private WorkflowId workflowId;
        private long ordinal;
        private RunId runId;
        private String namespace;
        private String taskQueue;
        private String node;
        private String activityType;
        private Payload input;
        private OutboxStatus status;
        private int attempt;
        private Instant visibleAfter;
        private Instant claimedAt;
        private long claimToken;
        private String traceContext;
        private int priority;
        private final List<AttemptFailure> failures;

        private Draft(OutboxRow r) {
            dispatchKey = r.dispatchKey;
            workflowId = r.workflowId;
            ordinal = r.ordinal;
            runId = r.runId;
            namespace = r.namespace;
            taskQueue = r.taskQueue;
            node = r.node;
            activityType = r.activityType;
            input = r.input;
            status = r.status;
            attempt = r.attempt;
            visibleAfter = r.visibleAfter;
            claimedAt = r.claimedAt;
            claimToken = r.claimToken;
            traceContext = r.traceContext;
            priority = r.priority;
            failures = r.failures;
        }

        private OutboxRow build() {
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
                    priority,
                    failures);
        }
    }

    /** Equal when every field is, the claim token included. */
    @Override
    public boolean equals(Object o) {
        return o instanceof OutboxRow r
                && Objects.equals(dispatchKey, r.dispatchKey)
                && Objects.equals(workflowId, r.workflowId)
                && ordinal == r.ordinal
                && Objects.equals(runId, r.runId)
                && Objects.equals(namespace, r.namespace)
                && Objects.equals(taskQueue, r.taskQueue)
                && Objects.equals(node, r.node)
                && Objects.equals(activityType, r.activityType)
                && Objects.equals(input, r.input)
                && status == r.status
                && attempt == r.attempt
                && Objects.equals(visibleAfter, r.visibleAfter)
                && Objects.equals(claimedAt, r.claimedAt)
                && claimToken == r.claimToken
                && Objects.equals(traceContext, r.traceContext)
                && priority == r.priority
                && failures.equals(r.failures);
    }

    @Override
    public int hashCode() {
        return Objects.hash(
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
                priority,
                failures);
    }

    @Override
    public String toString() {
        return "OutboxRow[" + "dispatchKey=" + dispatchKey + ", " + "workflowId=" + workflowId + ", " + "ordinal="
                + ordinal + ", " + "runId=" + runId + ", " + "namespace=" + namespace + ", " + "taskQueue=" + taskQueue
                + ", " + "node=" + node + ", " + "activityType=" + activityType + ", " + "input=" + input + ", "
                + "status=" + status + ", " + "attempt=" + attempt + ", " + "visibleAfter=" + visibleAfter + ", "
                + "claimedAt=" + claimedAt + ", " + "claimToken=" + claimToken + ", " + "traceContext=" + traceContext
                + ", " + "priority=" + priority + ", failures=" + failures + "]";
    }

    /** How {@link Rows} builds the rows a backend reads, and the kit's rows under a claim token. */
    private static final class RowAccess implements Rows.Access {
        @Override
        public OutboxRow stored(
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
                int priority,
                List<AttemptFailure> failures) {
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
                    priority,
                    failures);
        }

        @Override
        public OutboxRow withClaimToken(OutboxRow row, long claimToken) {
            return row.with(d -> d.claimToken = claimToken);
        }
    }
}
