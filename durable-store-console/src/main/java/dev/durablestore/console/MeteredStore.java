package dev.durablestore.console;

import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.ForwardingReactiveStore;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.WorkflowStep;
import dev.durablestore.api.event.Event;
import java.util.Collection;
import java.util.List;
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
    public Mono<List<OutboxRow>> claim(ClaimRequest request) {
        return delegate().claim(request).doOnNext(rows -> meter.claimed(rows.size()));
    }

    @Override
    public Flux<OutboxRow> claimStream(ClaimStreamOptions options) {
        return delegate().claimStream(options).doOnNext(row -> meter.claimed(1));
    }

    @Override
    public Mono<Void> settle(OutboxRow claimed, Settlement settlement) {
        return delegate().settle(claimed, settlement).doOnSuccess(v -> meter.settled(1));
    }

    @Override
    public Mono<Void> settleKeys(Collection<String> dispatchKeys, Settlement settlement) {
        return delegate().settleKeys(dispatchKeys, settlement).doOnSuccess(v -> meter.settled(dispatchKeys.size()));
    }
}
