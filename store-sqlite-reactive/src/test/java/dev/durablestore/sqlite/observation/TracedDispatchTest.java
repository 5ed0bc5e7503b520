package dev.durablestore.sqlite.observation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.Payload;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.WorkflowStep;
import dev.durablestore.api.observation.ObservedStore;
import dev.durablestore.api.observation.StoreObservations;
import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.otel.bridge.OtelBaggageManager;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelPropagator;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Hooks;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * End to end with a real tracer (OpenTelemetry through Micrometer Tracing) and Reactor's automatic
 * context propagation: a row staged inside a request's trace is dispatched in that same trace, as
 * a child of the staging span, although it is claimed later by a poller in a trace of its own.
 */
class TracedDispatchTest {

    @TempDir
    Path dir;

    private InMemorySpanExporter spans;
    private SdkTracerProvider provider;
    private ObservationRegistry registry;
    private OtelTracer tracer;
    private SqliteReactiveStore sqlite;
    private ReactiveStore store;

    @BeforeAll
    static void propagate() {
        Hooks.enableAutomaticContextPropagation();
    }

    @AfterAll
    static void stopPropagating() {
        Hooks.disableAutomaticContextPropagation();
    }

    @BeforeEach
    void tracer() {
        spans = InMemorySpanExporter.create();
        provider = SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build();
        io.opentelemetry.api.trace.Tracer otel = provider.get("durable-store-test");
        OtelCurrentTraceContext current = new OtelCurrentTraceContext();
        tracer = new OtelTracer(otel, current, event -> { },
                new OtelBaggageManager(current, List.of(), List.of()));
        OtelPropagator propagator = new OtelPropagator(
                ContextPropagators.create(W3CTraceContextPropagator.getInstance()), otel);
        registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
                new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
                new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
                new DefaultTracingObservationHandler(tracer)));
        sqlite = SqliteReactiveStore.open(SqliteStoreConfig.of(dir.resolve("traced.db")));
        store = ObservedStore.wrap(sqlite, registry);
    }

    @AfterEach
    void close() {
        sqlite.close();
        provider.close();
    }

    @Test
    @DisplayName("given a row staged in a request's trace, when a poller claims and dispatches it, then the dispatch is in the request's trace")
    void dispatchJoinsTheTraceThatStagedTheRow() {
        WorkflowId w = WorkflowId.random();
        OutboxRow row = OutboxRow.pending(w, 0, "charge", Payload.json("{}"), Instant.EPOCH)
                .withRoute("orders", "payments", null);

        // given a request that stages the row, its observation in the Reactor context only
        Observation request = Observation.start("http.request", registry);
        store.appendOutboxBatch(List.of(row))
                .contextWrite(c -> c.put(ObservationRegistryKeys.OBSERVATION, request))
                .block();
        request.stop();

        // when a poller, in a trace of its own, claims the row and dispatches it
        Observation poller = Observation.start("poller", registry);
        OutboxRow claimed = store.claim(10)
                .contextWrite(c -> c.put(ObservationRegistryKeys.OBSERVATION, poller))
                .block().get(0);
        poller.stop();
        // (the handler hops threads; automatic context propagation keeps its span current there)
        AtomicReference<String> handlerSpan = new AtomicReference<>();
        StoreObservations.dispatch(registry, claimed, Mono.delay(Duration.ofMillis(1))
                        .publishOn(Schedulers.boundedElastic())
                        .doOnNext(tick -> handlerSpan.set(tracer.currentSpan().context().spanId()))
                        .then(store.complete(claimed)))
                .block();

        // then staging is a child of the request, and the dispatch a child of the staging span
        Map<String, SpanData> byName = spans.getFinishedSpanItems().stream()
                .collect(Collectors.toMap(SpanData::getName, Function.identity(), (a, b) -> a));
        assertThat(byName).containsKeys("http.request", "appendOutboxBatch orders/payments", "claim", "poller",
                "dispatch orders/payments", "complete orders/payments");
        SpanData http = byName.get("http.request");
        SpanData create = byName.get("appendOutboxBatch orders/payments");
        SpanData process = byName.get("dispatch orders/payments");
        SpanData settle = byName.get("complete orders/payments");
        SpanData receive = byName.get("claim");

        assertThat(claimed.traceContext()).contains("traceparent=00-" + create.getTraceId() + "-" + create.getSpanId());
        assertThat(create.getTraceId()).isEqualTo(http.getTraceId());
        assertThat(create.getParentSpanId()).isEqualTo(http.getSpanId());
        assertThat(process.getTraceId()).isEqualTo(http.getTraceId());
        assertThat(process.getParentSpanId()).isEqualTo(create.getSpanId());
        assertThat(settle.getParentSpanId()).isEqualTo(process.getSpanId());
        assertThat(handlerSpan.get()).isEqualTo(process.getSpanId());
        assertThat(receive.getTraceId()).isEqualTo(byName.get("poller").getTraceId()).isNotEqualTo(http.getTraceId());
        assertThat(List.of(create.getKind(), receive.getKind(), process.getKind(), settle.getKind()))
                .containsExactly(SpanKind.PRODUCER, SpanKind.CLIENT, SpanKind.CONSUMER, SpanKind.CLIENT);
        assertThat(create.getAttributes().asMap().toString()).contains("messaging.operation.type=create",
                "messaging.system=durable_store", "messaging.destination.name=orders/payments");
    }

    @Test
    @DisplayName("given a step that stages a row inside a trace, the row carries the step span's context")
    void aStepStagesItsRowsInItsOwnSpan() {
        WorkflowId w = WorkflowId.random();
        OutboxRow first = OutboxRow.pending(w, 0, "charge", Payload.json("{}"), Instant.EPOCH);
        sqlite.appendOutboxBatch(List.of(first)).block();
        OutboxRow claimed = sqlite.claim(1).block().get(0);
        OutboxRow next = OutboxRow.pending(w, 1, "ship", Payload.json("{}"), Instant.EPOCH);

        Observation request = Observation.start("http.request", registry);
        store.commitStep(WorkflowStep.builder(w, 0).stage(next).complete(claimed).build())
                .contextWrite(c -> c.put(ObservationRegistryKeys.OBSERVATION, request))
                .block();
        request.stop();

        SpanData step = spans.getFinishedSpanItems().stream().filter(span -> span.getName().startsWith("commitStep"))
                .findFirst().orElseThrow();
        assertThat(step.getParentSpanId()).isEqualTo(byName().get("http.request").getSpanId());
        assertThat(sqlite.claim(1).block().get(0).traceContext())
                .startsWith("traceparent=00-" + step.getTraceId() + "-" + step.getSpanId() + "-");
    }

    private Map<String, SpanData> byName() {
        return spans.getFinishedSpanItems().stream()
                .collect(Collectors.toMap(SpanData::getName, Function.identity(), (a, b) -> a));
    }

    /** The Reactor context key under which Spring and Reactor keep the current observation. */
    private static final class ObservationRegistryKeys {
        static final String OBSERVATION = "micrometer.observation";
    }
}
