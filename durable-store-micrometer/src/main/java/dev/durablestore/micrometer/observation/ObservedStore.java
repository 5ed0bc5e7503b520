package dev.durablestore.micrometer.observation;

import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.ForwardingReactiveStore;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.WorkflowStep;
import dev.durablestore.api.event.Event;
import dev.durablestore.core.internal.ClaimStreams;
import dev.durablestore.core.storage.ClaimBatch;
import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.SenderContext;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A {@link ReactiveStore} that reports Micrometer observations of its staging, claims, settles and
 * steps (named in {@link StoreObservations}) and stores the trace context of the code that stages a
 * row with the row (O59), so that {@link StoreObservations#dispatch} puts the row's dispatch in the
 * trace that scheduled it.
 *
 * <pre>{@code
 * ReactiveStore store = ObservedStore.wrap(SqliteReactiveStore.open(config), observationRegistry);
 * }</pre>
 *
 * <p>The parent of each observation is the current observation of the subscriber's Reactor context
 * (where Spring WebFlux and {@code Hooks.enableAutomaticContextPropagation()} keep it), else of the
 * subscribing thread. A row staged with a trace context of its own keeps it. Only the trace
 * propagation fields ({@code traceparent}, {@code tracestate}, B3) are stored with a row, never
 * baggage, which may hold personal data. A claim is its own span in the claimer's trace, not a
 * child of the rows' contexts; with {@link ClaimLinksObservationHandler} registered it links to
 * each claimed row's context instead (the messaging conventions' batch receive). Each claim a
 * claim stream sends is observed the same way, in the stream subscriber's trace (a poll that takes
 * nothing makes no span with that handler); the rows a stream hands out carry their contexts, and
 * their dispatch is observed by {@link StoreObservations#dispatch}. Reads, heartbeats, re-arms and the rest are passed through
 * unobserved. Without the wrapper the store observes nothing and costs nothing.
 */
public final class ObservedStore extends ForwardingReactiveStore {

    private final ObservationRegistry registry;

    private ObservedStore(ReactiveStore store, ObservationRegistry registry) {
        super(store);
        this.registry = registry;
    }

    /**
     * @param store the store to observe
     * @param registry where observations go
     * @return the observed store, or {@code store} itself when the registry is the no-op one
     */
    public static ReactiveStore wrap(ReactiveStore store, ObservationRegistry registry) {
        InvalidArgumentException.requireNonNull(store, "store");
        InvalidArgumentException.requireNonNull(registry, "registry");
        if (registry.isNoop() || store instanceof ObservedStore) {
            return store;
        }
        return new ObservedStore(store, registry);
    }

    // staging: a producer observation whose injected context goes into the rows

    private Mono<Void> staging(
            String operation,
            String name,
            List<OutboxRow> rows,
            WorkflowId workflowId,
            boolean settles,
            Function<Function<List<OutboxRow>, List<OutboxRow>>, Mono<Void>> write) {
        String destination = StoreObservations.destination(rows);
        KeyValues high = StoreObservations.batchCount(rows.size());
        if (workflowId != null) {
            high = high.and(StoreObservations.WORKFLOW_KEY, workflowId.toString());
        }
        String type = settles ? "settle" : "create";
        return StoreObservations.observe(
                registry,
                name,
                StoreObservations.spanName(operation, destination),
                () -> {
                    // a carrier per subscription: the tracer injects the producer span's context into it
                    SenderContext<Map<String, String>> context = new SenderContext<>(Map::put, Kind.PRODUCER);
                    context.setCarrier(new LinkedHashMap<>());
                    return context;
                },
                false,
                KeyValues.of(
                        KeyValue.of(StoreObservations.OPERATION_TYPE_KEY, type),
                        KeyValue.of(StoreObservations.OPERATION_NAME_KEY, operation),
                        KeyValue.of(StoreObservations.DESTINATION_KEY, destination)),
                high,
                (observation, context) ->
                        write.apply(staged -> withContext(staged, TraceCarrier.encode(context.getCarrier()))));
    }

    private static List<OutboxRow> withContext(List<OutboxRow> rows, String traceContext) {
        if (traceContext == null || rows == null) {
            return rows;
        }
        List<OutboxRow> out = new ArrayList<>(rows.size());
        for (OutboxRow row : rows) {
            out.add(row == null || row.traceContext() != null ? row : row.withTraceContext(traceContext));
        }
        return out;
    }

    /** A client observation of the store (claims, settles): nothing to inject. */
    private static SenderContext<Object> client() {
        return new SenderContext<>((carrier, key, value) -> {}, Kind.CLIENT);
    }

    private <T> Mono<T> settling(String operation, String destination, Collection<String> keys, Mono<T> write) {
        KeyValues high = StoreObservations.batchCount(keys.size());
        if (keys.size() == 1) {
            high = high.and(
                    StoreObservations.MESSAGE_ID_KEY,
                    String.valueOf(keys.iterator().next()));
        }
        return StoreObservations.observe(
                registry,
                StoreObservations.SETTLE,
                StoreObservations.spanName(operation, destination),
                ObservedStore::client,
                false,
                KeyValues.of(
                        KeyValue.of(StoreObservations.OPERATION_TYPE_KEY, "settle"),
                        KeyValue.of(StoreObservations.OPERATION_NAME_KEY, operation),
                        KeyValue.of(StoreObservations.DESTINATION_KEY, destination)),
                high,
                (observation, context) -> write);
    }

    private Mono<Void> settlingKeys(String operation, Collection<String> dispatchKeys, Mono<Void> write) {
        return settling(operation, StoreObservations.ANY_ROUTE, dispatchKeys == null ? List.of() : dispatchKeys, write);
    }

    private Mono<Void> settlingRow(String operation, OutboxRow claimed, Mono<Void> write) {
        return claimed == null
                ? write
                : settling(
                        operation,
                        StoreObservations.destination(claimed.route()),
                        List.of(claimed.dispatchKey()),
                        write);
    }

    private Mono<List<OutboxRow>> claiming(String operation, ClaimScope scope, Mono<List<OutboxRow>> claim) {
        return claiming(operation, scope, ClaimContext::new, claim, rows -> rows, rows -> null);
    }

    /**
     * One claim of a claim stream. Its undecodable rows, reported in the batch rather than as an
     * error, are the observation's error; an empty poll makes no span ({@link ClaimContext#polled()}).
     */
    private Mono<ClaimBatch> claimingForStream(ClaimScope scope, Mono<ClaimBatch> claim) {
        return claiming("claimStream", scope, ClaimContext::polling, claim, ClaimBatch::rows, ClaimBatch::corrupt);
    }

    private <T> Mono<T> claiming(
            String operation,
            ClaimScope scope,
            Supplier<ClaimContext> newContext,
            Mono<T> claim,
            Function<T, List<OutboxRow>> rowsOf,
            Function<T, Throwable> reportedError) {
        String destination = StoreObservations.destination(scope);
        return StoreObservations.observe(
                registry,
                StoreObservations.CLAIM,
                StoreObservations.spanName(operation, destination),
                newContext,
                false,
                KeyValues.of(
                        KeyValue.of(StoreObservations.OPERATION_TYPE_KEY, "receive"),
                        KeyValue.of(StoreObservations.OPERATION_NAME_KEY, operation),
                        KeyValue.of(StoreObservations.DESTINATION_KEY, destination)),
                KeyValues.empty(),
                (observation, context) -> claim.doOnNext(result -> {
                    List<OutboxRow> rows = rowsOf.apply(result);
                    // before the observation stops: ClaimLinksObservationHandler links to their contexts
                    context.claimed(rows);
                    if (rows.size() != 1) {
                        observation.highCardinalityKeyValue(
                                StoreObservations.BATCH_COUNT_KEY, Integer.toString(rows.size()));
                    }
                    Throwable error = reportedError.apply(result);
                    if (error != null) {
                        observation.error(error);
                    }
                }));
    }

    /**
     * Observes each claim the stream sends as {@value StoreObservations#CLAIM} (operation
     * {@code claimStream}), in the subscriber's trace; the rows it hands out carry their stored
     * contexts for {@link StoreObservations#dispatch}.
     */
    @Override
    public Flux<OutboxRow> claimStream(ClaimStreamOptions options) {
        return ClaimStreams.observedBy(delegate().claimStream(options), this::claimingForStream);
    }

    @Override
    public Mono<Void> appendWithOutbox(
            WorkflowId workflowId, List<Event> events, long expectedSeq, List<OutboxRow> rows) {
        if (rows == null || rows.isEmpty()) {
            return delegate().appendWithOutbox(workflowId, events, expectedSeq, rows);
        }
        return staging(
                "appendWithOutbox",
                StoreObservations.STAGE,
                rows,
                workflowId,
                false,
                traced -> delegate().appendWithOutbox(workflowId, events, expectedSeq, traced.apply(rows)));
    }

    @Override
    public Mono<Void> appendOutboxBatch(List<OutboxRow> rows) {
        if (rows == null || rows.isEmpty()) {
            return delegate().appendOutboxBatch(rows);
        }
        return staging(
                "appendOutboxBatch",
                StoreObservations.STAGE,
                rows,
                null,
                false,
                traced -> delegate().appendOutboxBatch(traced.apply(rows)));
    }

    @Override
    public Mono<Void> commitStep(WorkflowStep step) {
        if (step == null) {
            return delegate().commitStep(null);
        }
        return staging(
                "commitStep",
                StoreObservations.STEP,
                step.rows(),
                step.workflowId(),
                !step.settles().isEmpty(),
                traced -> {
                    List<OutboxRow> rows = traced.apply(step.rows());
                    // rebuilt only when a context was added to a staged row
                    return delegate().commitStep(rows == step.rows() ? step : StepRows.replace(step, rows));
                });
    }

    /** Observed as {@value StoreObservations#CLAIM}, operation {@code claim}, destination the request's route. */
    @Override
    public Mono<List<OutboxRow>> claim(ClaimRequest request) {
        return claiming(
                "claim", request == null ? null : request.scope(), delegate().claim(request));
    }

    /** Observed as {@value StoreObservations#SETTLE}, operation the settlement's kind, destination the row's route. */
    @Override
    public Mono<Void> settle(OutboxRow claimed, Settlement settlement) {
        return settlingRow(operation(settlement), claimed, delegate().settle(claimed, settlement));
    }

    /** Observed as {@value StoreObservations#SETTLE}, operation the settlement's kind, on every route. */
    @Override
    public Mono<Void> settleKeys(Collection<String> dispatchKeys, Settlement settlement) {
        return settlingKeys(operation(settlement), dispatchKeys, delegate().settleKeys(dispatchKeys, settlement));
    }

    /** @return {@code complete}, {@code retry}, {@code fail} or {@code cancel}; {@code settle} for none */
    private static String operation(Settlement settlement) {
        return settlement == null ? "settle" : settlement.kind().name().toLowerCase(Locale.ROOT);
    }
}
