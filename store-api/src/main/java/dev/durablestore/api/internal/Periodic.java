package dev.durablestore.api.internal;

import dev.durablestore.api.StoreClosedException;
import java.time.Duration;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * The schedule the store's background jobs share ({@code OutboxLeaseReaper},
 * {@code RetentionSweeper}): one pass every interval, never two at once (a tick while a pass runs
 * is dropped), a failed pass handed to the job's callback and the next run as planned, and a stop
 * once the store is closed, reported once. Not API.
 */
public final class Periodic {

    private Periodic() {}

    /**
     * @param interval the time between passes
     * @param timer the scheduler that times them (a virtual-time scheduler in tests)
     * @param pass one pass, subscribed at each tick
     * @param onError the job's failure callback; if it throws, that is logged and the job goes on
     * @param log where a throwing callback is logged
     * @param job the job's name, for that log line
     * @return disposes the schedule
     */
    public static Disposable every(
            Duration interval,
            Scheduler timer,
            Supplier<? extends Mono<?>> pass,
            Consumer<Throwable> onError,
            Logger log,
            String job) {
        return Flux.interval(interval, interval, timer)
                .onBackpressureDrop()
                .concatMap(
                        tick -> pass.get().then().onErrorResume(e -> {
                            report(onError, e, log, job);
                            // a closed store stays closed: report it once and stop
                            return e instanceof StoreClosedException ? Mono.error(e) : Mono.empty();
                        }),
                        1)
                .onErrorComplete(StoreClosedException.class)
                .subscribe();
    }

    /** Hands a failure to the callback; a callback that throws must not end the job. */
    private static void report(Consumer<Throwable> onError, Throwable e, Logger log, String job) {
        try {
            onError.accept(e);
        } catch (RuntimeException callbackFailure) {
            callbackFailure.addSuppressed(e);
            log.warn("the {}'s onError callback threw", job, callbackFailure);
        }
    }
}
