package dev.durablestore.examples.webflux;

import dev.durablestore.api.OutboxRow;
import dev.durablestore.spring.OutboxDispatchHandler;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import reactor.core.publisher.Mono;

/**
 * The demo traffic's activities, run by the starter's dispatcher for every route: each takes a few
 * milliseconds; an attempt fails at {@code example.traffic.flaky-rate} (the dispatcher retries it
 * with backoff), and a {@code charge-card} whose card is {@link #DECLINED} fails every attempt, so
 * it ends as a dead letter for the console's redrive. Rows posted to {@code /workflows} by hand are
 * worked the same way while the traffic is on.
 */
final class TrafficWorker implements OutboxDispatchHandler {

    /** The card of a charge that always fails. */
    static final String DECLINED = "declined";

    private final ExampleProperties.Traffic traffic;

    TrafficWorker(ExampleProperties.Traffic traffic) {
        this.traffic = traffic;
    }

    @Override
    public Mono<Void> handle(OutboxRow row) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        Duration work = Duration.ofMillis(2 + random.nextInt(30));
        if (row.activityType().equals("charge-card") && row.input().asString().contains("\"" + DECLINED + "\"")) {
            return Mono.delay(work).then(Mono.error(new DemoFailure("card declined")));
        }
        if (random.nextDouble() < traffic.flakyRate()) {
            return Mono.delay(work).then(Mono.error(new DemoFailure("flaky attempt")));
        }
        return Mono.delay(work).then();
    }

    /** A made-up failure: no stack trace, so the dispatcher's log of it stays one line and a message. */
    static final class DemoFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        DemoFailure(String message) {
            super(message + " (demo traffic)", null, false, false);
        }
    }
}
