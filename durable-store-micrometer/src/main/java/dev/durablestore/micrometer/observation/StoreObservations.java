package dev.durablestore.micrometer.observation;

import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.OutboxRow;
import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.ReceiverContext;
import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * The names of the store's Micrometer observations and their key values, after the OpenTelemetry
 * messaging conventions, and {@link #dispatch} for the work a dispatcher does with a claimed row.
 *
 * <table>
 *   <caption>Observations</caption>
 *   <tr><th>name</th><th>{@code messaging.operation.type}</th><th>around</th></tr>
 *   <tr><td>{@value #STAGE}</td><td>{@code create}</td><td>{@code appendWithOutbox} with rows,
 *       {@code appendOutboxBatch}</td></tr>
 *   <tr><td>{@value #STEP}</td><td>{@code settle} (or {@code create} for a step that settles
 *       nothing)</td><td>{@code commitStep}</td></tr>
 *   <tr><td>{@value #CLAIM}</td><td>{@code receive}</td><td>{@code claim(ClaimRequest)} (operation
 *       {@code claim}), and each claim of a {@code claimStream} (operation {@code claimStream}):
 *       a span in the claimer's trace, linked to each claimed row's staging
 *       context by {@link ClaimLinksObservationHandler}</td></tr>
 *   <tr><td>{@value #DISPATCH}</td><td>{@code process}</td><td>{@link #dispatch}: a dispatcher's
 *       handling of one row, in the trace that staged it</td></tr>
 *   <tr><td>{@value #SETTLE}</td><td>{@code settle}</td><td>{@code complete(row)},
 *       {@code settle(row, settlement)} and {@code settleKeys(keys, settlement)} (operation the
 *       settlement's kind in lower case: {@code complete}, {@code retry}, {@code fail} or
 *       {@code cancel})</td></tr>
 * </table>
 *
 * <p>Span names are {@code <messaging.operation.name> <namespace>/<taskQueue>} (for example
 * {@code complete orders/payments}), the operation alone when the operation is not on one route.
 * Staging and steps are producer spans, dispatches consumer spans, claims and settles client spans.
 *
 * <p>Low-cardinality key values (also metric tags): {@value #SYSTEM_KEY} = {@value #SYSTEM},
 * {@value #OPERATION_TYPE_KEY}, {@value #OPERATION_NAME_KEY} (the store method, e.g.
 * {@code claim}, or a settle's kind, e.g. {@code complete}), {@value #DESTINATION_KEY} (the route {@code namespace/taskQueue}, {@code *}
 * for every route, {@code (mixed)} for rows of several routes). High-cardinality (spans only):
 * {@value #MESSAGE_ID_KEY} (the dispatch key, when one row), {@value #BATCH_COUNT_KEY} (rows
 * staged, claimed or settled, when not one), {@value #WORKFLOW_KEY}. A destination is a route: where
 * namespaces are created per tenant, metric tags grow with them.
 */
public final class StoreObservations {

    private static final Logger log = LoggerFactory.getLogger(StoreObservations.class);

    /** Staging rows. */
    public static final String STAGE = "durable.store.stage";
    /** A workflow step. */
    public static final String STEP = "durable.store.step";
    /** A claim of a batch of rows. */
    public static final String CLAIM = "durable.store.claim";
    /** A dispatcher's work on one claimed row. */
    public static final String DISPATCH = "durable.store.dispatch";
    /** Settling rows. */
    public static final String SETTLE = "durable.store.settle";

    /** The messaging system key. */
    public static final String SYSTEM_KEY = "messaging.system";
    /** The messaging system value of this store. */
    public static final String SYSTEM = "durable_store";
    /** The operation type key: {@code create}, {@code receive}, {@code process}, {@code settle}. */
    public static final String OPERATION_TYPE_KEY = "messaging.operation.type";
    /** The operation name key: the store method. */
    public static final String OPERATION_NAME_KEY = "messaging.operation.name";
    /** The destination key: the route. */
    public static final String DESTINATION_KEY = "messaging.destination.name";
    /** The message id key (high cardinality): the dispatch key. */
    public static final String MESSAGE_ID_KEY = "messaging.message.id";
    /** The batch size key (high cardinality). */
    public static final String BATCH_COUNT_KEY = "messaging.batch.message_count";
    /** The workflow id key (high cardinality). */
    public static final String WORKFLOW_KEY = "durable_store.workflow.id";

    /**
     * The Reactor context key of the current observation: the value of Micrometer's
     * {@code ObservationThreadLocalAccessor.KEY}, which Spring and Reactor's automatic context
     * propagation use (not referenced, so that the context-propagation library stays optional).
     */
    static final String OBSERVATION_KEY = "micrometer.observation";

    /** The destination of an operation on every route. */
    static final String ANY_ROUTE = "*";
    /** The destination of rows of several routes. */
    static final String MIXED_ROUTES = "(mixed)";

    private StoreObservations() {}

    /**
     * Observes a dispatcher's work on one claimed row as {@value #DISPATCH} ({@code process}), a
     * consumer observation whose parent is the trace context the row was staged with (O59), so
     * the work appears in the trace that scheduled it. Settles done inside {@code work} (through
     * an {@link ObservedStore}) are its children.
     *
     * <pre>{@code
     * store.claimStream(options)
     *      .flatMap(row -> StoreObservations.dispatch(registry, row,
     *              handler.handle(row).then(store.complete(row))), 16);
     * }</pre>
     *
     * @param registry the observation registry
     * @param row the claimed row
     * @param work the dispatcher's work, settle included
     * @param <T> the work's value
     * @return {@code work}, observed
     */
    public static <T> Mono<T> dispatch(ObservationRegistry registry, OutboxRow row, Mono<T> work) {
        InvalidArgumentException.requireNonNull(registry, "registry");
        InvalidArgumentException.requireNonNull(row, "row");
        InvalidArgumentException.requireNonNull(work, "work");
        if (registry.isNoop()) {
            return work;
        }
        String destination = destination(row.route());
        // detached: the parent is the context the row was staged with, not whatever runs the dispatcher
        return observe(
                registry,
                DISPATCH,
                spanName("dispatch", destination),
                () -> {
                    ReceiverContext<Map<String, String>> context = new ReceiverContext<>(Map::get, Kind.CONSUMER);
                    context.setCarrier(TraceCarrier.decode(row.traceContext()));
                    return context;
                },
                true,
                KeyValues.of(
                        KeyValue.of(OPERATION_TYPE_KEY, "process"),
                        KeyValue.of(OPERATION_NAME_KEY, "dispatch"),
                        KeyValue.of(DESTINATION_KEY, destination)),
                KeyValues.of(
                        KeyValue.of(MESSAGE_ID_KEY, row.dispatchKey()),
                        KeyValue.of(WORKFLOW_KEY, row.workflowId().toString())),
                (observation, context) -> work);
    }

    /**
     * Runs {@code body} inside a started observation, the current one of the subscriber's Reactor
     * context (or thread) as its parent unless {@code detached}, and itself the current
     * observation of everything {@code body} subscribes to. Every subscription gets its own
     * context (from {@code context}) and observation, stopped exactly once: before the terminal
     * signal goes downstream, or on cancel, whichever comes first.
     */
    static <C extends Observation.Context, T> Mono<T> observe(
            ObservationRegistry registry,
            String name,
            String contextualName,
            Supplier<C> context,
            boolean detached,
            KeyValues low,
            KeyValues high,
            BiFunction<Observation, C, Mono<T>> body) {
        return Mono.deferContextual(view -> {
            C ctx = context.get();
            Observation observation = Observation.createNotStarted(name, () -> ctx, registry)
                    .contextualName(contextualName)
                    .lowCardinalityKeyValue(SYSTEM_KEY, SYSTEM)
                    .lowCardinalityKeyValues(low)
                    .highCardinalityKeyValues(high);
            if (!detached) {
                Observation parent = view.getOrDefault(OBSERVATION_KEY, null);
                observation.parentObservation(parent != null ? parent : registry.getCurrentObservation());
            }
            observation.start();
            AtomicBoolean stopped = new AtomicBoolean();
            Runnable stop = () -> {
                if (stopped.compareAndSet(false, true)) {
                    stopQuietly(observation);
                }
            };
            Mono<T> run;
            try {
                run = Objects.requireNonNull(body.apply(observation, ctx), "the observed work");
            } catch (RuntimeException e) {
                run = Mono.error(e);
            }
            // stopped before the terminal signal goes downstream (not in doFinally, which runs after
            // it): a caller that blocks or chains on the result finds the observation complete
            return run.doOnError(observation::error)
                    .doOnTerminate(stop)
                    .doOnCancel(() -> {
                        if (!stopped.get()) {
                            observation.event(Observation.Event.of("cancel"));
                        }
                        stop.run();
                    })
                    .contextWrite(c -> c.put(OBSERVATION_KEY, observation));
        });
    }

    /**
     * Stops the observation; a handler that throws is logged, never passed on. The observed work has
     * finished by then: a committed claim turned into an error would leave its rows claimed, unseen by
     * anyone, until their lease ran out.
     */
    private static void stopQuietly(Observation observation) {
        try {
            observation.stop();
        } catch (RuntimeException e) {
            log.warn(
                    "an observation handler failed to stop the observation {}; the store operation is not affected",
                    observation.getContextView().getName(),
                    e);
        }
    }

    /** @return {@code operation destination}, or the operation alone when the destination is not one route */
    static String spanName(String operation, String destination) {
        return ANY_ROUTE.equals(destination) || MIXED_ROUTES.equals(destination)
                ? operation
                : operation + " " + destination;
    }

    /** @return the high-cardinality batch size, set only for operations on other than one message */
    static KeyValues batchCount(int count) {
        return count == 1 ? KeyValues.empty() : KeyValues.of(BATCH_COUNT_KEY, Integer.toString(count));
    }

    /** @return the destination of a route: {@code namespace/taskQueue}, or {@code *} for none */
    static String destination(ClaimScope scope) {
        return scope == null ? ANY_ROUTE : scope.namespace() + "/" + scope.taskQueue();
    }

    /** @return the one destination of all the rows, {@code (mixed)} for several, {@code *} for none */
    static String destination(Collection<OutboxRow> rows) {
        String one = null;
        for (OutboxRow row : rows) {
            String d = destination(row.route());
            if (one == null) {
                one = d;
            } else if (!one.equals(d)) {
                return MIXED_ROUTES;
            }
        }
        return one == null ? ANY_ROUTE : one;
    }
}
