package dev.durablestore.api;

import dev.durablestore.api.event.Event;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The store: each workflow's event history, its durable timers and the transactional outbox that
 * dispatches its work. This file is the hot path (append, stage, step, claim, settle, read); the
 * listings, counts and repairs an operator or a maintenance job uses are on {@link OperatorStore},
 * which every store also is.
 *
 * <p>Every operation returns a cold publisher: nothing touches storage until subscription, and each
 * subscription runs the operation once. Errors arrive as {@code onError} signals of the
 * {@link StoreException} family; nothing is thrown from the calling thread (X9). A success signal
 * is emitted only after the change is durably committed.
 *
 * <p><b>Dispatch.</b> Rows staged with {@link #appendWithOutbox}, {@link #appendOutboxBatch} or a
 * {@link #commitStep step} are claimed by {@link #claim} or {@link #claimStream}: each claim is
 * one transaction that flips due rows to {@code CLAIMED} under a new claim token before returning
 * them, so a row is handed to at most one claimer until something returns it to {@code PENDING}
 * (O21). A dispatcher settles what it claimed with {@link #settle}, fenced by that token (W6).
 * Delivery is at-least-once: a claim whose dispatcher dies is re-armed by the lease reaper
 * ({@link OutboxLeaseReaper}).
 *
 * <p>Texts are kept exactly (X10): a key, route, activity type or workflow type that holds a NUL
 * or an unpaired UTF-16 surrogate or is longer than 1,024 UTF-8 bytes is refused with
 * {@link InvalidArgumentException} naming it, and every lookup answers such a text as one that is
 * not stored.
 *
 * <p>{@link #close()} (or {@link #closeAsync()}, which does not block) ends claim streams, lets
 * queued writes finish, then releases the store's connections and threads; an operation subscribed
 * afterwards fails with {@link StoreClosedException}.
 *
 * <p><b>Cancelling a write.</b> Every write is a cold {@code Mono}: nothing happens until it is
 * subscribed. Cancelling the subscription while the write still waits for its turn withdraws it;
 * once its transaction has begun the write may still commit (or be rolled back), and the cancelled
 * subscriber is not told which. A caller that cancels (a {@code timeout}, a {@code take}, a
 * disposed pipeline) and needs the outcome reads it back, e.g. with {@link #readHead} or
 * {@link OperatorStore#rowState}; retrying an append with the same expected head is safe either way
 * (it fails with {@link SequenceConflictException} if the first one committed).
 *
 * <p><b>A lost commit answer.</b> On PostgreSQL, a write whose connection drops while it commits
 * fails with {@link TransientBackendException} and may have committed, whole (X12); so does every
 * caller whose write shared its grouped statement. Each write's description says how to retry it
 * so that nothing is written twice; {@code docs/reliability.md} has the table.
 */
public interface ReactiveStore extends OperatorStore, AutoCloseable {

    // ------------------------------------------------------------------ write: history, outbox rows, steps, timers

    /**
     * Appends events to a workflow's history when its head equals {@code expectedSeq} (E3–E16).
     *
     * <p>Event {@code i} must carry {@code seq == expectedSeq + 1 + i} and the envelope id
     * {@code workflowId}. The workflow type of a {@code WorkflowStarted} or
     * {@code ChildWorkflowStarted} is indexed and must be storable: no NUL, no unpaired UTF-16
     * surrogate, at most 1,024 UTF-8 bytes
     * ({@code events[0].workflowType}, rule X10). The append is
     * all-or-nothing. An empty list under a matching guard
     * succeeds and changes nothing (E5).
     *
     * @param workflowId the workflow
     * @param events the events, in order
     * @param expectedSeq the head the caller last saw (0 for a new workflow)
     * @return completes when the events are durable; fails with {@link SequenceConflictException}
     *     when the head differs, {@link BackendException} for a non-contiguous batch,
     *     {@link SerializationException} when an event cannot be encoded, and
     *     {@link InvalidArgumentException} for bad arguments. After a {@link TransientBackendException}
     *     the append may have committed (X12): retry the same call; a {@link SequenceConflictException}
     *     whose {@code found()} is {@code expectedSeq + events.size()} then means the first try
     *     committed (read the history to check that those events are these)
     */
    Mono<Void> append(WorkflowId workflowId, List<Event> events, long expectedSeq);

    /**
     * Appends events and stages outbox rows in one transaction (E17–E22): either the events and
     * every insertable row commit together, or nothing does. Rows whose dispatch key is already
     * stored are skipped silently (insert-or-ignore, E21).
     *
     * @param workflowId the workflow
     * @param events the events, in order (may be empty: the guard is still checked, E19)
     * @param expectedSeq the head the caller last saw
     * @param rows the rows to stage; each must satisfy O6
     * @return completes when events and rows are durable; fails as {@link #append}, and is retried
     *     as it is after a {@link TransientBackendException}: its rows are staged once either way (X12)
     */
    Mono<Void> appendWithOutbox(WorkflowId workflowId, List<Event> events, long expectedSeq, List<OutboxRow> rows);

    /**
     * Stages rows, skipping any whose dispatch key is already stored or repeats earlier in the list
     * (O8–O11). Rows are stored with the values given; each must satisfy O6, and its texts must be
     * storable (see the class description).
     *
     * @param rows the rows
     * @return completes when the batch is durable (one transaction); fails with
     *     {@link InvalidArgumentException} naming a row's field ({@code rows[2].namespace}) that
     *     breaks a rule, before anything is written. After a {@link TransientBackendException} the
     *     batch may have committed (X12): retry the same call, which skips the rows already stored
     */
    Mono<Void> appendOutboxBatch(List<OutboxRow> rows);

    /**
     * Commits one step of a workflow in one transaction (W1–W12): under the workflow's expected
     * head, appends the step's events, stages its rows (insert-or-ignore by key), settles its
     * claimed rows, fenced by their claims, and schedules or cancels its timers. All of it commits
     * or none of it does; the claim streams are woken after a commit that staged or retried rows.
     *
     * @param step the step, built and checked by {@link WorkflowStep.Builder#build()}
     * @return completes when the whole step is durable; fails, writing nothing, with
     *     {@link SequenceConflictException} when the head differs from the step's expected head,
     *     {@link StaleClaimException} when a settled row's claim is no longer current,
     *     {@link InvalidArgumentException} naming the part ({@code events[1]}, {@code rows[0].namespace},
     *     {@code timers[0].timerId}, {@code settles[1].delay} for a retry delay that takes the row's
     *     visibility past the latest storable instant) that cannot be stored, {@link SerializationException} when an
     *     event cannot be encoded, and {@link BackendException} for a non-contiguous batch or a
     *     storage failure. After a {@link TransientBackendException} the step may have committed
     *     (X12): retry the same step; if the first try committed, a step with events then fails
     *     with {@code SequenceConflictException(expectedSeq, expectedSeq + events)}, one without
     *     events that settles with {@link StaleClaimException}, and any other completes again to the
     *     same state
     */
    Mono<Void> commitStep(WorkflowStep step);

    /**
     * Creates or replaces the timer keyed by (workflow, timer) (T1). The workflow need not have a
     * history (T2). A named timer's name must be storable: no NUL, no unpaired UTF-16 surrogate,
     * at most 1,024 UTF-8 bytes
     * (rule X10); otherwise it fails with
     * {@link InvalidArgumentException} naming {@code timerId.name}.
     *
     * @param workflowId the workflow
     * @param timerId the timer
     * @param fireAt when it becomes due
     * @return completes when the timer is durable; after a {@link TransientBackendException}, retry the
     *     same call: it replaces the timer with the same one (X12)
     */
    Mono<Void> scheduleTimer(WorkflowId workflowId, TimerId timerId, Instant fireAt);

    // ------------------------------------------------------------------ dispatch

    /**
     * Claims due rows in one transaction (O16–O28, O62–O65): flips up to {@code request.limit()}
     * due {@code PENDING} rows of the request's route (every route when it has none), except those
     * of held workflows, to {@code CLAIMED} under a new claim token and returns them in claim order:
     * highest priority, then oldest {@code visibleAfter}, then dispatch key. A row is handed to at
     * most one claimer until something returns it to {@code PENDING} (O21).
     *
     * <pre>{@code
     * store.claim(ClaimRequest.of(32).withScope(ClaimScope.of("orders", "payments")))
     * }</pre>
     *
     * @param request the limit, scope, held workflows and dispatch policy
     * @return the claimed rows with their new status, {@code claimedAt} and claim token; fails,
     *     claiming nothing, with {@link InvalidArgumentException} naming {@code request} when it is
     *     {@code null}, {@code policy.concurrencyCap} for a cap without a scope (O64),
     *     {@code policy.nodeConcurrencyCap} for a node cap without a scope with a node (O65), or
     *     {@code scope.node} for a node cap whose scope's node cannot be stored. Not idempotent
     *     (X12): after a {@link TransientBackendException} the claim may have committed; a retry is
     *     safe but claims other rows, and the rows of the lost claim stay claimed until the lease
     *     reaper re-arms them
     */
    Mono<List<OutboxRow>> claim(ClaimRequest request);

    /**
     * An endless stream of claimed rows that claims only against downstream demand (O52): never more
     * rows than requested and not yet delivered, in batches of at most
     * {@link ClaimStreamOptions#maxBatch()}. When nothing is due it waits for an in-process wake-up
     * (staging, retry, re-arm or redrive through this store), the next known {@code visibleAfter},
     * or the poll interval, whichever comes first. Cancelling stops claiming at once; rows whose
     * claim completes after cancellation are returned to pending.
     *
     * @param options scope, held workflows, batch size and poll interval
     * @return the stream of claimed rows; a claim that fails (its answer lost, X12) is not signalled:
     *     the stream claims again after the poll interval, and the rows that claim may have taken
     *     come back when the lease reaper re-arms them
     */
    Flux<OutboxRow> claimStream(ClaimStreamOptions options);

    /**
     * Settles a claimed row, fenced by its claim (W6): applies only while the row is still
     * {@code CLAIMED} under {@code claimed.claimToken()}, so a dispatcher whose claim was re-armed
     * and handed to another cannot settle the other's work. Complete (O29), retry (O30, O58),
     * dead-letter (O31) or cancel (O32), as {@code settlement} says. The unfenced form, for
     * operators, is {@link OperatorStore#settleKeys}.
     *
     * <pre>{@code
     * store.settle(row, Settlement.retryAfter(row.attempt() + 1, Duration.ofSeconds(30)))
     * }</pre>
     *
     * @param claimed the row as its claim returned it
     * @param settlement how to settle it
     * @return completes when durable; fails, changing nothing, with {@link StaleClaimException}
     *     when the claim is no longer current (re-armed, claimed again or settled since), and with
     *     {@link InvalidArgumentException} naming {@code claimed} when it is {@code null},
     *     {@code claimed.claimToken} for a row that does not come from a claim, {@code settlement}
     *     when it is {@code null}, or
     *     {@code settlement.visibleAfter} / {@code settlement.delay} for a visibility the store
     *     cannot keep (S15). After a {@link TransientBackendException} the settle may have committed
     *     (X12): retry the same call; {@link StaleClaimException} then means that it did or that the
     *     claim moved on, and either way the row is no longer the caller's
     */
    Mono<Void> settle(OutboxRow claimed, Settlement settlement);

    /**
     * Marks a claimed row {@code DONE}, fenced by its claim: {@code settle(claimed, Settlement.complete())}.
     *
     * @param claimed the row as its claim returned it
     * @return completes when durable; fails, and is retried, as {@link #settle} is
     */
    default Mono<Void> complete(OutboxRow claimed) {
        return settle(claimed, Settlement.complete());
    }

    /**
     * Refreshes the claims a dispatcher still works on, fenced by them (W13): sets
     * {@code claimedAt = now} on each row still {@code CLAIMED} under the token its claim returned
     * it with, so the lease reaper leaves it alone. A row whose claim moved on (re-armed and
     * claimed again, or settled) is not refreshed and is left out of the result: its dispatcher
     * should stop, as its fenced settle would fail.
     *
     * @param claimed the rows as their claims returned them
     * @return the keys of the rows refreshed, in ascending code-point order, each once; fails,
     *     changing nothing, with {@link InvalidArgumentException} naming {@code claimed} when the
     *     collection is {@code null}, or {@code claimed[i]} / {@code claimed[i].claimToken} for a
     *     {@code null} element or a row that does not come from a claim. After a
     *     {@link TransientBackendException}, retry the same call: a refresh is idempotent (X12)
     */
    Mono<List<String>> heartbeat(Collection<OutboxRow> claimed);

    // ------------------------------------------------------------------ read

    /**
     * @param workflowId the workflow
     * @return every stored event in ascending {@code seq} order; empty for an unknown workflow (R1, R2)
     */
    Flux<Event> readHistory(WorkflowId workflowId);

    /**
     * Reads the events with {@code seq >= fromSeq} by an index range scan (R3–R8).
     *
     * @param workflowId the workflow
     * @param fromSeq the first sequence wanted; {@code <= 1} reads everything
     * @return the events in ascending {@code seq} order
     */
    Flux<Event> readHistoryFrom(WorkflowId workflowId, long fromSeq);

    /**
     * @param workflowId the workflow
     * @return the committed head (E2): the largest stored {@code seq}, or 0 for an unknown workflow
     */
    Mono<Long> readHead(WorkflowId workflowId);

    /**
     * Projects the summary of one workflow (R24–R31): the element {@code query(WorkflowFilter.all())}
     * would emit for it, with the same status, start and end times, parent, failed step and
     * failure reason, read in one consistent snapshot of that workflow's events and of the
     * {@code ChildWorkflowStarted} events naming it.
     *
     * @param workflowId the workflow
     * @return the summary, or empty when the workflow is unknown or has no {@code WorkflowStarted};
     *     fails with {@link InvalidArgumentException} when {@code workflowId} is {@code null}
     */
    Mono<WorkflowSummary> readSummary(WorkflowId workflowId);

    /**
     * Lists due timers without removing them (T3–T5).
     *
     * @param asOf the instant to compare against, inclusive
     * @return every timer with {@code fireAt <= asOf}, ordered by {@code fireAt}, workflow id and
     *     canonical timer-id text
     */
    Flux<TimerEntry> expiredTimers(Instant asOf);

    // ------------------------------------------------------------------ lifecycle

    /**
     * Closes the store without blocking the caller: ends every claim stream with
     * {@link StoreClosedException} (each first releasing the rows it claimed and had not
     * delivered: pending again, same attempt, visible at once), lets queued writes finish, answers
     * every queued read with {@link StoreClosedException}, then closes connections and threads.
     * Every operation subscribed before, during or after the close terminates: with its result or
     * with {@link StoreClosedException}. Idempotent: every call returns the same completion.
     *
     * @return completes when the store is closed; subscribing starts the close
     */
    Mono<Void> closeAsync();

    /**
     * Closes the store as {@link #closeAsync()} does and waits for it. On a non-blocking thread
     * (Reactor's {@code parallel} scheduler, the store's own threads) it does not wait: it starts
     * the close and returns at once, since parking such a thread would stall every pipeline
     * scheduled on it; subscribe to {@link #closeAsync()} there to know when the close is done.
     * Idempotent.
     */
    @Override
    void close();
}
