package dev.durablestore.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.http.codec.ServerSentEvent;
import reactor.core.Disposable;
import reactor.test.StepVerifier;

/** The shared sampler behind {@code GET api/rates}: rates from the meter, a replayed window, Last-Event-ID. */
class RateStreamTest {

    private static final Duration PERIOD = Duration.ofMillis(100);
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    private static Map<String, Object> data(ServerSentEvent<Map<String, Object>> e) {
        return e.data();
    }

    @Test
    void samples_are_rows_per_second_with_ids_of_their_stream() {
        // given a meter with traffic
        TrafficMeter meter = new TrafficMeter();
        RateStream rates = new RateStream(meter, Clock.systemUTC(), PERIOD);
        // when a client listens while rows are staged
        StepVerifier.create(
                        rates.events(null).doOnSubscribe(s -> meter.staged(100)).take(3))
                // then every event names its stream and sequence, the window and the period
                .assertNext(e -> {
                    assertThat(e.event()).isEqualTo("rates");
                    assertThat(e.id()).isEqualTo(data(e).get("stream") + "-1");
                    assertThat(data(e))
                            .containsEntry("seq", 1L)
                            .containsEntry("window", RateStream.WINDOW)
                            .containsEntry("periodMillis", PERIOD.toMillis())
                            .containsEntry("available", true)
                            .containsKeys("staged", "claimed", "settled", "at");
                })
                .assertNext(e -> assertThat(data(e)).containsEntry("seq", 2L))
                .assertNext(e -> assertThat(data(e)).containsEntry("seq", 3L).containsEntry("stagedTotal", 100L))
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void a_new_client_first_gets_the_recent_window_and_a_reconnecting_one_only_what_it_missed() {
        // given one client that has seen a few samples and stays connected
        TrafficMeter meter = new TrafficMeter();
        RateStream rates = new RateStream(meter, Clock.systemUTC(), PERIOD);
        List<ServerSentEvent<Map<String, Object>>> first =
                rates.events(null).take(5).collectList().block(TIMEOUT);
        Disposable listening = rates.events(null).subscribe();
        try {
            String stream = (String) data(first.get(0)).get("stream");
            // when a second client connects, then it starts with the replayed samples, from seq 1
            StepVerifier.create(rates.events(null).take(1))
                    .assertNext(e -> assertThat(data(e)).containsEntry("seq", 1L))
                    .expectComplete()
                    .verify(TIMEOUT);
            // when a client reconnects with the id of the 4th sample, then the 5th comes first
            StepVerifier.create(rates.events(stream + "-4").take(1))
                    .assertNext(e -> assertThat(data(e)).containsEntry("seq", 5L))
                    .expectComplete()
                    .verify(TIMEOUT);
            // and an id of another stream (a restarted server) or a malformed one gets the whole window
            StepVerifier.create(rates.events("deadbeef-4").take(1))
                    .assertNext(e -> assertThat(data(e)).containsEntry("seq", 1L))
                    .expectComplete()
                    .verify(TIMEOUT);
            StepVerifier.create(rates.events(stream + "-x").take(1))
                    .assertNext(e -> assertThat(data(e)).containsEntry("seq", 1L))
                    .expectComplete()
                    .verify(TIMEOUT);
        } finally {
            listening.dispose();
        }
    }

    @Test
    void close_completes_open_streams_and_any_opened_later() {
        // given a client that is receiving samples
        RateStream rates = new RateStream(new TrafficMeter(), Clock.systemUTC(), PERIOD);
        StepVerifier.create(rates.events(null))
                .expectNextCount(1)
                // when the console closes (the application shuts down), then its stream completes
                .then(rates::close)
                .expectComplete()
                .verify(TIMEOUT);
        // and a client that connects afterwards gets a stream that completes at once
        StepVerifier.create(rates.events(null)).expectComplete().verify(TIMEOUT);
    }
}
