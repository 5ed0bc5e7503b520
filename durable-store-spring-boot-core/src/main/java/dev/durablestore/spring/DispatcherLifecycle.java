package dev.durablestore.spring;

import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.FailureReason;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.Settlement;
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
import reactor.core.scheduler.Schedulers;

/**
 * Runs the application's {@link OutboxDispatchHandler} over a claim stream while the context runs.
 *
 * <p>Each claimed row's handler is subscribed on Reactor's parallel scheduler (never on the store's
 * own threads). When the handler completes, the row is completed; when it fails, the row is retried
 * with backoff, or dead-lettered once the attempts are used up, and the handler's exception is
 * recorded with the row as the reason ({@link FailureReason#of(Throwable)}: type, message, trimmed
 * stack trace; O66), in the settle's transaction. Only the handler's failure does that: a settle
 * that fails (a timeout, a lost connection) leaves the row claimed, for the lease reaper, so work
 * that succeeded is never retried because its settle did not land.
 *
 * <p>Attempts are numbered from 1 (O67), as the row's failures number them: the row's first
 * dispatch is attempt 1, and {@code durablestore.dispatcher.max-attempts} counts dispatches. A
 * retry is logged at INFO in one line without the stack trace (the trace is kept with the row, for
 * the console); a dead-letter is logged at WARN with it.
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

    /** The longest the release of stuck rows may take after the drain timeout. */
    static final Duration RELEASE_TIMEOUT = Duration.ofSeconds(5);

    private static final Logger log = LoggerFactory.getLogger(DispatcherLifecycle.class);

    private final ReactiveStore store;
    private final OutboxDispatchHandler handler;
    private final DurableStoreProperties.Dispatcher settings;
    private final ClaimStreamOptions options;
    private final Clock clock;
    private final DispatchObserver observer;

    /** The running dispatch, or {@code null}; replaced only under {@code this}'s lock. */
    private Run current;

    DispatcherLifecycle(
            ReactiveStore store,
            OutboxDispatchHandler handler,
            DurableStoreProperties.Dispatcher settings,
            ClaimStreamOptions options,
            Clock clock,
            DispatchObserver observer) {
        this.store = store;
        this.handler = handler;
        this.settings = settings;
        this.options = options;
        this.clock = clock;
        this.observer = observer;
    }

    /** The state of one start-to-stop run: a restart never shares it with the run before. */
    private final class Run {
        final Sinks.Empty<Void> stop = Sinks.empty();
        final Sinks.Empty<Void> drained = Sinks.empty();
        final Set<OutboxRow> inFlight = ConcurrentHashMap.newKeySet();
        Disposable subscription;

        void start(ClaimStreamOptions options) {
            subscription = store.claimStream(options)
                    .takeUntilOther(stop.asMono())
                    .flatMap(this::dispatch, settings.getConcurrency(), 1)
                    .doFinally(signal -> drained.tryEmitEmpty())
                    .subscribe(null, e -> log.error("the dispatcher's claim stream failed; dispatching stopped", e));
        }

        private Mono<Void> dispatch(OutboxRow row) {
            inFlight.add(row);
            // the handler's own failure, once settled (retried or dead-lettered), is reported to the
            // observer as the dispatch's error and then dropped here
            Throwable[] settledFailure = new Throwable[1];
            Mono<Void> work = Mono.defer(() -> handler.handle(row))
                    .subscribeOn(Schedulers.parallel())
                    .materialize()
                    .flatMap(signal -> {
                        if (!signal.isOnError()) {
                            return store.complete(row);
                        }
                        settledFailure[0] = signal.getThrowable();
                        return settleFailure(row, signal.getThrowable()).then(Mono.error(signal.getThrowable()));
                    })
                    .onErrorResume(StaleClaimException.class, e -> {
                        // a step of the handler settled it, or the reaper re-armed it: not an error
                        log.debug("row {} was settled or re-armed meanwhile; left as it is", row.dispatchKey());
                        return Mono.empty();
                    });
            return observer.observe(row, work)
                    .onErrorResume(e -> {
                        if (e != settledFailure[0]) {
                            log.warn(
                                    "settling row {} failed; it stays claimed until the lease reaper re-arms it",
                                    row.dispatchKey(),
                                    e);
                        }
                        return Mono.empty();
                    })
                    .doFinally(signal -> inFlight.remove(row));
        }

        /** Stops claiming, waits for the handlers, releases what is still running after the timeout. */
        Mono<Void> stopAndDrain() {
            stop.tryEmitEmpty();
            return drained.asMono().timeout(settings.getDrainTimeout(), Mono.defer(() -> {
                // copied first: cancelling the handlers removes their rows from inFlight
                Set<OutboxRow> stuck = Set.copyOf(inFlight);
                subscription.dispose();
                return release(stuck);
            }));
        }
    }

    @Override
    public void start() {
        synchronized (this) {
            if (current != null) {
                return;
            }
            Run run = new Run();
            run.start(options);
            current = run;
        }
        log.info(
                "dispatching outbox rows of {} with concurrency {}",
                settings.getNamespace() == null
                        ? "every route"
                        : settings.getNamespace() + "/" + settings.getTaskQueue(),
                settings.getConcurrency());
    }

    /**
     * Retries the row, or dead-letters it once its attempts are used up, with the handler's error as
     * the reason.
     *
     * @param row the row as its claim returned it: on attempt {@code row.attempt() + 1}, numbered
     *     from 1 like its failures (O67)
     * @param error what the handler signalled
     */
    private Mono<Void> settleFailure(OutboxRow row, Throwable error) {
        int attempt = row.attempt() + 1;
        FailureReason reason = FailureReason.of(error);
        if (attempt >= settings.getMaxAttempts()) {
            log.warn(
                    "row {} failed on attempt {} of {}; dead-lettered",
                    row.dispatchKey(),
                    attempt,
                    settings.getMaxAttempts(),
                    error);
            return store.settle(row, Settlement.fail().withReason(reason));
        }
        Duration delay = backoff(row.attempt());
        log.info(
                "row {} failed on attempt {} of {}; retried in {}: {}",
                row.dispatchKey(),
                attempt,
                settings.getMaxAttempts(),
                delay,
                error.toString());
        return store.settle(
                row, Settlement.retryAt(attempt, clock.instant().plus(delay)).withReason(reason));
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
        takeRun().block(settings.getDrainTimeout().plus(RELEASE_TIMEOUT).plusSeconds(1));
    }

    @Override
    public void stop(Runnable callback) {
        takeRun()
                .doFinally(signal -> callback.run())
                .subscribe(null, e -> log.warn("stopping the dispatcher failed", e));
    }

    private Mono<Void> takeRun() {
        Run run;
        synchronized (this) {
            run = current;
            current = null;
        }
        return run == null ? Mono.empty() : run.stopAndDrain();
    }

    private Mono<Void> release(Set<OutboxRow> stuck) {
        Instant now = clock.instant();
        log.warn(
                "{} rows still in their handlers after the drain timeout; released for another dispatcher",
                stuck.size());
        return Flux.fromIterable(stuck)
                .flatMap(row -> store.settle(row, Settlement.retryAt(row.attempt(), now))
                        .onErrorResume(e -> {
                            log.warn(
                                    "row {} not released ({}); it stays claimed until the lease reaper re-arms it",
                                    row.dispatchKey(),
                                    e.toString());
                            return Mono.empty();
                        }))
                .then()
                .timeout(
                        RELEASE_TIMEOUT,
                        Mono.fromRunnable(() -> log.warn(
                                "releasing stuck rows took longer than {}; the rest stay claimed until the lease reaper "
                                        + "re-arms them",
                                RELEASE_TIMEOUT)));
    }

    @Override
    public synchronized boolean isRunning() {
        return current != null;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
