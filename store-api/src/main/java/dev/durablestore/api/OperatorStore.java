package dev.durablestore.api;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * What an operator console, a lease reaper or a maintenance job uses: listings and checks of the
 * history, listings and counts of the outbox, and its repairs (re-arm, redrive, cancel, prune, the
 * unfenced settle by keys). Every {@link ReactiveStore} is one; code that needs only this part
 * (such as {@link OutboxLeaseReaper}) takes this type.
 *
 * <p>Cold publishers, errors as signals, as on {@link ReactiveStore}. Every operation that looks a
 * key or a namespace up answers a text no row can hold (X10) as one that is not stored: settles
 * are no-ops, {@link #rowState} is empty, {@link #redrive} is false, counts are 0.
 */
public interface OperatorStore {

    // ------------------------------------------------------------------ history: listings and checks

    /**
     * @return every workflow with at least one event, once each, in ascending id order (R9)
     */
    Flux<WorkflowId> listWorkflowIds();

    /**
     * @return the workflows whose projected status is {@code RUNNING}, in ascending id order (R19)
     */
    Flux<WorkflowId> listActive();

    /**
     * @return the workflows whose projected status is {@code PAUSED}, in ascending id order (R20)
     */
    Flux<WorkflowId> listPaused();

    /**
     * Projects a summary for each workflow that has a {@code WorkflowStarted} and matches the filter
     * (R24–R39).
     *
     * @param filter the filter; {@link WorkflowFilter#all()} matches every started workflow
     * @return the summaries ordered by start time, then workflow id
     */
    Flux<WorkflowSummary> query(WorkflowFilter filter);

    /**
     * Splits the history into runs and orders them root first along parent links (R40–R45).
     *
     * @param workflowId the workflow
     * @return the runs; an empty list for an unknown workflow or one with no start event; fails
     *     with {@link BackendException} for a malformed chain
     */
    Mono<List<RunSummary>> readRunChain(WorkflowId workflowId);

    /**
     * Decodes every stored event, ordered by workflow id then {@code seq} (S25).
     *
     * @return completes empty when every event decodes; otherwise fails with a
     *     {@link SerializationException} naming the first undecodable event's workflow and seq
     */
    Mono<Void> validateStoredEvents();

    /**
     * Decodes every stored event and reports each one that does not decode, ordered by workflow id
     * then {@code seq}; read-only. Where {@link #validateStoredEvents()} stops at the first bad
     * row, this finds them all, e.g. to repair or quarantine them.
     *
     * @return every undecodable event; empty when all decode
     */
    Flux<UndecodableEvent> findUndecodableEvents();

    // ------------------------------------------------------------------ outbox: listings and counts

    /**
     * Lists stored rows matching every non-null field of the query, ordered by dispatch key
     * (code-point order), at most {@code query.limit()} of them; read-only (O60). A page continues
     * after {@link OutboxQuery#afterKey()}: passing the last key of a page lists the next one. A
     * text filter that cannot be stored matches nothing (O33). Built for operator tools (dead
     * letters, stuck claims, a workflow's rows), not for dispatch: a filter that matches few of many
     * rows may read many.
     *
     * @param query the filter and page
     * @return the rows, with their claim tokens, so a listed claimed row can be settled fenced;
     *     fails with {@link InvalidArgumentException} naming {@code query} when it is null
     */
    Flux<OutboxRow> listOutbox(OutboxQuery query);

    /**
     * @param dispatchKey the row
     * @return its status, attempt and visibility, or empty when the key is not stored, as for a key
     *     that cannot be stored (O50)
     */
    Mono<OutboxRowState> rowState(String dispatchKey);

    /**
     * Counts rows per route and status, reading at most {@code cap} rows of each status, so the
     * cost is bounded however large the outbox grows (O61). A status of which {@code cap} rows were
     * found is reported in {@link OutboxCounts#capped()} and its counts are lower bounds. Read-only.
     *
     * @param dueBy pending rows visible at or before it count as due
     * @param claimedBefore claimed rows claimed strictly before it count as stale
     * @param cap the most rows read per status, 1 to {@value OutboxQuery#MAX_COUNT_CAP}
     * @return the counts; fails with {@link InvalidArgumentException} naming {@code dueBy},
     *     {@code claimedBefore} or {@code cap}
     */
    Mono<OutboxCounts> countByRoute(Instant dueBy, Instant claimedBefore, int cap);

    /**
     * Per route, the oldest due row, the latest claim and the latest done or failed settle (O68), for
     * an operator's "is anyone working this route?": three bounded reads, each of at most {@code cap}
     * rows of the whole outbox taken from its edge (the oldest due rows, the newest claims, the newest
     * settles, cancellations among them), so the cost is bounded however large the outbox grows. A
     * route with no row among the {@code cap} read has that instant null. Read-only.
     *
     * <p>The default signals {@link UnsupportedOperationException}: an implementation outside this
     * library fails loudly only when the operation is called.
     *
     * @param dueBy pending rows visible at or before it count as due
     * @param cap the most rows each of the three reads takes, 1 to {@value OutboxQuery#MAX_COUNT_CAP}
     * @return the routes with any of the three, in namespace, task queue, then node order (unpinned
     *     first); fails with {@link InvalidArgumentException} naming {@code dueBy} or {@code cap}
     */
    default Flux<OutboxRouteActivity> routeActivity(Instant dueBy, int cap) {
        return Flux.error(new UnsupportedOperationException(
                "routeActivity is not implemented by " + getClass().getName()));
    }

    /**
     * @param namespace the namespace
     * @return the number of pending or claimed rows in it (O44); 0 for a namespace that cannot be
     *     stored (O46)
     */
    Mono<Long> countInflight(String namespace);

    /**
     * @param namespace the namespace
     * @return the number of claimed rows in it (O45)
     */
    Mono<Long> countClaimed(String namespace);

    /**
     * @param namespaces the namespaces
     * @return one entry per distinct requested namespace with its claimed count (O47)
     */
    Mono<Map<String, Long>> countClaimedByNamespace(Collection<String> namespaces);

    /**
     * @return each route with at least one due row, once, ordered by namespace, task queue, then
     *     node with unpinned first (O48, O49)
     */
    Flux<ClaimScope> pendingRoutes();

    /**
     * @return each workflow with at least one live row, once, in ascending id order (O43)
     */
    Flux<WorkflowId> listUnsettledWorkflowIds();

    /**
     * Lists rows claimed strictly before {@code olderThan}, oldest claim first (O39, O40).
     *
     * @param olderThan the staleness bound, exclusive
     * @param limit the most rows to list
     * @return the stale rows; read-only
     */
    Flux<OutboxRow> listStaleClaimed(Instant olderThan, int limit);

    // ------------------------------------------------------------------ outbox: repairs and maintenance, unfenced

    /**
     * Settles the live rows among {@code dispatchKeys} in one transaction, <b>unfenced</b>: whoever
     * holds their claim now (O29–O34, O53–O58). For operators and repairs (a bulk cancel, a forced
     * completion); a dispatcher settling work it claimed uses {@link ReactiveStore#settle}, which
     * refuses once its claim is no longer current (W6).
     *
     * <p>Every kind acts only on live rows ({@code PENDING} or {@code CLAIMED}) and leaves terminal
     * rows alone (O32, O34); unknown keys and keys no row can hold are no-ops (O33). A key
     * may repeat (its row is settled once); an empty collection completes without touching storage.
     * Keys are visited in ascending code-point order, so two callers settling overlapping sets do
     * not deadlock. A {@link Settlement#retryAfter} counts its delay from the store's clock when the
     * write runs (O58).
     *
     * @param dispatchKeys the rows
     * @param settlement how to settle them
     * @return completes when durable; fails, writing nothing, with {@link InvalidArgumentException}
     *     naming {@code dispatchKeys} (or the element, e.g. {@code dispatchKeys[3]}) when the
     *     collection or an element is {@code null} or an element is empty, {@code settlement} when
     *     it is {@code null}, or {@code settlement.visibleAfter} / {@code settlement.delay} for a
     *     visibility the store cannot keep (S15). After a {@link TransientBackendException} the
     *     settle may have committed (X12): a complete, fail or cancel is retried as it is (settled
     *     rows are left alone); a retry is not idempotent (it applies to a live row again,
     *     recording its failure twice), so read {@link #rowState} first: an attempt at
     *     {@code nextAttempt} means it committed
     */
    Mono<Void> settleKeys(Collection<String> dispatchKeys, Settlement settlement);

    /**
     * Cancels every live row of a workflow in one transaction (O35–O37).
     *
     * @param workflowId the workflow
     * @return the keys it changed, in ascending order; after a {@link TransientBackendException},
     *     retry the same call, which answers only the keys it changes then (X12)
     */
    Mono<List<String>> cancelWorkflowRows(WorkflowId workflowId);

    /**
     * Returns a dead-lettered row to {@code PENDING}, visible now.
     *
     * @param dispatchKey the row
     * @param resetAttempt true to set the attempt back to 0
     * @return true when a {@code FAILED} row was redriven, false otherwise (unknown or not failed);
     *     after a {@link TransientBackendException}, retry the same call: false then may mean that
     *     the first try redrove it, as {@link #rowState} tells (X12)
     */
    Mono<Boolean> redrive(String dispatchKey, boolean resetAttempt);

    /**
     * Returns every dead-lettered row of a workflow to {@code PENDING}, visible now, in one transaction.
     *
     * @param workflowId the workflow
     * @param resetAttempt true to set the attempts back to 0
     * @return the keys redriven, in ascending order; after a {@link TransientBackendException},
     *     retry the same call, which answers only the rows it redrives then (X12)
     */
    Mono<List<String>> redriveWorkflow(WorkflowId workflowId, boolean resetAttempt);

    /**
     * Returns rows to {@code PENDING} in one transaction (O12–O15): stored rows, in any status, get
     * the supplied {@code visibleAfter} and lose their claim while keeping every other stored column;
     * unknown rows are inserted as pending with the supplied values. This is the reopen path and may
     * resurrect terminal rows: redelivery is at-least-once.
     *
     * @param rows the rows
     * @return completes when durable; after a {@link TransientBackendException}, retry the same
     *     call: it leaves the rows as one call does (X12)
     */
    Mono<Void> rearmPending(List<OutboxRow> rows);

    /**
     * Returns the rows {@link #listStaleClaimed} would list to {@code PENDING}, in one transaction,
     * keeping their attempt (O41, O42).
     *
     * @param olderThan the staleness bound, exclusive
     * @param visibleAfter the new earliest claim instant
     * @param limit the most rows to re-arm
     * @return the re-armed rows with their new values; after a {@link TransientBackendException},
     *     retry the same call, which answers only the rows still stale (X12)
     */
    Mono<List<OutboxRow>> rearmStaleClaimed(Instant olderThan, Instant visibleAfter, int limit);

    /**
     * Deletes settled rows ({@code DONE}, {@code FAILED}, {@code CANCELLED}) settled before
     * {@code settledBefore}, in transactions of at most {@code batchSize} rows, so the writer is
     * never held long.
     *
     * @param settledBefore the cutoff, exclusive
     * @param batchSize the most rows deleted per transaction (at least 1)
     * @return the number of rows deleted; after a {@link TransientBackendException}, retry the same
     *     call: it deletes what is left and counts only that (X12)
     */
    Mono<Long> pruneSettled(Instant settledBefore, int batchSize);

    // ------------------------------------------------------------------ retention and deletion (issue 42)

    /**
     * One bounded step of a retention pass (D1–D7, D10, D11): walks the closed workflows in id
     * order after {@code after}, reading at most {@code batchSize} of them, and deletes each whose
     * retention under {@code policy} ran out before {@code now} (closed strictly before
     * {@code now - policy.retentionFor(namespaces)}) and that has no pending or claimed outbox row:
     * its events, timers and outbox rows, each workflow in one transaction or not at all. The
     * deleting transaction checks again that the workflow's head and rows are those the walk saw,
     * so a workflow appended to, reopened or given a live row since is kept. Open workflows
     * (running, paused) are never touched.
     *
     * <p>A pass starts with {@code after = null} and goes on with each step's
     * {@link RetentionSweep#resumeAfter()} until it is {@code null}. The first step of a pass also
     * prunes settled rows when the policy asks for it ({@link RetentionPolicy#withSettledRows}).
     * Idempotent: a step after a crash, or a second pass, deletes only what is still due.
     *
     * @param policy the retention of closed workflows
     * @param now the instant the retentions are measured back from (the store's clock, usually)
     * @param batchSize the most closed workflows read, so the most deleted, by this step; at least 1
     * @param after the last workflow of the previous step ({@link RetentionSweep#resumeAfter()}),
     *     or {@code null} to start a pass
     * @return what the step deleted and where the next one goes on; fails, deleting nothing, with
     *     {@link InvalidArgumentException} naming {@code policy}, {@code now} (null or outside the
     *     storable range, S15) or {@code batchSize}
     */
    default Mono<RetentionSweep> sweepRetention(RetentionPolicy policy, Instant now, int batchSize, WorkflowId after) {
        return Mono.error(new UnsupportedOperationException("sweepRetention is not supported by " + getClass()));
    }

    /**
     * Deletes one workflow's events, timers and outbox rows in one transaction, whatever its status
     * and whatever its rows' status (D8): for an operator's or a data-protection request. A
     * dispatcher still holding one of its rows finds it gone: its fenced settle fails with
     * {@link StaleClaimException} (W6), its settle by key and its heartbeat do nothing (O33, W13).
     * An append afterwards at expected sequence 0 starts the workflow again.
     *
     * @param workflowId the workflow
     * @return what was deleted (all counts 0 for a workflow nothing is stored of); fails with
     *     {@link InvalidArgumentException} naming {@code workflowId} when null
     */
    default Mono<PurgeResult> purgeWorkflow(WorkflowId workflowId) {
        return Mono.error(new UnsupportedOperationException("purgeWorkflow is not supported by " + getClass()));
    }

    /**
     * Counts the closed workflows {@link #sweepRetention} would delete at {@code now}, or keeps only
     * because a row of theirs is live, and finds the oldest close among them (D9). Read-only; reads
     * every closed workflow, so it is for metrics and consoles polled now and then, not per request.
     *
     * @param policy the retention of closed workflows
     * @param now the instant the retentions are measured back from
     * @return the backlog; fails with {@link InvalidArgumentException} naming {@code policy} or
     *     {@code now}
     */
    default Mono<RetentionBacklog> retentionBacklog(RetentionPolicy policy, Instant now) {
        return Mono.error(new UnsupportedOperationException("retentionBacklog is not supported by " + getClass()));
    }
}
