package dev.durablestore.api;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The transactional outbox (contract group O): rows staged with the events that schedule them,
 * claimed by dispatchers, then settled as done, retried with backoff, dead-lettered or cancelled.
 *
 * <p>Every claim is one transaction that flips due rows to {@code CLAIMED} before returning them,
 * so a row is handed to at most one claimer until something returns it to {@code PENDING} (O21).
 * Delivery is at-least-once: a claim whose dispatcher dies is re-armed by the lease reaper.
 *
 * <p><b>Fenced and unfenced settles.</b> A claimed row carries its claim's token
 * ({@link OutboxRow#claimToken()}); the settles that take the row ({@link #complete(OutboxRow)},
 * {@link #retry(OutboxRow, int, Instant)}, {@link #fail(OutboxRow)},
 * {@link #settleCancelled(OutboxRow)}) and {@link ReactiveStore#commitStep} apply only while that
 * claim is current, so a dispatcher whose claim was re-armed and handed to another cannot settle
 * the other's work (W6). The settles by key are unfenced.
 *
 * <p>{@link #complete}, {@link #retry} and {@link #fail} act only on live rows and are no-ops on
 * terminal rows (O34, resolving OQ-1 and OQ-2). Unknown keys are no-ops (O33). Cold publishers,
 * errors as signals.
 *
 * <p>Texts are kept exactly (X10): staging and re-arming refuse a row whose key, route or activity
 * type holds a NUL or an unpaired UTF-16 surrogate or is longer than
 * 1,024 UTF-8 bytes
 * (rule X10), with {@link InvalidArgumentException} naming it.
 * Every operation that looks a key or a namespace up answers such a text as one that is not stored:
 * settles and {@link #retry} are no-ops, {@link #rowState} is empty, {@link #redrive} is false,
 * {@link #heartbeat} leaves it out, counts are 0 and claims on such a scope take nothing.
 */
public interface OutboxStore {

    /**
     * Stages rows, skipping any whose dispatch key is already stored or repeats earlier in the list
     * (O8–O11). Rows are stored with the values given; each must satisfy O6, and its texts must be
     * storable (see the class description).
     *
     * @param rows the rows
     * @return completes when the batch is durable (one transaction); fails with
     *     {@link InvalidArgumentException} naming a row's field ({@code rows[2].namespace}) that
     *     breaks a rule, before anything is written
     */
    Mono<Void> appendOutboxBatch(List<OutboxRow> rows);

    /**
     * Returns rows to {@code PENDING} in one transaction (O12–O15): stored rows, in any status, get
     * the supplied {@code visibleAfter} and lose their claim while keeping every other stored column;
     * unknown rows are inserted as pending with the supplied values. This is the reopen path and may
     * resurrect terminal rows: redelivery is at-least-once.
     *
     * @param rows the rows
     * @return completes when durable
     */
    Mono<Void> rearmPending(List<OutboxRow> rows);

    /**
     * Claims up to {@code limit} due rows of any route, oldest {@code visibleAfter} first, then by
     * dispatch key (O16–O22).
     *
     * @param limit the most rows to take; 0 takes none
     * @return the claimed rows with their new status and {@code claimedAt}
     */
    Mono<List<OutboxRow>> claim(int limit);

    /**
     * Like {@link #claim(int)}, never taking rows of a held workflow, which do not use up the limit
     * (O23–O25).
     *
     * @param limit the most rows to take
     * @param held workflows whose rows must stay pending
     * @return the claimed rows
     */
    Mono<List<OutboxRow>> claimExcluding(int limit, Set<WorkflowId> held);

    /**
     * Like {@link #claim(int)}, restricted to rows the scope admits (O7, O26).
     *
     * @param scope the route
     * @param limit the most rows to take
     * @return the claimed rows
     */
    Mono<List<OutboxRow>> claimScoped(ClaimScope scope, int limit);

    /**
     * Applies the scope and the hold together (O27).
     *
     * @param scope the route
     * @param limit the most rows to take
     * @param held workflows whose rows must stay pending
     * @return the claimed rows
     */
    Mono<List<OutboxRow>> claimScopedExcluding(ClaimScope scope, int limit, Set<WorkflowId> held);

    /**
     * Every claim in one method: the scope (or every route), the hold and a dispatch policy
     * applied together (O27, O63, O64, O65). With {@link DispatchPolicy#none()} it is exactly
     * {@link #claimScopedExcluding} (or {@link #claimExcluding} when {@code scope} is null).
     *
     * <pre>{@code
     * store.claim(ClaimScope.of("default", "payments"), 32, Set.of(),
     *         DispatchPolicy.none().withSerialPerWorkflow(true))
     * }</pre>
     *
     * @param scope the route, or {@code null} for every route
     * @param limit the most rows to take; 0 takes none
     * @param held workflows whose rows must stay pending
     * @param policy how rows are handed out
     * @return the claimed rows, in claim order; fails with {@link InvalidArgumentException} naming
     *     {@code limit}, {@code held} or {@code policy} for a bad argument (and
     *     {@code policy.concurrencyCap} for a cap without a scope, O64, and
     *     {@code policy.nodeConcurrencyCap} for a node cap without a scope with a node, O65), before
     *     anything is written
     */
    Mono<List<OutboxRow>> claim(ClaimScope scope, int limit, Set<WorkflowId> held, DispatchPolicy policy);

    /**
     * An endless stream of claimed rows that claims only against downstream demand (O52): never more
     * rows than requested and not yet delivered, in batches of at most
     * {@link ClaimStreamOptions#maxBatch()}. When nothing is due it waits for an in-process wake-up
     * (staging, retry, re-arm or redrive through this store), the next known {@code visibleAfter},
     * or the poll interval, whichever comes first. Cancelling stops claiming at once; rows whose
     * claim completes after cancellation are returned to pending.
     *
     * @param options scope, held workflows, batch size and poll interval
     * @return the stream of claimed rows
     */
    Flux<OutboxRow> claimStream(ClaimStreamOptions options);

    /**
     * Marks a live row {@code DONE} and clears its claim (O29, O34). <b>Unfenced:</b> it settles the
     * row whoever holds its claim now; a dispatcher settling work it claimed should use
     * {@link #complete(OutboxRow)}, which refuses once its claim is no longer current (W6).
     *
     * @param dispatchKey the row
     * @return completes when durable; a no-op for terminal or unknown rows, and for a key that
     *     cannot be stored (O33)
     */
    Mono<Void> complete(String dispatchKey);

    /**
     * Marks every live row among {@code dispatchKeys} {@code DONE} and clears its claim, in one
     * transaction: {@link #complete(String)} applied to each key (O29, O33, O34).
     *
     * <p>Unfenced, like {@link #complete(String)}. The keys are checked as {@link #heartbeat} checks
     * them; a key may repeat (its row is settled once), and an empty collection completes without
     * touching storage. Keys are visited in ascending code-point order, so two callers settling
     * overlapping sets do not deadlock.
     *
     * @param dispatchKeys the rows
     * @return completes when durable; terminal, unknown and unstorable keys are left alone; fails
     *     with {@link InvalidArgumentException} naming {@code dispatchKeys} (or the element, e.g.
     *     {@code dispatchKeys[3]}) when the collection or an element is {@code null} or an element
     *     is empty, before anything is written
     */
    Mono<Void> complete(Collection<String> dispatchKeys);

    /**
     * Returns a live row to {@code PENDING} with a new attempt count and visibility (O30, O34).
     * Unfenced; see {@link #retry(OutboxRow, int, Instant)} for the fenced form.
     *
     * @param dispatchKey the row
     * @param nextAttempt the new zero-based dispatch count
     * @param visibleAfter the earliest next claim
     * @return completes when durable; a no-op for terminal or unknown rows
     */
    Mono<Void> retry(String dispatchKey, int nextAttempt, Instant visibleAfter);

    /**
     * Returns every live row among {@code dispatchKeys} to {@code PENDING} with the same attempt
     * count and visibility, in one transaction: {@link #retry(String, int, Instant)} applied to
     * each key (O30, O33, O34). Claim streams are woken after the commit.
     *
     * <p>Unfenced, like {@link #retry(String, int, Instant)}. The keys are checked as {@link #heartbeat} checks
     * them; a key may repeat (its row is settled once), and an empty collection completes without
     * touching storage. Keys are visited in ascending code-point order, so two callers settling
     * overlapping sets do not deadlock.
     *
     * @param dispatchKeys the rows
     * @param nextAttempt the new zero-based dispatch count of each row
     * @param visibleAfter the earliest next claim of each row
     * @return completes when durable; terminal, unknown and unstorable keys are left alone; fails
     *     with {@link InvalidArgumentException} naming {@code dispatchKeys} (or the element),
     *     {@code nextAttempt} when it is negative or {@code visibleAfter} when it is {@code null}
     *     or not storable, before anything is written
     */
    Mono<Void> retry(Collection<String> dispatchKeys, int nextAttempt, Instant visibleAfter);

    /**
     * Like {@link #retry(String, int, Instant)} with {@code visibleAfter} = the store clock's now
     * plus {@code delay}, the clock read when the write runs, not at subscription (O30, O33, O34).
     *
     * @param dispatchKey the row
     * @param nextAttempt the new zero-based dispatch count
     * @param delay how long after the write the row becomes claimable; zero makes it due at once
     * @return completes when durable; a no-op for terminal, unknown or unstorable rows; fails with
     *     {@link InvalidArgumentException} naming {@code dispatchKey}, {@code nextAttempt} when it
     *     is negative, or {@code delay} when it is {@code null}, negative or so long that the
     *     instant cannot be stored
     */
    Mono<Void> retryAfter(String dispatchKey, int nextAttempt, Duration delay);

    /**
     * Dead-letters a live row: {@code FAILED}, claim cleared (O31, O34). Unfenced; see
     * {@link #fail(OutboxRow)} for the fenced form.
     *
     * @param dispatchKey the row
     * @return completes when durable; a no-op for terminal or unknown rows
     */
    Mono<Void> fail(String dispatchKey);

    /**
     * Dead-letters every live row among {@code dispatchKeys} ({@code FAILED}, claim cleared), in
     * one transaction: {@link #fail(String)} applied to each key (O31, O33, O34).
     *
     * <p>Unfenced, like {@link #fail(String)}. The keys are checked as {@link #heartbeat} checks
     * them; a key may repeat (its row is settled once), and an empty collection completes without
     * touching storage. Keys are visited in ascending code-point order, so two callers settling
     * overlapping sets do not deadlock.
     *
     * @param dispatchKeys the rows
     * @return completes when durable; terminal, unknown and unstorable keys are left alone; fails
     *     with {@link InvalidArgumentException} naming {@code dispatchKeys} (or the element) when
     *     the collection or an element is {@code null} or an element is empty, before anything is
     *     written
     */
    Mono<Void> fail(Collection<String> dispatchKeys);

    /**
     * Cancels a live row (O32); terminal rows are left unchanged. Unfenced; see
     * {@link #settleCancelled(OutboxRow)} for the fenced form.
     *
     * @param dispatchKey the row
     * @return completes when durable
     */
    Mono<Void> settleCancelled(String dispatchKey);

    /**
     * Cancels every live row among {@code dispatchKeys}, in one transaction:
     * {@link #settleCancelled(String)} applied to each key (O32, O33); terminal rows are left
     * unchanged.
     *
     * <p>Unfenced, like {@link #settleCancelled(String)}. The keys are checked as {@link #heartbeat} checks
     * them; a key may repeat (its row is settled once), and an empty collection completes without
     * touching storage. Keys are visited in ascending code-point order, so two callers settling
     * overlapping sets do not deadlock.
     *
     * @param dispatchKeys the rows
     * @return completes when durable; fails with {@link InvalidArgumentException} naming
     *     {@code dispatchKeys} (or the element) when the collection or an element is {@code null}
     *     or an element is empty, before anything is written
     */
    Mono<Void> settleCancelled(Collection<String> dispatchKeys);

    /**
     * Cancels every live row of a workflow in one transaction (O35–O37).
     *
     * @param workflowId the workflow
     * @return the keys it changed, in ascending order
     */
    Mono<List<String>> cancelWorkflowRows(WorkflowId workflowId);

    /**
     * Lists rows claimed strictly before {@code olderThan}, oldest claim first (O39, O40).
     *
     * @param olderThan the staleness bound, exclusive
     * @param limit the most rows to list
     * @return the stale rows; read-only
     */
    Flux<OutboxRow> listStaleClaimed(Instant olderThan, int limit);

    /**
     * Returns the rows {@link #listStaleClaimed} would list to {@code PENDING}, in one transaction,
     * keeping their attempt (O41, O42).
     *
     * @param olderThan the staleness bound, exclusive
     * @param visibleAfter the new earliest claim instant
     * @param limit the most rows to re-arm
     * @return the re-armed rows with their new values
     */
    Mono<List<OutboxRow>> rearmStaleClaimed(Instant olderThan, Instant visibleAfter, int limit);

    /**
     * Refreshes the claim of rows a dispatcher still works on, so the lease reaper leaves them alone.
     *
     * @param dispatchKeys the keys the caller holds
     * @return the keys that were still {@code CLAIMED} and now carry {@code claimedAt = now}, in
     *     ascending order; a key missing from the result has been re-armed or settled meanwhile
     */
    Mono<List<String>> heartbeat(Collection<String> dispatchKeys);

    /**
     * Returns a dead-lettered row to {@code PENDING}, visible now.
     *
     * @param dispatchKey the row
     * @param resetAttempt true to set the attempt back to 0
     * @return true when a {@code FAILED} row was redriven, false otherwise (unknown or not failed)
     */
    Mono<Boolean> redrive(String dispatchKey, boolean resetAttempt);

    /**
     * Returns every dead-lettered row of a workflow to {@code PENDING}, visible now, in one transaction.
     *
     * @param workflowId the workflow
     * @param resetAttempt true to set the attempts back to 0
     * @return the keys redriven, in ascending order
     */
    Mono<List<String>> redriveWorkflow(WorkflowId workflowId, boolean resetAttempt);

    /**
     * Deletes settled rows ({@code DONE}, {@code FAILED}, {@code CANCELLED}) settled before
     * {@code settledBefore}, in transactions of at most {@code batchSize} rows, so the writer is
     * never held long.
     *
     * @param settledBefore the cutoff, exclusive
     * @param batchSize the most rows deleted per transaction (at least 1)
     * @return the number of rows deleted
     */
    Mono<Long> pruneSettled(Instant settledBefore, int batchSize);

    /**
     * @return each workflow with at least one live row, once, in ascending id order (O43)
     */
    Flux<WorkflowId> listUnsettledWorkflowIds();

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
     * @param dispatchKey the row
     * @return its status, attempt and visibility, or empty when the key is not stored, as for a key
     *     that cannot be stored (O50)
     */
    Mono<OutboxRowState> rowState(String dispatchKey);

    /**
     * Marks a claimed row {@code DONE}, fenced by its claim (W6): only while the row is still
     * {@code CLAIMED} under {@code claimed.claimToken()}. The key-only {@link #complete(String)} is
     * the unfenced form.
     *
     * @param claimed the row as its claim returned it
     * @return completes when durable; fails with {@link StaleClaimException} and changes nothing
     *     when the claim is no longer current (re-armed, claimed again or settled since), with
     *     {@link InvalidArgumentException} naming {@code claimed.claimToken} for a row that does not
     *     come from a claim
     */
    Mono<Void> complete(OutboxRow claimed);

    /**
     * Returns a claimed row to {@code PENDING} with a new attempt and visibility, fenced by its
     * claim as {@link #complete(OutboxRow)} is.
     *
     * @param claimed the row as its claim returned it
     * @param nextAttempt the new zero-based dispatch count
     * @param visibleAfter the earliest next claim
     * @return completes when durable; fails as {@link #complete(OutboxRow)}
     */
    Mono<Void> retry(OutboxRow claimed, int nextAttempt, Instant visibleAfter);

    /**
     * Dead-letters a claimed row, fenced by its claim as {@link #complete(OutboxRow)} is.
     *
     * @param claimed the row as its claim returned it
     * @return completes when durable; fails as {@link #complete(OutboxRow)}
     */
    Mono<Void> fail(OutboxRow claimed);

    /**
     * Cancels a claimed row, fenced by its claim as {@link #complete(OutboxRow)} is.
     *
     * @param claimed the row as its claim returned it
     * @return completes when durable; fails as {@link #complete(OutboxRow)}
     */
    Mono<Void> settleCancelled(OutboxRow claimed);
}
