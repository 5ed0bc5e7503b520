package dev.durablestore.console;

import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.OutboxCounts;
import dev.durablestore.api.OutboxQuery;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxRowState;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.RunSummary;
import dev.durablestore.api.TimerEntry;
import dev.durablestore.api.TimerId;
import dev.durablestore.api.UndecodableEvent;
import dev.durablestore.api.WorkflowFilter;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.WorkflowStep;
import dev.durablestore.api.WorkflowSummary;
import dev.durablestore.api.event.Event;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A {@link ReactiveStore} that counts, in a {@link TrafficMeter}, the rows staged, claimed and settled
 * through it, and passes every call on unchanged. Counts are of what callers asked and the store
 * acknowledged: a staged row skipped as a duplicate key counts too.
 */
final class MeteredStore implements ReactiveStore {

    private final ReactiveStore store;
    private final TrafficMeter meter;

    MeteredStore(ReactiveStore store, TrafficMeter meter) {
        this.store = store;
        this.meter = meter;
    }

    @Override
    public Mono<Void> appendWithOutbox(WorkflowId workflowId, List<Event> events, long expectedSeq, List<OutboxRow> rows) {
        return store.appendWithOutbox(workflowId, events, expectedSeq, rows).doOnSuccess(v -> meter.staged(rows.size()));
    }

    @Override
    public Mono<Void> appendOutboxBatch(List<OutboxRow> rows) {
        return store.appendOutboxBatch(rows).doOnSuccess(v -> meter.staged(rows.size()));
    }

    @Override
    public Mono<Void> commitStep(WorkflowStep step) {
        return store.commitStep(step).doOnSuccess(v -> {
            meter.staged(step.rows().size());
            meter.settled(step.settles().size());
        });
    }

    @Override
    public Mono<List<OutboxRow>> claim(int limit) {
        return store.claim(limit).doOnNext(rows -> meter.claimed(rows.size()));
    }

    @Override
    public Mono<List<OutboxRow>> claimExcluding(int limit, Set<WorkflowId> held) {
        return store.claimExcluding(limit, held).doOnNext(rows -> meter.claimed(rows.size()));
    }

    @Override
    public Mono<List<OutboxRow>> claimScoped(ClaimScope scope, int limit) {
        return store.claimScoped(scope, limit).doOnNext(rows -> meter.claimed(rows.size()));
    }

    @Override
    public Mono<List<OutboxRow>> claimScopedExcluding(ClaimScope scope, int limit, Set<WorkflowId> held) {
        return store.claimScopedExcluding(scope, limit, held).doOnNext(rows -> meter.claimed(rows.size()));
    }

    @Override
    public Mono<Void> complete(String dispatchKey) {
        return store.complete(dispatchKey).doOnSuccess(v -> meter.settled(1));
    }

    @Override
    public Mono<Void> complete(Collection<String> dispatchKeys) {
        return store.complete(dispatchKeys).doOnSuccess(v -> meter.settled(dispatchKeys.size()));
    }

    @Override
    public Mono<Void> complete(OutboxRow claimed) {
        return store.complete(claimed).doOnSuccess(v -> meter.settled(1));
    }

    @Override
    public Mono<Void> retry(String dispatchKey, int nextAttempt, Instant visibleAfter) {
        return store.retry(dispatchKey, nextAttempt, visibleAfter).doOnSuccess(v -> meter.settled(1));
    }

    @Override
    public Mono<Void> retry(Collection<String> dispatchKeys, int nextAttempt, Instant visibleAfter) {
        return store.retry(dispatchKeys, nextAttempt, visibleAfter).doOnSuccess(v -> meter.settled(dispatchKeys.size()));
    }

    @Override
    public Mono<Void> retry(OutboxRow claimed, int nextAttempt, Instant visibleAfter) {
        return store.retry(claimed, nextAttempt, visibleAfter).doOnSuccess(v -> meter.settled(1));
    }

    @Override
    public Mono<Void> retryAfter(String dispatchKey, int nextAttempt, Duration delay) {
        return store.retryAfter(dispatchKey, nextAttempt, delay).doOnSuccess(v -> meter.settled(1));
    }

    @Override
    public Mono<Void> fail(String dispatchKey) {
        return store.fail(dispatchKey).doOnSuccess(v -> meter.settled(1));
    }

    @Override
    public Mono<Void> fail(Collection<String> dispatchKeys) {
        return store.fail(dispatchKeys).doOnSuccess(v -> meter.settled(dispatchKeys.size()));
    }

    @Override
    public Mono<Void> fail(OutboxRow claimed) {
        return store.fail(claimed).doOnSuccess(v -> meter.settled(1));
    }

    @Override
    public Mono<Void> settleCancelled(String dispatchKey) {
        return store.settleCancelled(dispatchKey).doOnSuccess(v -> meter.settled(1));
    }

    @Override
    public Mono<Void> settleCancelled(Collection<String> dispatchKeys) {
        return store.settleCancelled(dispatchKeys).doOnSuccess(v -> meter.settled(dispatchKeys.size()));
    }

    @Override
    public Mono<Void> settleCancelled(OutboxRow claimed) {
        return store.settleCancelled(claimed).doOnSuccess(v -> meter.settled(1));
    }

    @Override
    public Mono<Void> append(WorkflowId workflowId, List<Event> events, long expectedSeq) {
        return store.append(workflowId, events, expectedSeq);
    }

    @Override
    public Flux<Event> readHistory(WorkflowId workflowId) {
        return store.readHistory(workflowId);
    }

    @Override
    public Flux<Event> readHistoryFrom(WorkflowId workflowId, long fromSeq) {
        return store.readHistoryFrom(workflowId, fromSeq);
    }

    @Override
    public Mono<Long> readHead(WorkflowId workflowId) {
        return store.readHead(workflowId);
    }

    @Override
    public Flux<WorkflowId> listWorkflowIds() {
        return store.listWorkflowIds();
    }

    @Override
    public Flux<WorkflowId> listActive() {
        return store.listActive();
    }

    @Override
    public Flux<WorkflowId> listPaused() {
        return store.listPaused();
    }

    @Override
    public Flux<WorkflowSummary> query(WorkflowFilter filter) {
        return store.query(filter);
    }

    @Override
    public Mono<WorkflowSummary> readSummary(WorkflowId workflowId) {
        return store.readSummary(workflowId);
    }

    @Override
    public Mono<List<RunSummary>> readRunChain(WorkflowId workflowId) {
        return store.readRunChain(workflowId);
    }

    @Override
    public Mono<Void> validateStoredEvents() {
        return store.validateStoredEvents();
    }

    @Override
    public Flux<UndecodableEvent> findUndecodableEvents() {
        return store.findUndecodableEvents();
    }

    @Override
    public Mono<Void> scheduleTimer(WorkflowId workflowId, TimerId timerId, Instant fireAt) {
        return store.scheduleTimer(workflowId, timerId, fireAt);
    }

    @Override
    public Flux<TimerEntry> expiredTimers(Instant asOf) {
        return store.expiredTimers(asOf);
    }

    @Override
    public Mono<Void> rearmPending(List<OutboxRow> rows) {
        return store.rearmPending(rows);
    }

    @Override
    public Flux<OutboxRow> claimStream(ClaimStreamOptions options) {
        return store.claimStream(options).doOnNext(row -> meter.claimed(1));
    }

    @Override
    public Mono<List<String>> cancelWorkflowRows(WorkflowId workflowId) {
        return store.cancelWorkflowRows(workflowId).doOnNext(keys -> meter.settled(keys.size()));
    }

    @Override
    public Flux<OutboxRow> listStaleClaimed(Instant olderThan, int limit) {
        return store.listStaleClaimed(olderThan, limit);
    }

    @Override
    public Mono<List<OutboxRow>> rearmStaleClaimed(Instant olderThan, Instant visibleAfter, int limit) {
        return store.rearmStaleClaimed(olderThan, visibleAfter, limit);
    }

    @Override
    public Mono<List<String>> heartbeat(Collection<String> dispatchKeys) {
        return store.heartbeat(dispatchKeys);
    }

    @Override
    public Mono<Boolean> redrive(String dispatchKey, boolean resetAttempt) {
        return store.redrive(dispatchKey, resetAttempt);
    }

    @Override
    public Mono<List<String>> redriveWorkflow(WorkflowId workflowId, boolean resetAttempt) {
        return store.redriveWorkflow(workflowId, resetAttempt);
    }

    @Override
    public Mono<Long> pruneSettled(Instant settledBefore, int batchSize) {
        return store.pruneSettled(settledBefore, batchSize);
    }

    @Override
    public Flux<WorkflowId> listUnsettledWorkflowIds() {
        return store.listUnsettledWorkflowIds();
    }

    @Override
    public Mono<Long> countInflight(String namespace) {
        return store.countInflight(namespace);
    }

    @Override
    public Mono<Long> countClaimed(String namespace) {
        return store.countClaimed(namespace);
    }

    @Override
    public Mono<Map<String, Long>> countClaimedByNamespace(Collection<String> namespaces) {
        return store.countClaimedByNamespace(namespaces);
    }

    @Override
    public Flux<ClaimScope> pendingRoutes() {
        return store.pendingRoutes();
    }

    @Override
    public Flux<OutboxRow> listOutbox(OutboxQuery query) {
        return store.listOutbox(query);
    }

    @Override
    public Mono<OutboxCounts> countByRoute(Instant dueBy, Instant claimedBefore, int cap) {
        return store.countByRoute(dueBy, claimedBefore, cap);
    }

    @Override
    public Mono<OutboxRowState> rowState(String dispatchKey) {
        return store.rowState(dispatchKey);
    }

    @Override
    public Mono<Void> closeAsync() {
        return store.closeAsync();
    }

    @Override
    public void close() {
        store.close();
    }

    ReactiveStore delegate() {
        return store;
    }

    @Override
    public String toString() {
        return "MeteredStore[" + store + "]";
    }
}
