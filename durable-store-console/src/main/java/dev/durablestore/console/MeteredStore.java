package dev.durablestore.console;

import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.DispatchPolicy;
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
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A {@link ReactiveStore} that counts, in a {@link TrafficMeter}, the rows staged, claimed and settled
 * through it, and passes every call on unchanged. Counts are of what callers asked and the store
 * acknowledged: a staged row skipped as a duplicate key counts too.
 */
final class MeteredStore extends ForwardingReactiveStore {

    private final TrafficMeter meter;

    MeteredStore(ReactiveStore store, TrafficMeter meter) {
        super(store);
        this.meter = meter;
    }

    @Override
    public Mono<Void> appendWithOutbox(
            WorkflowId workflowId, List<Event> events, long expectedSeq, List<OutboxRow> rows) {
        return delegate()
                .appendWithOutbox(workflowId, events, expectedSeq, rows)
                .doOnSuccess(v -> meter.staged(rows.size()));
    }

    @Override
    public Mono<Void> appendOutboxBatch(List<OutboxRow> rows) {
        return delegate().appendOutboxBatch(rows).doOnSuccess(v -> meter.staged(rows.size()));
    }

    @Override
    public Mono<Void> commitStep(WorkflowStep step) {
        return delegate().commitStep(step).doOnSuccess(v -> {
            meter.staged(step.rows().size());
            meter.settled(step.settles().size());
        });
    }

    @Override
    public Mono<List<OutboxRow>> claim(int limit) {
        return delegate().claim(limit).doOnNext(rows -> meter.claimed(rows.size()));
    }

    @Override
    public Mono<List<OutboxRow>> claimExcluding(int limit, Set<WorkflowId> held) {
        return delegate().claimExcluding(limit, held).doOnNext(rows -> meter.claimed(rows.size()));
    }

    @Override
    public Mono<List<OutboxRow>> claimScoped(ClaimScope scope, int limit) {
        return delegate().claimScoped(scope, limit).doOnNext(rows -> meter.claimed(rows.size()));
    }

    @Override
    public Mono<List<OutboxRow>> claimScopedExcluding(ClaimScope scope, int limit, Set<WorkflowId> held) {
        return delegate().claimScopedExcluding(scope, limit, held).doOnNext(rows -> meter.claimed(rows.size()));
    }

    /** The store's own stream claims through its delegate's claim methods, so the rows are counted here. */
    @Override
    public Flux<OutboxRow> claimStream(ClaimStreamOptions options) {
        return delegate().claimStream(options).doOnNext(row -> meter.claimed(1));
    }

    @Override
    public Mono<List<OutboxRow>> claim(ClaimScope scope, int limit, Set<WorkflowId> held, DispatchPolicy policy) {
        return delegate().claim(scope, limit, held, policy).doOnNext(rows -> meter.claimed(rows.size()));
    }

    @Override
    public Mono<Void> complete(String dispatchKey) {
        return delegate().complete(dispatchKey).doOnSuccess(v -> meter.settled(1));
    }

    @Override
    public Mono<Void> complete(Collection<String> dispatchKeys) {
        return delegate().complete(dispatchKeys).doOnSuccess(v -> meter.settled(dispatchKeys.size()));
    }

    @Override
    public Mono<Void> complete(OutboxRow claimed) {
        return delegate().complete(claimed).doOnSuccess(v -> meter.settled(1));
    }

    @Override
    public Mono<Void> retry(String dispatchKey, int nextAttempt, Instant visibleAfter) {
        return delegate().retry(dispatchKey, nextAttempt, visibleAfter).doOnSuccess(v -> meter.settled(1));
    }

    @Override
    public Mono<Void> retry(Collection<String> dispatchKeys, int nextAttempt, Instant visibleAfter) {
        return delegate()
                .retry(dispatchKeys, nextAttempt, visibleAfter)
                .doOnSuccess(v -> meter.settled(dispatchKeys.size()));
    }

    @Override
    public Mono<Void> retry(OutboxRow claimed, int nextAttempt, Instant visibleAfter) {
        return delegate().retry(claimed, nextAttempt, visibleAfter).doOnSuccess(v -> meter.settled(1));
    }

    @Override
    public Mono<Void> retryAfter(String dispatchKey, int nextAttempt, Duration delay) {
        return delegate().retryAfter(dispatchKey, nextAttempt, delay).doOnSuccess(v -> meter.settled(1));
    }

    @Override
    public Mono<Void> fail(String dispatchKey) {
        return delegate().fail(dispatchKey).doOnSuccess(v -> meter.settled(1));
    }

    @Override
    public Mono<Void> fail(Collection<String> dispatchKeys) {
        return delegate().fail(dispatchKeys).doOnSuccess(v -> meter.settled(dispatchKeys.size()));
    }

    @Override
    public Mono<Void> fail(OutboxRow claimed) {
        return delegate().fail(claimed).doOnSuccess(v -> meter.settled(1));
    }

    @Override
    public Mono<Void> settleCancelled(String dispatchKey) {
        return delegate().settleCancelled(dispatchKey).doOnSuccess(v -> meter.settled(1));
    }

    @Override
    public Mono<Void> settleCancelled(Collection<String> dispatchKeys) {
        return delegate().settleCancelled(dispatchKeys).doOnSuccess(v -> meter.settled(dispatchKeys.size()));
    }

    @Override
    public Mono<Void> settleCancelled(OutboxRow claimed) {
        return delegate().settleCancelled(claimed).doOnSuccess(v -> meter.settled(1));
    }
}
