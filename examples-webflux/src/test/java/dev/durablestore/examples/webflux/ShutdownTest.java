package dev.durablestore.examples.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * Shutdown with long-lived responses open: a {@code /dispatches} stream and the console's live
 * rates both end when the application starts closing, so the web server's graceful shutdown does
 * not wait for them. The shutdown phase timeout is set far longer than the test waits.
 */
class ShutdownTest {

    private static final Duration WAIT = Duration.ofSeconds(15);

    @TempDir
    Path dir;

    @Test
    void open_event_streams_end_when_the_application_closes_and_do_not_hold_the_shutdown() {
        // given the running service, a client on the dispatch stream of a queue with one row, and a
        // console page on the live rates
        // as arguments: they win over application.properties (default properties would not)
        ConfigurableApplicationContext context = new SpringApplicationBuilder(WebfluxExampleApplication.class)
                .run(
                        "--server.port=0",
                        "--durablestore.sqlite.path=" + dir.resolve("shutdown.db"),
                        "--spring.lifecycle.timeout-per-shutdown-phase=60s");
        WebClient client =
                WebClient.create("http://localhost:" + context.getEnvironment().getProperty("local.server.port"));
        String queue = "shutdown-" + System.nanoTime();
        StepVerifier.create(client.post()
                        .uri("/workflows")
                        .contentType(MediaType.APPLICATION_JSON)
                        .bodyValue(Map.of(
                                "type", "notify", "activities", List.of(Map.of("type", "email", "taskQueue", queue))))
                        .retrieve()
                        .toBodilessEntity())
                .assertNext(
                        response -> assertThat(response.getStatusCode().value()).isEqualTo(201))
                .expectComplete()
                .verify(WAIT);
        Mono<Void> closing = Mono.<Void>fromRunnable(context::close)
                .subscribeOn(Schedulers.boundedElastic())
                .cache();
        Flux<String> rates = client.get()
                .uri("/ops/durable-store/api/rates")
                .accept(MediaType.TEXT_EVENT_STREAM)
                .retrieve()
                .bodyToFlux(String.class)
                .cache();
        StepVerifier.create(rates.take(1)).expectNextCount(1).expectComplete().verify(WAIT);

        StepVerifier.create(client.get()
                        .uri("/dispatches?taskQueue={q}", queue)
                        .accept(MediaType.TEXT_EVENT_STREAM)
                        .retrieve()
                        .bodyToFlux(String.class))
                .expectNextCount(1)
                // when the application closes from another thread
                .then(() -> closing.subscribe())
                // then the dispatch stream completes (not cut off by the server)
                .expectComplete()
                .verify(WAIT);
        // and so does the rates stream
        StepVerifier.create(rates.then()).expectComplete().verify(WAIT);
        // and the close returns, long before the graceful shutdown would have given up on the streams
        StepVerifier.create(closing).expectComplete().verify(WAIT);
        assertThat(context.isActive()).isFalse();
    }
}
