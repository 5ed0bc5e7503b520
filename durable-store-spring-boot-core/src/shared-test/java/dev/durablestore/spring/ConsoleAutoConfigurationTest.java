package dev.durablestore.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.Payload;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.RetentionPolicy;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.console.ConsoleAuthorizer;
import dev.durablestore.console.DurableConsole;
import dev.durablestore.console.TrafficMeter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;

/** The starter mounts the console only when asked, read-only unless told otherwise, with the meter around the store. */
class ConsoleAutoConfigurationTest {

    @TempDir
    Path dir;

    private ReactiveWebApplicationContextRunner runner() {
        return new ReactiveWebApplicationContextRunner()
                .withConfiguration(LineFixtures.starter())
                .withPropertyValues("durablestore.sqlite.path=" + dir.resolve("store.db"));
    }

    @Test
    void notMountedByDefault() {
        runner().run(context ->
                assertThat(context).doesNotHaveBean("durableStoreConsole").doesNotHaveBean(TrafficMeter.class));
    }

    @Test
    void notMountedOutsideAReactiveWebApplication() {
        new ApplicationContextRunner()
                .withConfiguration(LineFixtures.starter())
                .withPropertyValues(
                        "durablestore.sqlite.path=" + dir.resolve("plain.db"), "durablestore.console.enabled=true")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean("durableStoreConsole"));
    }

    @Test
    void mountedReadOnlyAtItsPathWithTheMeterAroundTheStore() {
        runner().withPropertyValues(
                        "durablestore.console.enabled=true",
                        "durablestore.console.path=/ops/store",
                        "durablestore.reaper.lease=2m",
                        "durablestore.console.previews=false")
                .run(context -> {
                    assertThat(context).hasNotFailed().hasBean("durableStoreConsole");
                    ReactiveStore store = context.getBean(ReactiveStore.class);
                    TrafficMeter meter = context.getBean(TrafficMeter.class);
                    WorkflowId w = WorkflowId.random();
                    store.appendOutboxBatch(List.of(OutboxRow.pending(w, 0, "a", Payload.json("{}"), Instant.now())))
                            .block(Duration.ofSeconds(10));
                    assertThat(meter.staged()).isEqualTo(1);
                    WebTestClient client = client(context);
                    assertThat(json(client, "/ops/store/api/session"))
                            .containsEntry("readOnly", true)
                            .containsEntry("previews", false)
                            .containsEntry("lease", "PT2M");
                    client.post()
                            .uri("/ops/store/api/actions/redrive")
                            .bodyValue(Map.of("workflowId", w.toString()))
                            .exchange()
                            .expectStatus()
                            .isForbidden();
                });
    }

    @Test
    @SuppressWarnings("unchecked")
    void theConsoleShowsTheBacklogOfTheSweepersRetentionPolicy() {
        runner().withPropertyValues(
                        "durablestore.console.enabled=true",
                        "durablestore.retention.closed-for=7d",
                        "durablestore.retention.namespaces.billing=400d")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(DurableConsole.class).options().retention())
                            .isEqualTo(RetentionPolicy.closedFor(Duration.ofDays(7))
                                    .withNamespace("billing", Duration.ofDays(400)));
                    assertThat((Map<String, Object>) json(client(context), "/durable-store/api/overview")
                                    .get("retention"))
                            .containsEntry("on", true)
                            .containsEntry("overdue", 0);
                });
        runner().withPropertyValues("durablestore.console.enabled=true")
                .run(context -> assertThat(
                                context.getBean(DurableConsole.class).options().retention())
                        .as("retention off: no policy")
                        .isNull());
    }

    /** @return a client of the console the context mounted */
    @SuppressWarnings("unchecked")
    private static WebTestClient client(ApplicationContext context) {
        return WebTestClient.bindToRouterFunction(
                        (RouterFunction<ServerResponse>) context.getBean("durableStoreConsole"))
                .build();
    }

    /** @return the JSON object {@code uri} answers with 200 */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> json(WebTestClient client, String uri) {
        return client.get()
                .uri(uri)
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody(Map.class)
                .returnResult()
                .getResponseBody();
    }

    @Test
    void actionsWithoutAnAuthorizerStopTheStartUp() {
        runner().withPropertyValues("durablestore.console.enabled=true", "durablestore.console.read-only=false")
                .run(context -> assertThat(context)
                        .hasFailed()
                        .getFailure()
                        .hasStackTraceContaining("durablestore.console.read-only")
                        .hasStackTraceContaining("ConsoleAuthorizer"));
    }

    @Test
    void actionsWithTheApplicationsAuthorizer() {
        runner().withPropertyValues("durablestore.console.enabled=true", "durablestore.console.read-only=false")
                .withBean(ConsoleAuthorizer.class, () -> (action, request) -> Mono.just(true))
                .run(context -> assertThat(context).hasNotFailed().hasBean("durableStoreConsole"));
    }

    @Test
    void aBadPathStopsTheStartUp() {
        runner().withPropertyValues("durablestore.console.enabled=true", "durablestore.console.path=ops/")
                .run(context -> assertThat(context)
                        .hasFailed()
                        .getFailure()
                        .hasStackTraceContaining("durablestore.console.path"));
    }
}
