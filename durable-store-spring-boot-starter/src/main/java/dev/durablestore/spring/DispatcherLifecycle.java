package dev.durablestore.spring;

import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.StaleClaimException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Runs the application's {@link OutboxDispatchHandler} over a claim stream while the context runs.
 *
 * <p>On shutdown (phase {@link #PHASE}, after the web server has drained and before the store and
 * its connection pool close) it stops claiming: the claim stream is cancelled, which releases rows
 * it had claimed but not yet handed out; handlers in flight get
 * {@code durablestore.dispatcher.drain-timeout} to finish and settle, and the rows of those still
 * running then are released (returned to pending with their attempt unchanged, fenced by their
 * claim) so that another node takes them at once instead of after the lease.
 */
final class DispatcherLifecycle implements SmartLifecycle {

    /** Stops after the web server (graceful shutdown {@code DEFAULT_PHASE - 1024}, stop {@code - 2048}). */
    static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

    private static final Logger log = LoggerFactory.getLogger(DispatcherLifecycle.class);

    private final ReactiveStore store;
    private final OutboxDispatchHandler handler;
    private final DurableStoreProperties.Dispatcher settings;
    private final Clock clock;
    private final DispatchObserver observer;
    private final Set<OutboxRow> inFlight = ConcurrentHashMap.newKeySet();

    private volatile Sinks.Empty<Void> stopSignal;
    private volatile Sinks.Empty<Void> drained;
    private volatile Disposable subscription;

    DispatcherLifecycle(ReactiveStore store, OutboxDispatchHandler handler, DurableStoreProperties.Dispatcher settings,
            Clock clock, DispatchObserver observer) {
        this.store = store;
        this.handler = handler;
        this.settings = settings;
        this.clock = clock;
        this.observer = observer;
    }

    @Override
    public synchronized void start() {
        if (isRunning()) {
            return;
        }
        ClaimStreamOptions options = ClaimStreamOptions.defaults()
                .maxBatch(settings.getMaxBatch())
                .pollInterval(settings.getPollInterval());
        if (settings.getNamespace() != null) {
            options = options.scope(ClaimScope.of(settings.getNamespace(), settings.getTaskQueue()));
        }
        Sinks.Empty<Void> stop = Sinks.empty();
        Sinks.Empty<Void> done = Sinks.empty();
        stopSignal = stop;
        drained = done;
        subscription = store.claimStream(options)
                .takeUntilOther(stop.asMono())
                .flatMap(this::dispatch, settings.getConcurrency(), 1)
                .doFinally(signal -> done.tryEmitEmpty())
                .subscribe(null, e -> log.error("the dispatcher's claim stream failed; dispatching stopped", e));
        log.info("dispatching outbox rows of {} with concurrency {}",
                settings.getNamespace() == null ? "every route" : settings.getNamespace() + "/" + settings.getTaskQueue(),
                settings.getConcurrency());
    }

    private Mono<Void> dispatch(OutboxRow row) {
        inFlight.add(row);
        Mono<Void> work = Mono.defer(() -> handler.handle(row))
                .then(Mono.defer(() -> store.complete(row)))
                .onErrorResume(e -> !(e instanceof StaleClaimException), e -> settleFailure(row, e));
        return observer.observe(row, work)
                .onErrorResume(StaleClaimException.class, e -> {
                    log.debug("row {} was settled or re-armed meanwhile; left as it is", row.dispatchKey());
                    return Mono.empty();
                })
                .onErrorResume(e -> {
                    log.warn("settling row {} failed; the lease reaper will re-arm it", row.dispatchKey(), e);
                    return Mono.empty();
                })
                .doFinally(signal -> inFlight.remove(row));
    }

    private Mono<Void> settleFailure(OutboxRow row, Throwable error) {
        int attempts = row.attempt() + 1;
        if (attempts >= settings.getMaxAttempts()) {
            log.warn("row {} failed on attempt {} of {}; dead-lettered", row.dispatchKey(), attempts,
                    settings.getMaxAttempts(), error);
            return store.fail(row);
        }
        log.info("row {} failed on attempt {} of {}; retried", row.dispatchKey(), attempts, settings.getMaxAttempts(),
                error);
        return store.retry(row, attempts, clock.instant().plus(backoff(row.attempt())));
    }

    /**
     * @param attempt the zero-based attempt that failed
     * @return the initial backoff doubled per earlier attempt, at most the maximum backoff
     */
    Duration backoff(int attempt) {
        Duration max = settings.getMaxBackoff();
        Duration delay = settings.getInitialBackoff();
        for (int i = 0; i < attempt && delay.compareTo(max) < 0; i++) {
            delay = delay.multipliedBy(2);
        }
        return delay.compareTo(max) > 0 ? max : delay;
    }

    @Override
    public void stop() {
        stopAndDrain().block(settings.getDrainTimeout().plusSeconds(5));
    }

    @Override
    public void stop(Runnable callback) {
        stopAndDrain().doFinally(signal -> callback.run()).subscribe(null,
                e -> log.warn("stopping the dispatcher failed", e));
    }

    private synchronized Mono<Void> stopAndDrain() {
        Sinks.Empty<Void> stop = stopSignal;
        Sinks.Empty<Void> done = drained;
        Disposable running = subscription;
        if (stop == null) {
            return Mono.empty();
        }
        stopSignal = null;
        stop.tryEmitEmpty();
        return done.asMono()
                .timeout(settings.getDrainTimeout(), Mono.defer(() -> {
                    // copied first: cancelling the handlers removes their rows from inFlight
                    Set<OutboxRow> stuck = Set.copyOf(inFlight);
                    running.dispose();
                    return release(stuck);
                }))
                .doFinally(signal -> subscription = null);
    }

    private Mono<Void> release(Set<OutboxRow> stuck) {
        Instant now = clock.instant();
        log.warn("{} rows still in their handlers after the drain timeout; released for another dispatcher",
                stuck.size());
        return Flux.fromIterable(stuck)
                .flatMap(row -> store.retry(row, row.attempt(), now)
                        .onErrorResume(e -> {
                            log.debug("row {} not released: {}", row.dispatchKey(), e.toString());
                            return Mono.empty();
                        }))
                .then();
    }

    @Override
    public boolean isRunning() {
        return stopSignal != null;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
