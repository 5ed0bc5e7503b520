package dev.durablestore.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * Shutdown of a WebFlux application with the console's live rates open in a page: the rates
 * stream ends when the context starts closing, so the web server's graceful shutdown does not wait
 * for it. The shutdown phase timeout is set far longer than the test waits.
 */
class ConsoleShutdownTest {

    private static final Duration LONG_PHASE = Duration.ofSeconds(60);
    private static final Duration WAIT = Duration.ofSeconds(15);

    @TempDir
    Path dir;

    /** A host application whose security lets anyone in. */
    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @Import(OpenSecurity.class)
    static class App {}

    @Test
    void an_open_rates_stream_ends_when_the_application_closes_and_does_not_hold_the_shutdown() {
        // given a running application with the console, and a page listening to its live rates
        ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.REACTIVE)
                .properties(
                        "server.port=0",
                        "durablestore.backend=sqlite",
                        "durablestore.sqlite.path=" + dir.resolve("console.db"),
                        "durablestore.console.enabled=true",
                        "durablestore.console.path=/ops/console",
                        "spring.lifecycle.timeout-per-shutdown-phase=" + LONG_PHASE.toSeconds() + "s")
                .run();
        String port = context.getEnvironment().getProperty("local.server.port");
        WebClient client = WebClient.create("http://localhost:" + port);
        Mono<Void> closing = Mono.<Void>fromRunnable(context::close)
                .subscribeOn(Schedulers.boundedElastic())
                .cache();

        StepVerifier.create(client.get()
                        .uri("/ops/console/api/rates")
                        .accept(MediaType.TEXT_EVENT_STREAM)
                        .retrieve()
                        .bodyToFlux(String.class))
                .expectNextCount(1)
                // when the application closes from another thread
                .then(() -> closing.subscribe())
                // then the stream completes (not cut off by the server), well before the phase timeout
                .thenConsumeWhile(event -> true)
                .expectComplete()
                .verify(WAIT);
        // and the close returns, long before the graceful shutdown would have given up on the stream
        StepVerifier.create(closing).expectComplete().verify(WAIT);
        assertThat(context.isActive()).isFalse();
    }
}
