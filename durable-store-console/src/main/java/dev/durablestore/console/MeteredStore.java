package dev.durablestore.console;

import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.ForwardingReactiveStore;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.WorkflowStep;
import dev.durablestore.api.event.Event;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import reactor.core.publisher.Mono;

/**
 * A {@link ReactiveStore} that counts, in a {@link TrafficMeter}, the rows staged, claimed and settled
 * through it, and passes every call on unchanged. Counts are of what callers asked and the store
 * acknowledged: a staged row skipped as a duplicate key counts too.
 */
final class MeteredStore extends ForwardingReactiveStore {

    private final ReactiveStore store;
    private final TrafficMeter meter;

    MeteredStore(ReactiveStore store, TrafficMeter meter) {
        super(store);
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
}
