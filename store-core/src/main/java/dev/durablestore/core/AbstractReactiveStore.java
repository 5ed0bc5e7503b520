package dev.durablestore.core;

import com.google.errorprone.annotations.CanIgnoreReturnValue;
import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.DispatchPolicy;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.OutboxCounts;
import dev.durablestore.api.OutboxQuery;
import dev.durablestore.api.OutboxRouteActivity;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxRowState;
import dev.durablestore.api.PurgeResult;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.RetentionBacklog;
import dev.durablestore.api.RetentionPolicy;
import dev.durablestore.api.RetentionSweep;
import dev.durablestore.api.RunSummary;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.StoreClosedException;
import dev.durablestore.api.TimerEntry;
import dev.durablestore.api.TimerId;
import dev.durablestore.api.UndecodableEvent;
import dev.durablestore.api.WorkflowFilter;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.WorkflowStatus;
import dev.durablestore.api.WorkflowStep;
import dev.durablestore.api.WorkflowSummary;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.internal.ClaimFence;
import dev.durablestore.api.internal.StoredText;
import dev.durablestore.core.codec.EventCodec;
import dev.durablestore.core.internal.ClaimStreams;
import dev.durablestore.core.internal.Claims;
import dev.durablestore.core.internal.EpochNanos;
import dev.durablestore.core.internal.EventEncoder;
import dev.durablestore.core.internal.KeyArguments;
import dev.durablestore.core.internal.OutboxListingSql;
import dev.durablestore.core.internal.OutboxRowEncoder;
import dev.durablestore.core.internal.Retention;
import dev.durablestore.core.internal.SettleArguments;
import dev.durablestore.core.internal.StepEncoder;
import dev.durablestore.core.internal.StoredRows;
import dev.durablestore.core.internal.Wakeups;
import dev.durablestore.core.storage.ClaimBatch;
import dev.durablestore.core.storage.ClaimStorage;
import dev.durablestore.core.storage.HistoryStorage;
import dev.durablestore.core.storage.OutboxReadStorage;
import dev.durablestore.core.storage.OutboxWriteStorage;
import dev.durablestore.core.storage.Storage;
import dev.durablestore.core.storage.TimerStorage;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The behaviour every backend's store has, written once over the storage a backend supplies
 * ({@link Storage}): the {@link ReactiveStore} operations, the claim stream wired to the backend's
 * claims and releases (O52), the wake-ups after settles that free a workflow or a capped route's
 * slot (O63, O64), and the order of closing (claim streams first, then the storage). A backend's
 * public store extends this class and adds only how it opens, how its storage closes and what it
 * tells other processes sharing its database; every operation here is final, so two backends
 * cannot drift apart in it.
 *
 * <p>Applications use {@link ReactiveStore}; this class is for backends.
 */
public abstract class AbstractReactiveStore implements ReactiveStore {

    /** How long closing waits for claim streams to settle (their claims in flight, their releases). */
    private static final Duration STREAMS_WAIT = Duration.ofSeconds(10);

    private final HistoryStorage history;
    private final TimerStorage timers;
    private final OutboxWriteStorage writes;
    private final OutboxReadStorage reads;
    private final ClaimStorage claims;
    private final Retention retention;
    private final Wakeups wakeups;
    private final Clock clock;
    private final EventEncoder eventEncoder;
    private final OutboxRowEncoder rowEncoder;
    private final StepEncoder stepEncoder;
    private final Mono<Void> closing = Mono.defer(this::shutdown).cache();
    /** Set once this store claims under a dispatch policy that a settle can unblock. */
    private volatile boolean claimsUnderPolicy;

    /**
     * @param storage the backend's storage
     * @param wakeups the wake-ups the backend signals after commits that may have made rows
     *     claimable; the claim streams of this store register there
     * @param clock the store clock
     */
    protected AbstractReactiveStore(Storage storage, Wakeups wakeups, Clock clock) {
        InvalidArgumentException.requireNonNull(storage, "storage");
        this.history = storage.history();
        this.timers = storage.timers();
        this.writes = storage.outboxWrites();
        this.reads = storage.outboxReads();
        this.claims = storage.claims();
        this.retention = new Retention(storage.retention(), storage.outboxWrites());
        this.wakeups = InvalidArgumentException.requireNonNull(wakeups, "wakeups");
        this.clock = InvalidArgumentException.requireNonNull(clock, "clock");
        EventCodec codec = EventCodec.create();
        this.eventEncoder = new EventEncoder(codec);
        this.rowEncoder = new OutboxRowEncoder(codec);
        this.stepEncoder = new StepEncoder(eventEncoder, rowEncoder);
    }

    /**
     * Closes the backend's storage, once the claim streams have ended: refuses new operations, lets
     * those in flight finish (or fail) and releases connections and threads.
     *
     * @return completes when the storage is closed
     */
    protected abstract Mono<Void> closeStorage();

    /**
     * The error the claim streams end with when the store closes.
     *
     * @return the error
     */
    protected abstract StoreClosedException streamsClosedError();

    /**
     * Tells the other processes sharing this store's database that this one settled rows, so their
     * claim streams waiting for settles claim again (O63, O64). Called after a settle, and only once
     * this store has itself claimed under a dispatch policy a settle can unblock: rows are usually
     * settled by the process that claimed them. Nothing by default (a database no other process
     * writes to, or one without notifications: their streams poll).
     */
    protected void announceSettled() {}

    // ------------------------------------------------------------------ history

    /** E3–E22: checked and encoded at subscription, before the storage is touched (X10). */
    @Override
    public final Mono<Void> append(WorkflowId workflowId, List<Event> events, long expectedSeq) {
        return Mono.defer(() -> history.append(
                workflowId, expectedSeq, eventEncoder.forAppend(workflowId, events, expectedSeq), List.of()));
    }

    /** E3–E22, O8–O11: the events and the rows checked and encoded at subscription (X10). */
    @Override
    public final Mono<Void> appendWithOutbox(
            WorkflowId workflowId, List<Event> events, long expectedSeq, List<OutboxRow> rows) {
        return Mono.defer(() -> {
            List<EventEncoder.Encoded> encoded = eventEncoder.forAppend(workflowId, events, expectedSeq);
            return history.append(workflowId, expectedSeq, encoded, rowEncoder.forStaging(rows, "rows"));
        });
    }

    /** W1–W12: checked and encoded at subscription (W11). */
    @Override
    public final Mono<Void> commitStep(WorkflowStep step) {
        return freeing(Mono.defer(() -> history.commitStep(stepEncoder.encode(step, "commitStep", clock.instant()))));
    }

    @Override
    public final Flux<Event> readHistory(WorkflowId workflowId) {
        return Flux.defer(() -> history.readHistory(requireWorkflow(workflowId)));
    }

    @Override
    public final Flux<Event> readHistoryFrom(WorkflowId workflowId, long fromSeq) {
        return Flux.defer(() -> {
            requireWorkflow(workflowId);
            InvalidArgumentException.requireNonNegative(fromSeq, "fromSeq");
            return history.readHistoryFrom(workflowId, fromSeq);
        });
    }

    @Override
    public final Mono<Long> readHead(WorkflowId workflowId) {
        return Mono.defer(() -> history.readHead(requireWorkflow(workflowId)));
    }

    @Override
    public final Flux<WorkflowId> listWorkflowIds() {
        return history.listWorkflowIds();
    }

    @Override
    public final Flux<WorkflowId> listActive() {
        return history.listWithStatus("listActive", WorkflowStatus.RUNNING);
    }

    @Override
    public final Flux<WorkflowId> listPaused() {
        return history.listWithStatus("listPaused", WorkflowStatus.PAUSED);
    }

    @Override
    public final Flux<WorkflowSummary> query(WorkflowFilter filter) {
        return Flux.defer(() -> history.query(InvalidArgumentException.requireNonNull(filter, "filter")));
    }

    @Override
    public final Mono<WorkflowSummary> readSummary(WorkflowId workflowId) {
        return Mono.defer(() -> history.readSummary(requireWorkflow(workflowId)));
    }

    @Override
    public final Mono<List<RunSummary>> readRunChain(WorkflowId workflowId) {
        return Mono.defer(() -> history.readRunChain(requireWorkflow(workflowId)));
    }

    @Override
    public final Mono<Void> validateStoredEvents() {
        return history.validateStoredEvents();
    }

    @Override
    public final Flux<UndecodableEvent> findUndecodableEvents() {
        return history.findUndecodableEvents();
    }

    // ------------------------------------------------------------------ timers

    @Override
    public final Mono<Void> scheduleTimer(WorkflowId workflowId, TimerId timerId, Instant fireAt) {
        return Mono.defer(() -> {
            requireWorkflow(workflowId);
            String timer = StoredText.timerIdText(timerId, "timerId");
            return timers.scheduleTimer(workflowId, timer, EpochNanos.of(fireAt, "fireAt"));
        });
    }

    /** T3–T5: decoded here (a stored timer that does not decode fails the read), in contract order. */
    @Override
    public final Flux<TimerEntry> expiredTimers(Instant asOf) {
        return Flux.defer(() -> timers.expiredTimers(EpochNanos.of(asOf, "asOf"))
                .map(StoredRows::timer)
                .collectSortedList(StoredRows.TIMER_ORDER)
                .flatMapIterable(due -> due));
    }

    // ------------------------------------------------------------------ staging

    @Override
    public final Mono<Void> appendOutboxBatch(List<OutboxRow> rows) {
        return Mono.defer(() -> {
            List<OutboxRowEncoder.Encoded> encoded = rowEncoder.forStaging(rows, "rows");
            return encoded.isEmpty() ? Mono.empty() : writes.appendOutboxBatch(encoded);
        });
    }

    @Override
    public final Mono<Void> rearmPending(List<OutboxRow> rows) {
        return Mono.defer(() -> {
            List<OutboxRowEncoder.Encoded> encoded = rowEncoder.forRearm(rows, "rows");
            return encoded.isEmpty() ? Mono.empty() : writes.rearmPending(encoded);
        });
    }

    // ------------------------------------------------------------------ claims

    /**
     * Every claim (O16–O28, O62–O65): the checks, the shortcuts that need no storage (none asked
     * for, or a route no stored row can be on), then the backend's claim; a corrupt row it met fails
     * the claim after it was dead-lettered.
     */
    @Override
    public final Mono<List<OutboxRow>> claim(ClaimRequest request) {
        return Mono.defer(() -> {
            InvalidArgumentException.requireNonNull(request, "request");
            ClaimScope scope = request.scope();
            DispatchPolicy policy = Claims.policy(scope, request.policy());
            Set<String> heldKeys = Claims.heldKeys(request.heldWorkflows());
            if (request.limit() == 0 || StoredText.admitsNoStoredRow(scope)) {
                return Mono.just(List.<OutboxRow>of());
            }
            claimingUnder(policy);
            return claims.claim(StoredText.matchable(scope), request::limit, heldKeys, policy, false)
                    .flatMap(batch -> batch.corrupt() != null ? Mono.error(batch.corrupt()) : Mono.just(batch.rows()));
        });
    }

    /** O52: the backend's claims and releases, driven by the shared claim-stream engine. */
    @Override
    public final Flux<OutboxRow> claimStream(ClaimStreamOptions options) {
        return Flux.defer(() -> {
            InvalidArgumentException.requireNonNull(options, "options");
            ClaimStreams.Source source = new ClaimStreams.Source() {
                @Override
                public Mono<ClaimBatch> claimForStream(
                        ClaimScope scope, IntSupplier limit, Set<WorkflowId> held, DispatchPolicy policy) {
                    return Mono.defer(() -> {
                        Set<String> heldKeys = Claims.heldKeys(held);
                        if (StoredText.admitsNoStoredRow(scope)) {
                            return Mono.just(new ClaimBatch(List.of(), null, null)); // no stored row is on it
                        }
                        claimingUnder(policy);
                        return claims.claim(StoredText.matchable(scope), limit, heldKeys, policy, true);
                    });
                }

                @Override
                public Mono<Void> release(List<OutboxRow> claimed) {
                    return claimed.isEmpty() ? Mono.empty() : writes.release(claimed);
                }
            };
            return ClaimStreams.create(source, wakeups, clock, options);
        });
    }

    @CanIgnoreReturnValue // a check; returns its argument
    private static WorkflowId requireWorkflow(WorkflowId workflowId) {
        return InvalidArgumentException.requireNonNull(workflowId, "workflowId");
    }

    // ------------------------------------------------------------------ settles

    /** W6: checked and encoded at subscription; a settle other than a retry may free a workflow or a slot. */
    @Override
    public final Mono<Void> settle(OutboxRow claimed, Settlement settlement) {
        return Mono.defer(() -> {
            StepEncoder.Settle encoded = StepEncoder.fenced(claimed, settlement, "settle", clock.instant());
            Mono<Void> write = writes.fenced(encoded, "settle");
            return settlement.kind() == Settlement.Kind.RETRY ? write : freeing(write);
        });
    }

    /** W6: {@code settle(claimed, Settlement.complete())}, final here like every other operation. */
    @Override
    public final Mono<Void> complete(OutboxRow claimed) {
        return settle(claimed, Settlement.complete());
    }

    /**
     * O29–O34, O53–O58: the storable keys, each once, in the order rows are visited and locked in;
     * one key goes through the backend's single-row path, several through its bulk path.
     */
    @Override
    public final Mono<Void> settleKeys(Collection<String> dispatchKeys, Settlement settlement) {
        return Mono.defer(() -> {
            List<String> keys = SettleArguments.sortedKeys(dispatchKeys);
            InvalidArgumentException.requireNonNull(settlement, "settlement");
            if (settlement.kind() == Settlement.Kind.RETRY) {
                return retryKeys(keys, settlement);
            }
            if (keys.isEmpty()) {
                return Mono.empty();
            }
            if (settlement.reason() != null) { // a dead-letter that records why (O66)
                return freeing(writes.settleWithReason(keys, settlement, null));
            }
            Settlement.Kind kind = settlement.kind();
            return freeing(keys.size() == 1 ? writes.settle(kind, keys.get(0)) : writes.settleAll(kind, keys));
        });
    }

    /**
     * O30, O58: the visibility checked now; a delay counts from the store clock when the write runs.
     * A retry that records why (O66) goes through the backend's path for reasons.
     */
    private Mono<Void> retryKeys(List<String> keys, Settlement retry) {
        int attempt = retry.nextAttempt();
        Duration delay = retry.delay();
        if (delay == null) {
            long visible = EpochNanos.of(retry.visibleAfter(), "settlement.visibleAfter");
            if (keys.isEmpty()) {
                return Mono.empty();
            }
            if (retry.reason() != null) {
                return writes.settleWithReason(keys, retry, () -> visible);
            }
            return keys.size() == 1
                    ? writes.retry(keys.get(0), attempt, visible)
                    : writes.retryAll(keys, attempt, () -> visible);
        }
        var unused = SettleArguments.visibleAfterNanos(clock.instant(), delay, "settlement.delay");
        if (keys.isEmpty()) {
            return Mono.empty();
        }
        LongSupplier visibleAfterDelay = () -> SettleArguments.visibleAfterNanos(clock.instant(), delay);
        if (retry.reason() != null) {
            return writes.settleWithReason(keys, retry, visibleAfterDelay);
        }
        return keys.size() == 1
                ? writes.retryAfter(keys.get(0), attempt, delay)
                : writes.retryAll(keys, attempt, visibleAfterDelay);
    }

    @Override
    public final Mono<List<String>> cancelWorkflowRows(WorkflowId workflowId) {
        return freeing(Mono.defer(() -> {
            InvalidArgumentException.requireNonNull(workflowId, "workflowId");
            return writes.cancelWorkflowRows(workflowId).map(AbstractReactiveStore::inKeyOrder);
        }));
    }

    /** Keys a write returns, in code-point order on every backend. */
    private static List<String> inKeyOrder(List<String> keys) {
        List<String> sorted = new ArrayList<>(keys);
        sorted.sort(Claims.CODE_POINT_ORDER);
        return sorted;
    }

    // ------------------------------------------------------------------ leases, redrive, pruning

    @Override
    public final Flux<OutboxRow> listStaleClaimed(Instant olderThan, int limit) {
        return Flux.defer(() -> {
            long bound = EpochNanos.of(olderThan, "olderThan");
            InvalidArgumentException.requireNonNegative(limit, "limit");
            return limit == 0 ? Flux.empty() : reads.listStaleClaimed(bound, limit);
        });
    }

    @Override
    public final Mono<List<OutboxRow>> rearmStaleClaimed(Instant olderThan, Instant visibleAfter, int limit) {
        return Mono.defer(() -> {
            long bound = EpochNanos.of(olderThan, "olderThan");
            long visible = EpochNanos.of(visibleAfter, "visibleAfter");
            InvalidArgumentException.requireNonNegative(limit, "limit");
            return limit == 0 ? Mono.just(List.<OutboxRow>of()) : writes.rearmStaleClaimed(bound, visible, limit);
        });
    }

    /**
     * W13: each claimed row checked as a fenced settle checks it; the pairs of key and token, each
     * once, in key order; the keys refreshed come back in code-point order, each once.
     */
    @Override
    public final Mono<List<String>> heartbeat(Collection<OutboxRow> claimed) {
        return Mono.defer(() -> {
            InvalidArgumentException.requireNonNull(claimed, "claimed");
            SortedSet<OutboxWriteStorage.ClaimedKey> claims = new TreeSet<>(CLAIMED_KEY_ORDER);
            int i = 0;
            for (OutboxRow row : claimed) {
                ClaimFence.requireClaimed(row, "claimed[" + i++ + "]");
                if (StoredText.storable(row.dispatchKey())) { // else no row holds it: left out
                    claims.add(new OutboxWriteStorage.ClaimedKey(row.dispatchKey(), row.claimToken()));
                }
            }
            return claims.isEmpty()
                    ? Mono.just(List.<String>of())
                    : writes.heartbeat(new ArrayList<>(claims)).map(AbstractReactiveStore::distinctInKeyOrder);
        });
    }

    private static final Comparator<OutboxWriteStorage.ClaimedKey> CLAIMED_KEY_ORDER = Comparator.comparing(
                    OutboxWriteStorage.ClaimedKey::dispatchKey, Claims.CODE_POINT_ORDER)
            .thenComparingLong(OutboxWriteStorage.ClaimedKey::claimToken);

    /** Keys in code-point order, each once. */
    private static List<String> distinctInKeyOrder(List<String> keys) {
        SortedSet<String> sorted = new TreeSet<>(Claims.CODE_POINT_ORDER);
        sorted.addAll(keys);
        return new ArrayList<>(sorted);
    }

    @Override
    public final Mono<Boolean> redrive(String dispatchKey, boolean resetAttempt) {
        return Mono.defer(() -> {
            InvalidArgumentException.requireNonEmpty(dispatchKey, "dispatchKey");
            return StoredText.storable(dispatchKey)
                    ? writes.redrive(dispatchKey, resetAttempt)
                    : Mono.just(false); // no row holds it
        });
    }

    @Override
    public final Mono<List<String>> redriveWorkflow(WorkflowId workflowId, boolean resetAttempt) {
        return Mono.defer(() -> {
            InvalidArgumentException.requireNonNull(workflowId, "workflowId");
            return writes.redriveWorkflow(workflowId, resetAttempt).map(AbstractReactiveStore::inKeyOrder);
        });
    }

    @Override
    public final Mono<Long> pruneSettled(Instant settledBefore, int batchSize) {
        return Mono.defer(() -> {
            long cutoff = EpochNanos.of(settledBefore, "settledBefore");
            if (batchSize < 1) {
                throw new InvalidArgumentException("batchSize", "must be at least 1, was " + batchSize);
            }
            return writes.pruneSettled(cutoff, batchSize);
        });
    }

    // ------------------------------------------------------------------ retention and purge

    /** D1–D7, D10, D11: checked at subscription; the backend walks and deletes. */
    @Override
    public final Mono<RetentionSweep> sweepRetention(
            RetentionPolicy policy, Instant now, int batchSize, WorkflowId after) {
        return retention.sweep(policy, now, batchSize, after);
    }

    /** D8: a purge may free a workflow held by serial dispatch, or a slot of a capped route. */
    @Override
    public final Mono<PurgeResult> purgeWorkflow(WorkflowId workflowId) {
        return freeing(retention.purge(workflowId));
    }

    /** D9. */
    @Override
    public final Mono<RetentionBacklog> retentionBacklog(RetentionPolicy policy, Instant now) {
        return retention.backlog(policy, now);
    }

    // ------------------------------------------------------------------ outbox reads

    @Override
    public final Flux<WorkflowId> listUnsettledWorkflowIds() {
        return reads.listUnsettledWorkflowIds();
    }

    @Override
    public final Mono<Long> countInflight(String namespace) {
        return Mono.defer(() ->
                storedNamespace(namespace) ? reads.countInNamespace("countInflight", namespace, false) : Mono.just(0L));
    }

    @Override
    public final Mono<Long> countClaimed(String namespace) {
        return Mono.defer(() ->
                storedNamespace(namespace) ? reads.countInNamespace("countClaimed", namespace, true) : Mono.just(0L));
    }

    /** O46: a namespace no row can hold counts nothing, without a read. */
    private static boolean storedNamespace(String namespace) {
        return StoredText.storable(InvalidArgumentException.requireNonNull(namespace, "namespace"));
    }

    @Override
    public final Mono<Map<String, Long>> countClaimedByNamespace(Collection<String> namespaces) {
        return Mono.defer(() -> {
            List<String> asked = KeyArguments.checked(namespaces, "namespaces", false);
            Map<String, Long> counts = KeyArguments.zeroCounts(asked);
            SortedSet<String> stored = new TreeSet<>(StoredText.storableOnly(asked));
            if (stored.isEmpty()) {
                return Mono.just(counts);
            }
            return reads.countClaimedByNamespace(stored).map(found -> {
                Map<String, Long> all = new LinkedHashMap<>(counts);
                all.putAll(found);
                return Map.copyOf(all);
            });
        });
    }

    @Override
    public final Flux<ClaimScope> pendingRoutes() {
        return reads.pendingRoutes();
    }

    @Override
    public final Flux<OutboxRow> listOutbox(OutboxQuery query) {
        return Flux.defer(() -> {
            InvalidArgumentException.requireNonNull(query, "query");
            return query.limit() == 0 || query.matchesNothing() ? Flux.empty() : reads.listOutbox(query);
        });
    }

    @Override
    public final Mono<OutboxCounts> countByRoute(Instant dueBy, Instant claimedBefore, int cap) {
        return Mono.defer(() -> {
            long[] bounds = OutboxListingSql.countArguments(dueBy, claimedBefore, cap);
            return reads.countByRoute(bounds[0], bounds[1], cap);
        });
    }

    @Override
    public final Flux<OutboxRouteActivity> routeActivity(Instant dueBy, int cap) {
        return Flux.defer(() -> {
            return reads.routeActivity(OutboxListingSql.activityArguments(dueBy, cap), cap);
        });
    }

    @Override
    public final Mono<OutboxRowState> rowState(String dispatchKey) {
        return Mono.defer(() -> {
            InvalidArgumentException.requireNonEmpty(dispatchKey, "dispatchKey");
            return StoredText.storable(dispatchKey) ? reads.rowState(dispatchKey) : Mono.empty(); // O50
        });
    }

    // ------------------------------------------------------------------ close

    /**
     * Ends the claim streams (waiting up to 10 s for their claims in flight and their releases),
     * then closes the storage as the backend describes. Idempotent: every call shares one close.
     */
    @Override
    public final Mono<Void> closeAsync() {
        return closing;
    }

    /** Closes as {@link #closeAsync()} does and waits; on a non-blocking thread it starts the close and returns. */
    @Override
    public final void close() {
        Wakeups.closeOrStart(closing, this);
    }

    private Mono<Void> shutdown() {
        return wakeups.close(streamsClosedError(), STREAMS_WAIT).then(Mono.defer(this::closeStorage));
    }

    // ------------------------------------------------------------------ wake-ups after settles

    /** Remembers that this store claims under a policy a settle can unblock (see {@link #freeing}). */
    private void claimingUnder(DispatchPolicy policy) {
        if (policy != null && policy.constrained() && !claimsUnderPolicy) {
            claimsUnderPolicy = true;
        }
    }

    /**
     * Once {@code settle} succeeded it may have freed a workflow (O63) or a slot of a capped route
     * (O64): wakes this store's claim streams that wait for settles (on another thread) and, once
     * this store has itself claimed under such a policy, tells the other processes
     * ({@link #announceSettled()}). Streams without a policy are not woken: a settle makes nothing
     * claimable for them. With no such stream and no such claim this costs two reads.
     */
    private <T> Mono<T> freeing(Mono<T> settle) {
        return settle.doOnSuccess(v -> {
            wakeups.settledLater();
            if (claimsUnderPolicy) {
                announceSettled();
            }
        });
    }
}
