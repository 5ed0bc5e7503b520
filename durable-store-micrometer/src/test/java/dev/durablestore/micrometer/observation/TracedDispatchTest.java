package dev.durablestore.micrometer.observation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.Payload;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.StoreClosedException;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.WorkflowStep;
import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.handler.TracingAwareMeterObservationHandler;
import io.micrometer.tracing.otel.bridge.OtelBaggageManager;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelPropagator;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Hooks;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * End to end with a real tracer (OpenTelemetry through Micrometer Tracing) and Reactor's automatic
 * context propagation: a row staged inside a request's trace is dispatched in that same trace, as
 * a child of the staging span, although it is claimed later by a poller in a trace of its own; the
 * poller's claim links to the staging span of each row it took.
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
        provider = SdkTracerProvider.builder()
                .addSpanProcessor(SimpleSpanProcessor.create(spans))
                .build();
        io.opentelemetry.api.trace.Tracer otel = provider.get("durable-store-test");
        OtelCurrentTraceContext current = new OtelCurrentTraceContext();
        tracer = new OtelTracer(otel, current, event -> {}, new OtelBaggageManager(current, List.of(), List.of()));
        OtelPropagator propagator =
                new OtelPropagator(ContextPropagators.create(W3CTraceContextPropagator.getInstance()), otel);
        registry = ObservationRegistry.create();
        // the claims' handler first: it makes the span of a claim, the others every other span
        registry.observationConfig()
                .observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
                        new ClaimLinksObservationHandler(tracer),
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
    @DisplayName(
            "given a row staged in a request's trace, when a poller claims and dispatches it, then the dispatch is in the request's trace")
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
        OutboxRow claimed = store.claim(ClaimRequest.of(10))
                .contextWrite(c -> c.put(ObservationRegistryKeys.OBSERVATION, poller))
                .block()
                .get(0);
        poller.stop();
        // (the handler hops threads; automatic context propagation keeps its span current there)
        AtomicReference<String> handlerSpan = new AtomicReference<>();
        StoreObservations.dispatch(
                        registry,
                        claimed,
                        Mono.delay(Duration.ofMillis(1))
                                .publishOn(Schedulers.boundedElastic())
                                .doOnNext(tick -> handlerSpan.set(
                                        tracer.currentSpan().context().spanId()))
                                .then(store.complete(claimed)))
                .block();

        // then staging is a child of the request, and the dispatch a child of the staging span
        Map<String, SpanData> byName = spans.getFinishedSpanItems().stream()
                .collect(Collectors.toMap(SpanData::getName, Function.identity(), (a, b) -> a));
        assertThat(byName)
                .containsKeys(
                        "http.request",
                        "appendOutboxBatch orders/payments",
                        "claim",
                        "poller",
                        "dispatch orders/payments",
                        "complete orders/payments");
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
        assertThat(receive.getTraceId())
                .isEqualTo(byName.get("poller").getTraceId())
                .isNotEqualTo(http.getTraceId());
        assertThat(List.of(create.getKind(), receive.getKind(), process.getKind(), settle.getKind()))
                .containsExactly(SpanKind.PRODUCER, SpanKind.CLIENT, SpanKind.CONSUMER, SpanKind.CLIENT);
        assertThat(create.getAttributes().asMap().toString())
                .contains(
                        "messaging.operation.type=create",
                        "messaging.system=durable_store",
                        "messaging.destination.name=orders/payments");
    }

    @Test
    @DisplayName("given a step that stages a row inside a trace, the row carries the step span's context")
    void aStepStagesItsRowsInItsOwnSpan() {
        WorkflowId w = WorkflowId.random();
        OutboxRow first = OutboxRow.pending(w, 0, "charge", Payload.json("{}"), Instant.EPOCH);
        sqlite.appendOutboxBatch(List.of(first)).block();
        OutboxRow claimed = sqlite.claim(ClaimRequest.of(1)).block().get(0);
        OutboxRow next = OutboxRow.pending(w, 1, "ship", Payload.json("{}"), Instant.EPOCH);

        Observation request = Observation.start("http.request", registry);
        store.commitStep(
                        WorkflowStep.builder(w, 0).stage(next).complete(claimed).build())
                .contextWrite(c -> c.put(ObservationRegistryKeys.OBSERVATION, request))
                .block();
        request.stop();

        SpanData step = spans.getFinishedSpanItems().stream()
                .filter(span -> span.getName().startsWith("commitStep"))
                .findFirst()
                .orElseThrow();
        assertThat(step.getParentSpanId())
                .isEqualTo(byName().get("http.request").getSpanId());
        assertThat(sqlite.claim(ClaimRequest.of(1)).block().get(0).traceContext())
                .startsWith("traceparent=00-" + step.getTraceId() + "-" + step.getSpanId() + "-");
    }

    @Test
    @DisplayName(
            "given three rows staged in three traces, when a poller claims them in one batch, then the claim span is in the poller's trace and links to each staging span")
    void aBatchClaimLinksToEachRowsStagingSpan() {
        // given three rows, each staged inside a request of its own
        for (int i = 0; i < 3; i++) {
            stageInRequest("request-" + i, row("charge-" + i));
        }
        List<SpanData> staging = spansNamed("appendOutboxBatch orders/payments");
        assertThat(staging)
                .extracting(SpanData::getTraceId)
                .doesNotHaveDuplicates()
                .hasSize(3);

        // when a poller claims the three in one batch
        claimInPoller(3);

        // then the claim is the poller's child, in no staging trace, with a link to each staging span
        SpanData claim = spansNamed("claim").get(0);
        SpanData poller = spansNamed("poller").get(0);
        assertThat(claim.getTraceId()).isEqualTo(poller.getTraceId());
        assertThat(claim.getParentSpanId()).isEqualTo(poller.getSpanId());
        assertThat(staging).extracting(SpanData::getTraceId).doesNotContain(claim.getTraceId());
        assertThat(staging).extracting(SpanData::getSpanId).doesNotContain(claim.getParentSpanId());
        assertThat(claim.getLinks())
                .extracting(link -> link.getSpanContext().getTraceId() + "/"
                        + link.getSpanContext().getSpanId())
                .containsExactlyInAnyOrderElementsOf(staging.stream()
                        .map(span -> span.getTraceId() + "/" + span.getSpanId())
                        .toList());
        assertThat(claim.getTotalRecordedLinks()).isEqualTo(3);
        assertThat(claim.getKind()).isEqualTo(SpanKind.CLIENT);
        assertThat(claim.getAttributes().asMap().toString())
                .contains("messaging.operation.type=receive", "messaging.batch.message_count=3");
        assertThat(claim.getStartEpochNanos())
                .isGreaterThanOrEqualTo(poller.getStartEpochNanos())
                .isLessThanOrEqualTo(claim.getEndEpochNanos());
        assertThat(claim.getLinks())
                .extracting(link -> link.getAttributes().get(AttributeKey.stringKey(StoreObservations.MESSAGE_ID_KEY)))
                .doesNotContainNull()
                .doesNotHaveDuplicates();
    }

    @Test
    @DisplayName(
            "given rows staged in three traces, when a claim stream in a poller's trace takes them in one claim, then that claim is a span in the poller's trace linked to each staging span, and an empty poll makes no span")
    void aClaimStreamsClaimLinksToEachRowsStagingSpan() throws InterruptedException {
        // given three rows, each staged inside a request of its own, and a count of finished claims
        for (int i = 0; i < 3; i++) {
            stageInRequest("request-" + i, row("charge-" + i));
        }
        CountDownLatch twoClaims = new CountDownLatch(2);
        registry.observationConfig().observationHandler(new ObservationHandler<>() {
            @Override
            public boolean supportsContext(Observation.Context context) {
                return StoreObservations.CLAIM.equals(context.getName());
            }

            @Override
            public void onStop(Observation.Context context) {
                twoClaims.countDown();
            }
        });

        // when a claim stream subscribed in a poller's trace takes the three, then polls once more
        Observation poller = Observation.start("poller", registry);
        Flux<OutboxRow> stream = store.claimStream(
                        ClaimStreamOptions.defaults().withScope(ClaimScope.of("orders", "payments")))
                .contextWrite(c -> c.put(ObservationRegistryKeys.OBSERVATION, poller));
        StepVerifier.create(stream, 3)
                .expectNextCount(3)
                .thenRequest(1)
                .then(() -> assertThat(await(twoClaims))
                        .as("the second, empty claim finished")
                        .isTrue())
                .thenCancel()
                .verify(Duration.ofSeconds(10));
        poller.stop();

        // then the one claim that took rows is the poller's child, linked to each staging span
        List<SpanData> staging = spansNamed("appendOutboxBatch orders/payments");
        List<SpanData> claims = spansNamed("claimStream orders/payments");
        assertThat(claims).as("one span: the empty poll makes none").hasSize(1);
        SpanData claim = claims.get(0);
        assertThat(claim.getParentSpanId())
                .isEqualTo(spansNamed("poller").get(0).getSpanId());
        assertThat(claim.getLinks())
                .extracting(link -> link.getSpanContext().getSpanId())
                .containsExactlyInAnyOrderElementsOf(
                        staging.stream().map(SpanData::getSpanId).toList());
        assertThat(claim.getAttributes().asMap().toString())
                .contains(
                        "messaging.operation.type=receive",
                        "messaging.operation.name=claimStream",
                        "messaging.batch.message_count=3");
    }

    private static boolean await(CountDownLatch latch) {
        try {
            return latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    @Test
    @DisplayName("given a row staged without a trace context, when it is claimed in a batch, then it adds no link")
    void aRowWithoutAContextAddsNoLink() {
        // given a row staged in a request and one staged on the unobserved store (no context)
        stageInRequest("request", row("traced"));
        StepVerifier.create(sqlite.appendOutboxBatch(List.of(row("untraced")))).verifyComplete();

        // when a poller claims both
        claimInPoller(2);

        // then only the traced row is linked
        SpanData create = spansNamed("appendOutboxBatch orders/payments").get(0);
        assertThat(spansNamed("claim").get(0).getLinks())
                .extracting(LinkData::getSpanContext)
                .extracting(link -> link.getTraceId() + "/" + link.getSpanId())
                .containsExactly(create.getTraceId() + "/" + create.getSpanId());
    }

    @Test
    @DisplayName(
            "given rows whose stored trace contexts are malformed, when they are claimed in a batch, then the claim succeeds and they add no link")
    void aMalformedContextAddsNoLinkAndDoesNotFailTheClaim() {
        // given two rows with contexts no propagator reads, and a traced one
        StepVerifier.create(sqlite.appendOutboxBatch(List.of(
                        row("bad-version")
                                .withTraceContext("traceparent=zz-" + "1".repeat(32) + "-" + "2".repeat(16) + "-01"),
                        row("zero-ids")
                                .withTraceContext("traceparent=00-" + "0".repeat(32) + "-" + "0".repeat(16) + "-01"),
                        row("not-a-field").withTraceContext("garbage"))))
                .verifyComplete();
        stageInRequest("request", row("traced"));

        // when a poller claims all four
        claimInPoller(4);

        // then the claim ended normally with the one valid link
        SpanData claim = spansNamed("claim").get(0);
        assertThat(claim.getStatus().getStatusCode()).isNotEqualTo(StatusCode.ERROR);
        assertThat(claim.getLinks()).hasSize(1);
        assertThat(claim.getLinks().get(0).getSpanContext().getSpanId())
                .isEqualTo(
                        spansNamed("appendOutboxBatch orders/payments").get(0).getSpanId());
    }

    @Test
    @DisplayName("given more rows than the link bound in one claim, then the claim span gets at most MAX_LINKS links")
    void linksAreBounded() {
        // given one staging of more rows than the bound (each carrying the staging span's context)
        int rows = ClaimLinksObservationHandler.MAX_LINKS + 5;
        stageInRequest(
                "request", IntStream.range(0, rows).mapToObj(i -> row("r-" + i)).toArray(OutboxRow[]::new));

        // when a poller claims them all
        claimInPoller(rows);

        // then the links stop at the bound
        assertThat(spansNamed("claim").get(0).getTotalRecordedLinks())
                .isEqualTo(ClaimLinksObservationHandler.MAX_LINKS);
    }

    @Test
    @DisplayName("given a claim that fails, then its span records the error, in the poller's trace")
    void aFailedClaimIsTracedWithItsError() {
        // given a store that is closed
        sqlite.close();

        // when a poller claims
        Observation poller = Observation.start("poller", registry);
        StepVerifier.create(store.claim(ClaimRequest.of(10))
                        .contextWrite(c -> c.put(ObservationRegistryKeys.OBSERVATION, poller)))
                .expectError(StoreClosedException.class)
                .verify(Duration.ofSeconds(10));
        poller.stop();

        // then the claim span is the poller's child, an error, without links
        SpanData claim = spansNamed("claim").get(0);
        assertThat(claim.getParentSpanId())
                .isEqualTo(spansNamed("poller").get(0).getSpanId());
        assertThat(claim.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(claim.getLinks()).isEmpty();
    }

    @Test
    @DisplayName(
            "given Spring Boot's tracing-aware meter handler beside the tracing handlers, claims with and without rows succeed and are timed")
    void claimsUnderTheTracingAwareMeterHandler() {
        // given the handlers as Spring Boot registers them when an application has metrics and tracing
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        registry.observationConfig()
                .observationHandler(
                        new TracingAwareMeterObservationHandler<>(new DefaultMeterObservationHandler(meters), tracer));
        stageInRequest("request", row("traced"));

        // when a poller claims the row, then again when nothing is left
        claimInPoller(1);
        claimInPoller(0);

        // then both claims were timed, and the one with a row was traced
        assertThat(meters.get(StoreObservations.CLAIM).timer().count()).isEqualTo(2);
        assertThat(spansNamed("claim")).isNotEmpty();
    }

    @Test
    @DisplayName("given an observation handler that throws when a claim stops, the claim still returns its rows")
    void aFailingHandlerDoesNotFailTheClaim() {
        // given a handler that throws whenever a claim stops
        registry.observationConfig().observationHandler(new ObservationHandler<>() {
            @Override
            public boolean supportsContext(Observation.Context context) {
                return context instanceof ClaimContext;
            }

            @Override
            public void onStop(Observation.Context context) {
                throw new IllegalStateException("a broken handler");
            }
        });
        stageInRequest("request", row("traced"));

        // when a poller claims, then it gets the row (claimInPoller checks it)
        claimInPoller(1);
    }

    private static OutboxRow row(String activity) {
        return OutboxRow.pending(WorkflowId.random(), 0, activity, Payload.json("{}"), Instant.EPOCH)
                .withRoute("orders", "payments", null);
    }

    /** Stages {@code rows} inside a request observation of its own (a trace of its own). */
    private void stageInRequest(String name, OutboxRow... rows) {
        Observation request = Observation.start(name, registry);
        StepVerifier.create(store.appendOutboxBatch(List.of(rows))
                        .contextWrite(c -> c.put(ObservationRegistryKeys.OBSERVATION, request)))
                .verifyComplete();
        request.stop();
    }

    /** Claims inside a poller observation of its own, expecting {@code count} rows. */
    private void claimInPoller(int count) {
        Observation poller = Observation.start("poller", registry);
        StepVerifier.create(store.claim(ClaimRequest.of(count + 10))
                        .contextWrite(c -> c.put(ObservationRegistryKeys.OBSERVATION, poller)))
                .assertNext(claimed -> assertThat(claimed).hasSize(count))
                .verifyComplete();
        poller.stop();
    }

    private List<SpanData> spansNamed(String name) {
        return spans.getFinishedSpanItems().stream()
                .filter(span -> span.getName().equals(name))
                .toList();
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
