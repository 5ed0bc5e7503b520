package dev.durablestore.core.internal;

import com.google.errorprone.annotations.CanIgnoreReturnValue;
import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.DispatchPolicy;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.StoreClosedException;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.core.storage.ClaimBatch;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.publisher.SynchronousSink;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.util.context.ContextView;

/**
 * The backpressured claim stream (O52): claims only against outstanding demand, at most
 * {@code maxBatch} rows per claim, one claim in flight at a time. When a claim comes back short it
 * waits for the earliest of a wake-up, the next known {@code visible_after}, or the poll interval.
 *
 * <p>A row claimed for the stream belongs to the subscriber once it has been handed to its
 * {@code onNext}; until then it belongs to the stream. When the stream ends (cancelled, failed, or
 * ended by the store's close) the rows it still holds are released: pending again, same attempt,
 * visible at once. Each row is either delivered or released, never both: the hand-over and the
 * release each take the row out of one map, and only the one that took it acts.
 */
public final class ClaimStreams {

    private static final Logger log = LoggerFactory.getLogger(ClaimStreams.class);

    private ClaimStreams() {}

    /** Where the stream's claims go. */
    public interface Source {
        /**
         * @param scope the route, or {@code null}
         * @param limit the most rows, to read once when the claim runs (not when it is submitted):
         *     the subscriber's demand may grow while the claim waits for its turn, and a claim
         *     sized when it runs carries more rows per transaction; the value never shrinks. A
         *     source that answers without running a claim (nothing can match) need not read it
         * @param held held workflows
         * @param policy the stream's dispatch policy (checked already)
         * @return the claim's rows (corrupt rows reported, not thrown) and the next known due time
         */
        Mono<ClaimBatch> claimForStream(
                ClaimScope scope, IntSupplier limit, Set<WorkflowId> held, DispatchPolicy policy);

        /**
         * @param claimed rows a cancelled stream could not deliver
         * @return completes when they are pending again
         */
        Mono<Void> release(List<OutboxRow> claimed);
    }

    /**
     * Wraps each claim a claim stream sends, for instrumentation. A store decorator installs one
     * on the streams it hands out with {@link #observedBy}; each claim of such a stream then runs
     * through it, in the stream's subscriber context (so an observation it starts has the
     * subscriber's current observation as its parent).
     */
    @FunctionalInterface
    public interface ClaimObserver {
        /**
         * @param scope the stream's route, or {@code null}
         * @param claim one claim of the stream, not yet subscribed
         * @return the claim as the stream should run it: the same signals, observed
         */
        Mono<ClaimBatch> observe(ClaimScope scope, Mono<ClaimBatch> claim);
    }

    /**
     * @param stream a claim stream made by {@link #create}
     * @param observer what each of its claims runs through
     * @return the stream, its claims observed (a stream made elsewhere is returned unchanged in
     *     behaviour: it never reads the observer)
     */
    public static Flux<OutboxRow> observedBy(Flux<OutboxRow> stream, ClaimObserver observer) {
        Objects.requireNonNull(observer, "observer");
        return stream.contextWrite(context -> context.put(ClaimObserver.class, observer));
    }

    /**
     * @param outbox where claims go
     * @param wakeups signalled by the backend after commits that may have made rows claimable
     * @param clock the store's clock
     * @param options the stream's options
     * @return the stream: claims only against outstanding demand
     */
    public static Flux<OutboxRow> create(Source outbox, Wakeups wakeups, Clock clock, ClaimStreamOptions options) {
        return create(outbox, wakeups, clock, options, Schedulers.parallel());
    }

    /**
     * @param outbox where claims go
     * @param wakeups signalled by the backend after commits that may have made rows claimable
     * @param clock the store's clock
     * @param options the stream's options
     * @param timers times the stream's sleeps (the poll interval, the next due time, the retry
     *     after a failed claim): Reactor's parallel scheduler in a store, a virtual-time scheduler
     *     in tests
     * @return the stream: claims only against outstanding demand
     */
    public static Flux<OutboxRow> create(
            Source outbox, Wakeups wakeups, Clock clock, ClaimStreamOptions options, Scheduler timers) {
        return Flux.defer(() -> {
            Claims.policy(options.scope(), options.policy());
            Loop loop = new Loop(outbox, wakeups, clock, options, timers);
            return Flux.<OutboxRow>create(loop::start).handle(loop::handOver);
        });
    }

    /** The state machine of one subscription; {@link #drain()} serializes its transitions. */
    private static final class Loop implements Wakeups.Stream {
        private final Source outbox;
        private final Clock clock;
        private final ClaimStreamOptions options;
        private final Scheduler timers;
        private FluxSink<OutboxRow> sink;
        /** What each claim runs through, from the subscriber's context, or {@code null}. */
        private ClaimObserver observer;

        private final Wakeups wakeups;
        /** Rows claimed for the stream and not yet handed to the subscriber, by dispatch key. */
        private final Map<String, OutboxRow> undelivered = new ConcurrentHashMap<>();
        /** Releases submitted and not yet finished. */
        private final AtomicInteger releasing = new AtomicInteger();
        /** Completes once the stream has ended, no claim is in flight and every release finished. */
        private final Sinks.Empty<Void> settled = Sinks.empty();

        private final AtomicLong demand = new AtomicLong();
        private final AtomicLong wakeCount = new AtomicLong();
        private final AtomicInteger wip = new AtomicInteger();
        private volatile boolean claiming;
        private volatile boolean sleeping;
        private volatile boolean done;
        private volatile Disposable timer;
        /** The limit the claim in flight ran with (set when it is submitted, again when the backend runs it). */
        private volatile int claimLimit;

        private volatile Runnable unregister;

        Loop(Source outbox, Wakeups wakeups, Clock clock, ClaimStreamOptions options, Scheduler timers) {
            this.outbox = outbox;
            this.wakeups = wakeups;
            this.clock = clock;
            this.options = options;
            this.timers = timers;
        }

        /**
         * Registers the stream with the store before taking the subscriber's demand, because the
         * demand starts the first claim: a store's close waits only for the streams it finds
         * registered, and then stops admitting operations, so a claim sent by a stream not yet
         * registered could commit its rows as claimed after the close had stopped waiting, and its
         * release would be refused, leaving them to the lease reaper (X9). Registered first, the
         * stream is either found by the close (which then waits for its claim and release) or is
         * ended here by a close already under way, before it has claimed anything. For the same
         * reason the stream stays registered after it ends until it has settled (see
         * {@link #checkSettled}).
         */
        void start(FluxSink<OutboxRow> sink) {
            this.sink = sink;
            this.observer = sink.contextView().getOrDefault(ClaimObserver.class, null);
            sink.onDispose(this::stop);
            unregister = wakeups.register(this); // a store already closing ends the stream here
            checkSettled(); // ended before it was registered: checkSettled() found nothing to unregister
            sink.onRequest(n -> {
                addDemand(n);
                drain(); // claims nothing once ended: drain() checks done
            });
        }

        private void addDemand(long n) {
            demand.getAndUpdate(d -> d + n < 0 ? Long.MAX_VALUE : d + n);
        }

        /** Passes a row on unless the stream released it meanwhile (it ended while the row was on its way). */
        void handOver(OutboxRow row, SynchronousSink<OutboxRow> next) {
            if (undelivered.remove(row.dispatchKey()) != null) {
                next.next(row);
            }
        }

        @Override
        public Mono<Void> close(StoreClosedException error) {
            fail(error);
            return settled.asMono();
        }

        @Override
        public boolean wakesOnSettle() {
            return options.policy().constrained();
        }

        @Override
        public void wake() {
            wakeCount.incrementAndGet();
            if (sleeping) {
                sleeping = false;
                cancelTimer();
                drain();
            }
        }

        /**
         * Runs once the sink is cancelled or terminated: from then on every claimed row is released.
         * The stream stays registered until it has settled ({@link #checkSettled}).
         */
        private void stop() {
            done = true;
            cancelTimer();
            releaseUndelivered();
            checkSettled();
        }

        /** Releases every row still held, grouped by the claim that took it (one claimed_at each). */
        private void releaseUndelivered() {
            Map<Instant, List<OutboxRow>> byClaim = new HashMap<>();
            for (String key : undelivered.keySet()) {
                OutboxRow row = undelivered.remove(key);
                if (row != null) {
                    byClaim.computeIfAbsent(row.claimedAt(), k -> new ArrayList<>())
                            .add(row);
                }
            }
            for (List<OutboxRow> rows : byClaim.values()) {
                releasing.incrementAndGet();
                outbox.release(rows)
                        .doFinally(s -> {
                            releasing.decrementAndGet();
                            checkSettled();
                        })
                        .subscribe(
                                null,
                                e -> log.warn(
                                        "could not release {} rows of an ended claim stream; "
                                                + "the lease reaper will re-arm them",
                                        rows.size(),
                                        e));
            }
        }

        /**
         * Once the stream has ended, no claim is in flight and every release finished: completes
         * {@link #settled} and only then unregisters the stream. Unregistering when the stream
         * ended would hide a cancelled stream whose claim is still in flight from a close that
         * begins meanwhile: the close would not wait for it and would stop admitting operations,
         * and the release of the claim's rows, coming after, would be refused (X9).
         */
        private void checkSettled() {
            if (done && !claiming && releasing.get() == 0) {
                settled.tryEmitEmpty();
                Runnable u = unregister;
                if (u != null) {
                    u.run(); // idempotent
                }
            }
        }

        private void drain() {
            if (wip.getAndIncrement() != 0) {
                return;
            }
            do {
                if (!done && !claiming && !sleeping && demand.get() > 0) {
                    claiming = true;
                    startClaim();
                }
            } while (wip.decrementAndGet() != 0);
        }

        /**
         * Starts the claim on the timer scheduler rather than on the thread that returned demand:
         * demand often comes back one row at a time in a burst (a group of settles completing its
         * callers one after another, each freeing a slot of the subscriber's {@code flatMap}), and
         * the hop lets the rest of the burst arrive before the claim reads its limit, so a claim
         * carries the burst instead of its first row. No timer: the task runs as soon as a thread
         * takes it (microseconds).
         */
        private void startClaim() {
            try {
                timers.schedule(this::claimNext);
            } catch (RuntimeException rejected) {
                fail(rejected); // a scheduler that refuses work cannot time this stream either
                claimEnded();
            }
        }

        private void claimNext() {
            if (done) {
                claimEnded(); // ended while the claim waited for its thread
                return;
            }
            long wakesBefore = wakeCount.get();
            Set<WorkflowId> held;
            try {
                held = heldWorkflows();
            } catch (RuntimeException e) {
                fail(e);
                claimEnded();
                return;
            }
            // Only this loop emits rows, and it does not while a claim is in flight: demand can only
            // grow between here and the moment the claim runs, so the limit read then is safe (O52).
            // The limit as of now, raised if the backend reads it later: a backend that answers
            // without reading it (nothing can match) still leaves the loop a limit to compare with.
            readClaimLimit();
            claim(held).subscribe(result -> onClaimed(result, claimLimit, wakesBefore), this::onClaimError);
        }

        /** @return the next claim, through the observer (in the subscriber's context) when there is one */
        private Mono<ClaimBatch> claim(Set<WorkflowId> held) {
            Mono<ClaimBatch> claim =
                    outbox.claimForStream(options.scope(), this::readClaimLimit, held, options.policy());
            if (observer == null) {
                return claim;
            }
            ContextView subscriber = sink.contextView();
            return Mono.defer(() -> observer.observe(options.scope(), claim)).contextWrite(subscriber);
        }

        /** @return the claim's limit now (what demand allows, at most a batch), remembered for the claim's result */
        @CanIgnoreReturnValue // also called to remember the limit as of now
        private int readClaimLimit() {
            claimLimit = (int) Math.min(demand.get(), options.maxBatch());
            return claimLimit;
        }

        /** The user's held workflows, checked: a null set or member would claim nothing forever. */
        private Set<WorkflowId> heldWorkflows() {
            Set<WorkflowId> held = options.heldWorkflows().get();
            if (held == null) {
                throw new InvalidArgumentException("options.heldWorkflows", "the supplier returned null");
            }
            for (WorkflowId w : held) {
                if (w == null) {
                    throw new InvalidArgumentException(
                            "options.heldWorkflows", "the supplier returned a set holding null");
                }
            }
            return held;
        }

        private void onClaimed(ClaimBatch result, int limit, long wakesBefore) {
            List<OutboxRow> rows = result.rows();
            for (OutboxRow row : rows) {
                undelivered.put(row.dispatchKey(), row);
            }
            for (OutboxRow row : rows) {
                if (done) {
                    break; // ended before or while emitting: the rows not handed over are released below
                }
                demand.decrementAndGet();
                sink.next(row);
            }
            if (done) {
                // stop() may have run before these rows were put, or the sink dropped some after a
                // concurrent cancel: release what is still held (each row once, whoever takes it)
                releaseUndelivered();
            } else if (result.corrupt() != null) {
                log.warn("claim stream skipped undecodable outbox rows (dead-lettered)", result.corrupt());
            } else if (rows.size() < limit) {
                // Nothing more is due: sleep, unless a wake-up arrived since this claim began.
                // Publishing 'sleeping' before re-reading the wake count means a concurrent wake
                // either is seen here or sees 'sleeping' and ends the sleep.
                sleeping = true;
                if (wakeCount.get() != wakesBefore) {
                    sleeping = false;
                } else {
                    scheduleWake(waitFor(result.nextVisibleAfterNanos()));
                }
            }
            claimEnded();
        }

        private void onClaimError(Throwable e) {
            if (e instanceof StoreClosedException || done) {
                fail(e);
            } else {
                log.warn("claim stream claim failed; retrying after {}", options.pollInterval(), e);
                sleeping = true;
                scheduleWake(options.pollInterval());
            }
            claimEnded();
        }

        /** The claim in flight has returned: the stream may claim again, or, once ended, settle. */
        private void claimEnded() {
            claiming = false;
            checkSettled();
            drain();
        }

        private Duration waitFor(Long nextVisibleAfterNanos) {
            Duration poll = options.pollInterval();
            if (nextVisibleAfterNanos == null) {
                return poll;
            }
            long untilDue = nextVisibleAfterNanos - EpochNanos.of(clock.instant(), "clock.instant()");
            return untilDue < poll.toNanos() ? Duration.ofNanos(Math.max(untilDue, 0L)) : poll;
        }

        private void scheduleWake(Duration d) {
            timer = timers.schedule(
                    () -> {
                        sleeping = false;
                        drain();
                    },
                    Math.max(d.toNanos(), 0L),
                    java.util.concurrent.TimeUnit.NANOSECONDS);
        }

        private void cancelTimer() {
            Disposable t = timer;
            if (t != null) {
                t.dispose();
            }
        }

        private void fail(Throwable e) {
            done = true;
            sink.error(e); // ignored when the sink has ended already; stop() runs on the first end
            checkSettled();
        }
    }
}
