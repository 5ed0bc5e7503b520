package dev.durablestore.micrometer.observation;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.OutboxRow;
import io.micrometer.observation.Observation;
import io.micrometer.tracing.Link;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.handler.TracingObservationHandler;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tracing handler of claims ({@value StoreObservations#CLAIM}, observed by {@link ObservedStore}):
 * their span links to the trace context each claimed row was staged with, as the OpenTelemetry
 * messaging conventions have a batch receive link to each message's creation context. The claim
 * stays a span of its own in the claimer's trace (a batch has many creators, so none of them is its
 * parent), and a trace viewer leads from it to every trace whose rows it took. Each link is tagged
 * with the row's {@value StoreObservations#MESSAGE_ID_KEY} (its dispatch key).
 *
 * <p>Put it first among the tracing handlers, so that it, not the sender handler, makes the span
 * of a claim (it handles claims only):
 * <pre>{@code
 * registry.observationConfig().observationHandler(new FirstMatchingCompositeObservationHandler(
 *         new ClaimLinksObservationHandler(tracer),
 *         new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
 *         new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
 *         new DefaultTracingObservationHandler(tracer)));
 * }</pre>
 * The durable-store Spring Boot starter registers it so when observations are on and the
 * application has a Micrometer {@link Tracer} and {@code Propagator}.
 *
 * <ul>
 *   <li><b>At most {@value #MAX_LINKS} links per claim</b> (OpenTelemetry's default span limit
 *       too): to the first rows of the batch that have a readable context. A row without a stored
 *       context, or with one that is malformed, adds no link and never fails the claim.</li>
 *   <li><b>The span is made when the claim returns</b>, with the claim's start time: the rows are
 *       known only then, and a tracer takes links when it builds a span (Micrometer Tracing's
 *       {@code Span} cannot add them later, and its OpenTelemetry bridge ignores
 *       {@code Span.addLink} on a started span). So while the claim runs, the claimer's span
 *       stays the current one.</li>
 *   <li><b>A claim stream's empty poll makes no span</b>: an idle stream claims on every wake-up
 *       and poll interval, and a span per empty poll would bury the claims that took rows. Such a
 *       poll is still timed by the meter handlers.</li>
 *   <li>The stored contexts are read as the tracer injected them at staging: W3C
 *       {@code traceparent} or B3 (single or multiple headers), the only fields a row stores.</li>
 *   <li>Needs {@code io.micrometer:micrometer-tracing} with a bridge, an optional dependency of
 *       durable-store: no other class of the store loads this one.</li>
 * </ul>
 */
public final class ClaimLinksObservationHandler implements TracingObservationHandler<Observation.Context> {

    /** The most links one claim's span gets. */
    public static final int MAX_LINKS = 128;

    private static final Logger log = LoggerFactory.getLogger(ClaimLinksObservationHandler.class);

    private final Tracer tracer;

    /**
     * @param tracer the application's Micrometer tracer
     */
    public ClaimLinksObservationHandler(Tracer tracer) {
        this.tracer = InvalidArgumentException.requireNonNull(tracer, "tracer");
    }

    /** What is known of a claim's span before its rows are: its parent, its start and its events. */
    private static final class Pending {
        final TraceContext parent;
        final long startNanos;
        final ConcurrentLinkedQueue<Map.Entry<String, Long>> events = new ConcurrentLinkedQueue<>();

        Pending(TraceContext parent, long startNanos) {
            this.parent = parent;
            this.startNanos = startNanos;
        }
    }

    @Override
    public Tracer getTracer() {
        return tracer;
    }

    @Override
    public boolean supportsContext(Observation.Context context) {
        return context instanceof ClaimContext;
    }

    @Override
    public void onStart(Observation.Context context) {
        // the parent as the sender handler would take it: the parent observation's span, else the current one
        Span parent = getParentSpan(context);
        // the tracing context exists from the start, as every tracing handler's does, and holds the
        // claimer's span until the claim's own is made at stop: context propagation keeps that span
        // current while the claim runs, and Spring Boot's TracingAwareMeterObservationHandler, which
        // requires the tracing context, stops before this handler (and also for an idle poll, which
        // makes no span)
        getTracingContext(context).setSpan(parent);
        context.put(Pending.class, new Pending(parent == null ? null : parent.context(), nowNanos()));
    }

    @Override
    public void onEvent(Observation.Event event, Observation.Context context) {
        Pending pending = context.get(Pending.class);
        if (pending != null) {
            pending.events.add(Map.entry(event.getContextualName(), nowNanos()));
        }
    }

    /** Nothing to do: the error is on the context when the span is made. */
    @Override
    public void onError(Observation.Context context) {}

    /** No span to make current yet: the claimer's stays current. */
    @Override
    public void onScopeOpened(Observation.Context context) {}

    @Override
    public void onScopeClosed(Observation.Context context) {}

    @Override
    public void onScopeReset(Observation.Context context) {}

    @Override
    public void onStop(Observation.Context context) {
        Pending pending = context.get(Pending.class);
        if (pending == null) {
            return;
        }
        ClaimContext claim = (ClaimContext) context;
        if (claim.polled() && claim.claimed().isEmpty() && context.getError() == null) {
            return; // an idle claim stream's poll: no span
        }
        Span span;
        try {
            Span.Builder builder = tracer.spanBuilder()
                    .name(getSpanName(context))
                    .kind(Span.Kind.CLIENT)
                    .startTimestamp(pending.startNanos, TimeUnit.NANOSECONDS);
            builder = pending.parent == null ? builder.setNoParent() : builder.setParent(pending.parent);
            span = link(builder, claim.claimed()).start();
        } catch (RuntimeException e) {
            // a tracer that refuses a link costs the claim's span, never the claim
            log.debug("could not trace a claim", e);
            return;
        }
        getTracingContext(context).setSpan(span);
        tagSpan(context, span);
        for (Map.Entry<String, Long> event : pending.events) {
            span.event(event.getKey(), event.getValue(), TimeUnit.NANOSECONDS);
        }
        if (context.getError() != null) {
            span.error(context.getError());
        }
        endSpan(context, span);
    }

    /** Adds a link per row with a readable stored context, at most {@value #MAX_LINKS}. */
    private Span.Builder link(Span.Builder builder, List<OutboxRow> rows) {
        int links = 0;
        for (OutboxRow row : rows) {
            if (links == MAX_LINKS) {
                break;
            }
            TraceCarrier.Ids ids = row == null ? null : TraceCarrier.ids(row.traceContext());
            if (ids != null) {
                TraceContext staged = tracer.traceContextBuilder()
                        .traceId(ids.traceId())
                        .spanId(ids.spanId())
                        .sampled(ids.sampled())
                        .build();
                builder =
                        builder.addLink(new Link(staged, Map.of(StoreObservations.MESSAGE_ID_KEY, row.dispatchKey())));
                links++;
            }
        }
        return builder;
    }

    private static long nowNanos() {
        Instant now = Instant.now();
        return TimeUnit.SECONDS.toNanos(now.getEpochSecond()) + now.getNano();
    }
}
