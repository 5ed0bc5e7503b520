package dev.durablestore.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.micrometer.observation.ClaimLinksObservationHandler;
import dev.durablestore.micrometer.observation.ObservedStore;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.test.StepVerifier;

/**
 * The claims' span links in the starter: {@link ClaimLinksObservationHandler} is registered when
 * observations are on and the application traces (a Micrometer {@link Tracer} and
 * {@link Propagator}), and with Spring Boot's own OpenTelemetry tracing a claim's span links to
 * the rows' staging spans.
 */
class ClaimLinksTest {

    @TempDir
    Path dir;

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(LineFixtures.starter())
                .withBean(ObservationRegistry.class, TestObservationRegistry::create)
                .withPropertyValues(
                        "durablestore.backend=sqlite",
                        "durablestore.sqlite.path=" + dir.resolve("l.db"),
                        "durablestore.observations.enabled=true");
    }

    @Test
    @DisplayName(
            "given observations on, a Tracer and a Propagator, when the context starts, then the claim link handler is registered")
    void registeredWhenTheApplicationTraces() {
        runner().withBean(Tracer.class, () -> Tracer.NOOP)
                .withBean(Propagator.class, () -> Propagator.NOOP)
                .run(context -> assertThat(context).hasSingleBean(ClaimLinksObservationHandler.class));
    }

    @Test
    @DisplayName(
            "given observations on and a Tracer without a Propagator (Boot's no-op tracer), then there is no claim link handler")
    void notWithoutAPropagator() {
        runner().withBean(Tracer.class, () -> Tracer.NOOP)
                .run(context -> assertThat(context).doesNotHaveBean(ClaimLinksObservationHandler.class));
    }

    @Test
    @DisplayName("given observations on and no tracer, then there is no claim link handler")
    void notWithoutATracer() {
        runner().run(context -> {
            assertThat(context).doesNotHaveBean(ClaimLinksObservationHandler.class);
            assertThat(context.getBean(ReactiveStore.class)).isInstanceOf(ObservedStore.class);
        });
    }

    @Test
    @DisplayName("given a Tracer and a Propagator but observations off, then there is no claim link handler")
    void notWithObservationsOff() {
        runner().withPropertyValues("durablestore.observations.enabled=false")
                .withBean(Tracer.class, () -> Tracer.NOOP)
                .withBean(Propagator.class, () -> Propagator.NOOP)
                .run(context -> assertThat(context).doesNotHaveBean(ClaimLinksObservationHandler.class));
    }

    @Test
    @DisplayName(
            "given Micrometer Tracing not on the class path, then the store is still observed, without claim links")
    void withoutMicrometerTracing() {
        runner().withClassLoader(new FilteredClassLoader("io.micrometer.tracing"))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean("durableStoreClaimLinks");
                    assertThat(context.getBean(ReactiveStore.class)).isInstanceOf(ObservedStore.class);
                });
    }

    @Test
    @DisplayName("given a user's own handler, then the starter's backs off")
    void backsOffForTheUsersOwn() {
        ClaimLinksObservationHandler own = new ClaimLinksObservationHandler(Tracer.NOOP);
        runner().withBean(Tracer.class, () -> Tracer.NOOP)
                .withBean(Propagator.class, () -> Propagator.NOOP)
                .withBean("mine", ClaimLinksObservationHandler.class, () -> own)
                .run(context -> assertThat(context.getBean(ClaimLinksObservationHandler.class))
                        .isSameAs(own));
    }

    @Test
    @DisplayName(
            "given Spring Boot's OpenTelemetry tracing, when rows staged in two traces are claimed in one batch, then the claim span links to both staging spans")
    void withSpringBootsOpenTelemetryTracing() {
        InMemorySpanExporter spans = InMemorySpanExporter.create();
        new ApplicationContextRunner()
                .withConfiguration(LineFixtures.tracing())
                .withConfiguration(LineFixtures.starter())
                .withBean(InMemorySpanExporter.class, () -> spans)
                .withPropertyValues(
                        "durablestore.backend=sqlite",
                        "durablestore.sqlite.path=" + dir.resolve("b.db"),
                        "durablestore.observations.enabled=true",
                        "durablestore.reaper.enabled=false",
                        "management.tracing.sampling.probability=1.0")
                .run(context -> {
                    // given two rows, each staged inside a request of its own
                    ObservationRegistry registry = context.getBean(ObservationRegistry.class);
                    ReactiveStore store = context.getBean(ReactiveStore.class);
                    List<OutboxRow> rows = StarterFixtures.rows("greet", 2);
                    for (OutboxRow row : rows) {
                        Observation request = Observation.start("request", registry);
                        StepVerifier.create(store.appendOutboxBatch(List.of(row))
                                        .contextWrite(c -> c.put("micrometer.observation", request)))
                                .verifyComplete();
                        request.stop();
                    }

                    // when one claim takes both
                    StepVerifier.create(store.claim(ClaimRequest.of(10)))
                            .expectNextMatches(claimed -> claimed.size() == 2)
                            .verifyComplete();

                    // then its span links to both staging spans
                    assertThat(context.getBean(SdkTracerProvider.class)
                                    .forceFlush()
                                    .join(10, TimeUnit.SECONDS)
                                    .isSuccess())
                            .isTrue();
                    List<SpanData> finished = spans.getFinishedSpanItems();
                    List<String> staging = finished.stream()
                            .filter(s -> s.getName().startsWith("appendOutboxBatch"))
                            .map(s -> s.getTraceId() + "/" + s.getSpanId())
                            .toList();
                    SpanData claim = finished.stream()
                            .filter(s -> s.getName().equals("claim"))
                            .findFirst()
                            .orElseThrow();
                    assertThat(staging).hasSize(2);
                    assertThat(staging).noneMatch(span -> span.startsWith(claim.getTraceId()));
                    assertThat(claim.getLinks())
                            .extracting(link -> link.getSpanContext().getTraceId() + "/"
                                    + link.getSpanContext().getSpanId())
                            .containsExactlyInAnyOrderElementsOf(staging);
                });
    }
}
