package dev.durablestore.examples.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * The service with its demo traffic on ({@code example.traffic.enabled=true}, as
 * {@code run-webflux.sh} starts it), read through the operator console's API on a real server:
 * rows are staged and settled all the time, some end as dead letters, and the live rates show it.
 * The traffic is faster and fails more often than the script's, so the test is short.
 */
@AutoConfigureWebTestClient
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "example.traffic.enabled=true",
            "example.traffic.workflows-per-second=20",
            "example.traffic.declined-rate=0.3",
            "example.traffic.flaky-rate=0.1",
            "durablestore.dispatcher.max-attempts=2",
            "durablestore.dispatcher.initial-backoff=0s",
            "durablestore.console.count-ttl=0s"
        })
@DirtiesContext // stop the traffic with this class, not at the end of the test run
class TrafficTest {

    private static final String CONSOLE = "/ops/durable-store/api/";
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @TempDir
    static Path dir;

    @DynamicPropertySource
    static void storeOnATemporaryFile(DynamicPropertyRegistry registry) {
        registry.add(
                "durablestore.sqlite.path", () -> dir.resolve("traffic-test.db").toString());
    }

    @Autowired
    WebTestClient client;

    /** The console's overview totals, counted afresh. */
    record Totals(long pending, long claimed, long done, long failed, long cancelled) {
        long staged() {
            return pending + claimed + done + failed + cancelled;
        }

        long settled() {
            return done + failed + cancelled;
        }
    }

    @SuppressWarnings("unchecked")
    private Totals totals() {
        Map<String, Object> body = client.get()
                .uri(CONSOLE + "overview?fresh=true")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody(Map.class)
                .returnResult()
                .getResponseBody();
        Map<String, Number> t = (Map<String, Number>) body.get("totals");
        return new Totals(
                t.get("pending").longValue(),
                t.get("claimed").longValue(),
                t.get("done").longValue(),
                t.get("failed").longValue(),
                t.get("cancelled").longValue());
    }

    /** Reads the totals every 200 ms (on a thread that may block) until they pass the check. */
    private Mono<Totals> poll(java.util.function.Predicate<Totals> check) {
        return Mono.fromCallable(this::totals)
                .filter(check)
                .repeatWhenEmpty(polls -> polls.delayElements(Duration.ofMillis(200), Schedulers.boundedElastic()))
                .timeout(TIMEOUT);
    }

    @Test
    void the_console_shows_rows_staged_and_settled_and_dead_letters_while_the_traffic_runs() {
        // given the running service with its traffic; when the console's overview is read twice
        Totals first = totals();
        // then more rows are staged and settled each time, some of them as dead letters
        StepVerifier.create(poll(t ->
                        t.staged() >= first.staged() + 40 && t.settled() >= first.settled() + 40 && t.failed() > 0))
                .assertNext(later -> {
                    assertThat(later.staged()).isGreaterThan(first.staged());
                    assertThat(later.settled()).isGreaterThan(first.settled());
                    assertThat(later.done()).isGreaterThan(0);
                    assertThat(later.failed()).isGreaterThan(0);
                })
                .expectComplete()
                .verify(TIMEOUT);
        Totals last = totals();
        StepVerifier.create(poll(t -> t.staged() > last.staged() && t.settled() > last.settled()))
                .expectNextCount(1)
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void the_consoles_live_rates_show_the_traffic() {
        // given the running service with its traffic; when the console's rates are streamed
        var events = client.get()
                .uri(CONSOLE + "rates")
                .accept(MediaType.TEXT_EVENT_STREAM)
                .exchange()
                .expectStatus()
                .isOk()
                .returnResult(new ParameterizedTypeReference<ServerSentEvent<Map<String, Object>>>() {})
                .getResponseBody();
        // then a sample soon shows rows staged, claimed and settled every second
        StepVerifier.create(events.map(ServerSentEvent::data)
                        .filter(d -> rate(d, "staged") > 0 && rate(d, "claimed") > 0 && rate(d, "settled") > 0)
                        .next())
                .assertNext(d -> assertThat(d).containsEntry("available", true))
                .expectComplete()
                .verify(TIMEOUT);
    }

    private static double rate(Map<String, Object> sample, String name) {
        return ((Number) sample.get(name)).doubleValue();
    }
}
