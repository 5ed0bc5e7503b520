package dev.durablestore.r2dbc.fault;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/** How the fault tests wait for what they observe: a condition polled every 20 ms, bounded. */
final class Await {

    /** The longest wait before the test fails naming what it waited for. */
    static final Duration BOUND = Duration.ofSeconds(30);

    private Await() {}

    /**
     * Polls {@code condition} until it holds, on a thread where it may block (conditions read the
     * tables or call the store).
     *
     * @param what what the test waits for, for the failure message
     * @param condition the condition
     * @throws AssertionError when it does not hold within {@link #BOUND}
     */
    static void until(String what, BooleanSupplier condition) {
        Mono.fromCallable(condition::getAsBoolean)
                .subscribeOn(Schedulers.boundedElastic())
                .filter(Boolean::booleanValue)
                .repeatWhenEmpty(r -> r.delayElements(Duration.ofMillis(20)))
                .timeout(
                        BOUND,
                        Mono.error(() -> new AssertionError("timed out after " + BOUND + " waiting until " + what)))
                .block();
    }
}
