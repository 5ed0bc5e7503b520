package dev.durablestore.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.PackageVersion;
import dev.durablestore.api.Payload;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.RunId;
import dev.durablestore.api.StoreClosedException;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.event.EventEnvelope;
import dev.durablestore.api.event.WorkflowStarted;
import dev.durablestore.micrometer.observation.ClaimLinksObservationHandler;
import dev.durablestore.micrometer.observation.ObservedStore;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.lang.ref.WeakReference;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * The application a new user writes from the README, started for real on this Boot line (a WebFlux
 * server on a random port, Actuator, tracing), once on the embedded SQLite file and once on
 * PostgreSQL through {@code spring.r2dbc.url}, and checked from outside over HTTP: the backend it
 * was configured for, health with that backend in its details, every {@code durable.store.*} meter
 * with a number (the queue depth after a forced collection too), dispatch, traced observations, the
 * console, the application's own JSON beside the store's, and a graceful shutdown that closes the
 * store.
 */
class RealApplicationTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final ParameterizedTypeReference<Map<String, Object>> JSON = new ParameterizedTypeReference<>() {};

    @TempDir
    Path dir;

    /** The user's application: a handler, an endpoint of its own, a span exporter, open security. */
    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @Import(OpenSecurity.class)
    static class App {
        @Bean
        OutboxDispatchHandler handler() {
            return row -> Mono.empty();
        }

        @Bean
        InMemorySpanExporter spans() {
            return InMemorySpanExporter.create();
        }

        @Bean
        HeadController heads(ReactiveStore store) {
            return new HeadController(store);
        }
    }

    /** The application's own JSON (Jackson 3 on Spring Boot 4, 2 on 3.5) about the store's data. */
    @RestController
    static class HeadController {
        private final ReactiveStore store;

        HeadController(ReactiveStore store) {
            this.store = store;
        }

        /** The workflow's head. */
        record Head(String workflowId, long head) {}

        @GetMapping("/heads/{id}")
        Mono<Head> head(@PathVariable("id") String id) {
            return store.readHead(WorkflowId.parse(id)).map(head -> new Head(id, head));
        }
    }

    @Test
    @DisplayName("given no database configured, the application runs on the SQLite file, chosen by the documented rule")
    void onSqlite() {
        Path file = dir.resolve("app.db");
        try (ConfigurableApplicationContext app = start(
                // no R2DBC ConnectionFactory: r2dbc-h2 is on this module's test class path, and Spring Boot
                // would make an in-memory one
                "spring.autoconfigure.exclude=" + LineFixtures.R2DBC_AUTO_CONFIGURATION,
                "durablestore.sqlite.path=" + file)) {
            checkRunning(
                    app, "SqliteReactiveStore", file.toAbsolutePath().toString(), "no R2DBC ConnectionFactory bean");
        }
    }

    @Test
    @DisplayName(
            "given spring.r2dbc.url, the application runs on that PostgreSQL database, chosen by the documented rule")
    void onPostgres() {
        try (ConfigurableApplicationContext app =
                start("spring.r2dbc.url=" + TestPostgres.url(), "spring.r2dbc.username=postgres")) {
            checkRunning(app, "R2dbcReactiveStore", "PostgreSQL", "an R2DBC ConnectionFactory bean");
        }
    }

    private static ConfigurableApplicationContext start(String... properties) {
        List<String> all = new ArrayList<>(List.of(
                "server.port=0",
                "server.shutdown=graceful",
                "management.endpoints.web.exposure.include=health,metrics",
                "management.endpoint.health.show-details=always",
                "management.tracing.sampling.probability=1.0",
                "durablestore.observations.enabled=true",
                "durablestore.console.enabled=true"));
        all.addAll(List.of(properties));
        return new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.REACTIVE)
                .properties(all.toArray(String[]::new))
                .run();
    }

    private static void checkRunning(
            ConfigurableApplicationContext app, String backend, String database, String chosenBecause) {
        WebClient http =
                WebClient.create("http://localhost:" + app.getEnvironment().getProperty("local.server.port"));
        ReactiveStore store = app.getBean(ReactiveStore.class);

        // the backend it was configured for, in health
        Map<String, Object> health = get(http, "/actuator/health/durableStore");
        assertThat(health).containsEntry("status", "UP");
        assertThat(health.get("details"))
                .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
                .containsEntry("backend", backend)
                .containsEntry("database", database)
                .containsEntry("chosenBy", "durablestore.backend=auto and " + chosenBecause);

        // events through the store's own JSON codec, the application's JSON beside it
        WorkflowId workflow = WorkflowId.random();
        Event started = new WorkflowStarted(
                new EventEnvelope(1, Instant.now(), workflow),
                "checkout",
                Payload.json("{\"total\":12.5}"),
                RunId.random(),
                null,
                new PackageVersion("v1"));
        StepVerifier.create(store.append(workflow, List.of(started), 0)).verifyComplete();
        StepVerifier.create(store.readHistory(workflow)).expectNext(started).verifyComplete();
        assertThat(get(http, "/heads/" + workflow))
                .containsEntry("workflowId", workflow.toString())
                .containsEntry("head", 1);

        // dispatch, observed and traced
        assertThat(store).isInstanceOf(ObservedStore.class);
        assertThat(app.getBean(ClaimLinksObservationHandler.class)).isNotNull();
        List<OutboxRow> rows = StarterFixtures.rows("greet", 5);
        StepVerifier.create(store.appendOutboxBatch(rows)).verifyComplete();
        for (OutboxRow row : rows) {
            StepVerifier.create(StarterFixtures.await(store, row.dispatchKey(), OutboxStatus.DONE))
                    .expectNextCount(1)
                    .verifyComplete();
        }
        InMemorySpanExporter spans = app.getBean(InMemorySpanExporter.class);
        List<String> spanNames = Mono.fromCallable(() -> spans.getFinishedSpanItems().stream()
                        .map(SpanData::getName)
                        .toList())
                // the dispatcher's claims (spans of the claim-link handler) and dispatches, exported by
                // Spring Boot's OpenTelemetry tracing
                .filter(names -> names.stream().anyMatch(RealApplicationTest::isClaimSpan)
                        && names.contains("dispatch default/default"))
                .repeatWhenEmpty(polls -> polls.delayElements(Duration.ofMillis(20)))
                .timeout(
                        TIMEOUT,
                        Mono.fromCallable(() -> spans.getFinishedSpanItems().stream()
                                .map(SpanData::getName)
                                .toList()))
                .block();
        assertThat(spanNames).anyMatch(RealApplicationTest::isClaimSpan).contains("dispatch default/default");

        // every meter of the store has a number, the queue depth also after a collection
        collectGarbage();
        List<String> names = ((List<?>) get(http, "/actuator/metrics").get("names"))
                .stream()
                        .map(Object::toString)
                        .filter(name -> name.startsWith("durable.store."))
                        .toList();
        assertThat(names).contains("durable.store.operation", "durable.store.writer.queue.depth");
        for (String name : names) {
            List<?> measurements =
                    (List<?>) get(http, "/actuator/metrics/" + name).get("measurements");
            assertThat(measurements).as(name).isNotEmpty();
            for (Object m : measurements) {
                Object value = ((Map<?, ?>) m).get("value");
                assertThat(value).as(name + " " + m).isInstanceOf(Number.class);
                assertThat(((Number) value).doubleValue()).as(name).isFinite();
            }
        }

        // the console, on the application's own server
        StepVerifier.create(http.get()
                        .uri("/durable-store/")
                        .exchangeToMono(r -> Mono.just(r.statusCode().value())))
                .expectNext(200)
                .verifyComplete();
        assertThat(get(http, "/durable-store/api/overview")).isNotEmpty();

        // a graceful shutdown closes the store after the dispatcher
        app.close();
        assertThatThrownBy(() -> store.readHead(workflow).block(TIMEOUT)).isInstanceOf(StoreClosedException.class);
    }

    /** A claim stream's claim: Micrometer Tracing 1.5 (Spring Boot 3.5) writes span names in lower-hyphen case. */
    private static boolean isClaimSpan(String name) {
        return name.equals("claimStream") || name.equals("claim-stream");
    }

    private static Map<String, Object> get(WebClient http, String path) {
        return http.get().uri(path).retrieve().bodyToMono(JSON).block(TIMEOUT);
    }

    /** Runs the collector until an object only weakly held is gone (what a weakly held gauge loses). */
    private static void collectGarbage() {
        WeakReference<Object> probe = new WeakReference<>(new Object());
        for (int i = 0; i < 50 && probe.get() != null; i++) {
            System.gc();
        }
        assertThat(probe.get()).as("the collector ran").isNull();
    }
}
