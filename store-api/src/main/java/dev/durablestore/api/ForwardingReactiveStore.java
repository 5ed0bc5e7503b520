package dev.durablestore.api;

import dev.durablestore.api.event.Event;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A {@link ReactiveStore} that forwards every call to another one: the base of decorators that
 * change a few operations (observations, metering, test doubles) and pass the rest through
 * unchanged, as Guava's {@code Forwarding*} classes do. A subclass overrides what it decorates and
 * calls {@link #delegate()} (or {@code super}) for the rest.
 */
public abstract class ForwardingReactiveStore implements ReactiveStore {

    private final ReactiveStore delegate;

    /** @param delegate the store every call is forwarded to */
    protected ForwardingReactiveStore(ReactiveStore delegate) {
        this.delegate = InvalidArgumentException.requireNonNull(delegate, "delegate");
    }

    /** @return the store every call is forwarded to */
    public ReactiveStore delegate() {
        return delegate;
    }

    @Override
    public Mono<Void> append(WorkflowId workflowId, List<Event> events, long expectedSeq) {
        return delegate.append(workflowId, events, expectedSeq);
    }

    @Override
    public Mono<Void> appendWithOutbox(
            WorkflowId workflowId, List<Event> events, long expectedSeq, List<OutboxRow> rows) {
        return delegate.appendWithOutbox(workflowId, events, expectedSeq, rows);
    }

    @Override
    public Mono<Void> appendOutboxBatch(List<OutboxRow> rows) {
        return delegate.appendOutboxBatch(rows);
    }

    @Override
    public Mono<Void> commitStep(WorkflowStep step) {
        return delegate.commitStep(step);
    }

    @Override
    public Mono<Void> scheduleTimer(WorkflowId workflowId, TimerId timerId, Instant fireAt) {
        return delegate.scheduleTimer(workflowId, timerId, fireAt);
    }

    @Override
    public Mono<List<OutboxRow>> claim(ClaimRequest request) {
        return delegate.claim(request);
    }

    @Override
    public Flux<OutboxRow> claimStream(ClaimStreamOptions options) {
        return delegate.claimStream(options);
    }

    @Override
    public Mono<Void> settle(OutboxRow claimed, Settlement settlement) {
        return delegate.settle(claimed, settlement);
    }

    @Override
    public Mono<List<String>> heartbeat(Collection<OutboxRow> claimed) {
        return delegate.heartbeat(claimed);
    }

    @Override
    public Flux<Event> readHistory(WorkflowId workflowId) {
        return delegate.readHistory(workflowId);
    }

    @Override
    public Flux<Event> readHistoryFrom(WorkflowId workflowId, long fromSeq) {
        return delegate.readHistoryFrom(workflowId, fromSeq);
    }

    @Override
    public Mono<Long> readHead(WorkflowId workflowId) {
        return delegate.readHead(workflowId);
    }

    @Override
    public Mono<WorkflowSummary> readSummary(WorkflowId workflowId) {
        return delegate.readSummary(workflowId);
    }

    @Override
    public Flux<TimerEntry> expiredTimers(Instant asOf) {
        return delegate.expiredTimers(asOf);
    }

    @Override
    public Mono<Void> closeAsync() {
        return delegate.closeAsync();
    }

    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public Flux<WorkflowId> listWorkflowIds() {
        return delegate.listWorkflowIds();
    }

    @Override
    public Flux<WorkflowId> listActive() {
        return delegate.listActive();
    }

    @Override
    public Flux<WorkflowId> listPaused() {
        return delegate.listPaused();
    }

    @Override
    public Flux<WorkflowSummary> query(WorkflowFilter filter) {
        return delegate.query(filter);
    }

    @Override
    public Mono<List<RunSummary>> readRunChain(WorkflowId workflowId) {
        return delegate.readRunChain(workflowId);
    }

    @Override
    public Mono<Void> validateStoredEvents() {
        return delegate.validateStoredEvents();
    }

    @Override
    public Flux<UndecodableEvent> findUndecodableEvents() {
        return delegate.findUndecodableEvents();
    }

    @Override
    public Flux<OutboxRow> listOutbox(OutboxQuery query) {
        return delegate.listOutbox(query);
    }

    @Override
    public Mono<OutboxRowState> rowState(String dispatchKey) {
        return delegate.rowState(dispatchKey);
    }

    @Override
    public Mono<OutboxCounts> countByRoute(Instant dueBy, Instant claimedBefore, int cap) {
        return delegate.countByRoute(dueBy, claimedBefore, cap);
    }

    @Override
    public Flux<OutboxRouteActivity> routeActivity(Instant dueBy, int cap) {
        return delegate.routeActivity(dueBy, cap);
    }

    @Override
    public Mono<Long> countInflight(String namespace) {
        return delegate.countInflight(namespace);
    }

    @Override
    public Mono<Long> countClaimed(String namespace) {
        return delegate.countClaimed(namespace);
    }

    @Override
    public Mono<Map<String, Long>> countClaimedByNamespace(Collection<String> namespaces) {
        return delegate.countClaimedByNamespace(namespaces);
    }

    @Override
    public Flux<ClaimScope> pendingRoutes() {
        return delegate.pendingRoutes();
    }

    @Override
    public Flux<WorkflowId> listUnsettledWorkflowIds() {
        return delegate.listUnsettledWorkflowIds();
    }

    @Override
    public Flux<OutboxRow> listStaleClaimed(Instant olderThan, int limit) {
        return delegate.listStaleClaimed(olderThan, limit);
    }

    @Override
    public Mono<Void> settleKeys(Collection<String> dispatchKeys, Settlement settlement) {
        return delegate.settleKeys(dispatchKeys, settlement);
    }

    @Override
    public Mono<List<String>> cancelWorkflowRows(WorkflowId workflowId) {
        return delegate.cancelWorkflowRows(workflowId);
    }

    @Override
    public Mono<Boolean> redrive(String dispatchKey, boolean resetAttempt) {
        return delegate.redrive(dispatchKey, resetAttempt);
    }

    @Override
    public Mono<List<String>> redriveWorkflow(WorkflowId workflowId, boolean resetAttempt) {
        return delegate.redriveWorkflow(workflowId, resetAttempt);
    }

    @Override
    public Mono<Void> rearmPending(List<OutboxRow> rows) {
        return delegate.rearmPending(rows);
    }

    @Override
    public Mono<List<OutboxRow>> rearmStaleClaimed(Instant olderThan, Instant visibleAfter, int limit) {
        return delegate.rearmStaleClaimed(olderThan, visibleAfter, limit);
    }

    @Override
    public Mono<Long> pruneSettled(Instant settledBefore, int batchSize) {
        return delegate.pruneSettled(settledBefore, batchSize);
    }

    @Override
    public Mono<RetentionSweep> sweepRetention(RetentionPolicy policy, Instant now, int batchSize, WorkflowId after) {
        return delegate.sweepRetention(policy, now, batchSize, after);
    }

    @Override
    public Mono<PurgeResult> purgeWorkflow(WorkflowId workflowId) {
        return delegate.purgeWorkflow(workflowId);
    }

    @Override
    public Mono<RetentionBacklog> retentionBacklog(RetentionPolicy policy, Instant now) {
        return delegate.retentionBacklog(policy, now);
    }
}
