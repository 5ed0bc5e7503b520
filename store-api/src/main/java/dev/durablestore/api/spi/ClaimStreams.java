package dev.durablestore.api.spi;

import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.StoreClosedException;
import dev.durablestore.api.WorkflowId;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The backpressured claim stream (O52): claims only against outstanding demand, at most
 * {@code maxBatch} rows per claim, one claim in flight at a time. When a claim comes back short it
 * waits for the earliest of a wake-up, the next known {@code visible_after}, or the poll interval.
 */
public final class ClaimStreams {

    private static final Logger log = LoggerFactory.getLogger(ClaimStreams.class);

    private ClaimStreams() {}

    /** Where the stream's claims go. */
    public interface Source {
        /**
         * @param scope the route, or {@code null}
         * @param limit the most rows, read once when the claim runs (not when it is submitted):
         *     the subscriber's demand may grow while the claim waits for its turn, and a claim
         *     sized when it runs carries more rows per transaction; the value never shrinks
         * @param held held workflows
         * @return the claim's rows (corrupt rows reported, not thrown) and the next known due time
         */
        Mono<ClaimBatch> claimForStream(ClaimScope scope, IntSupplier limit, Set<WorkflowId> held);

        /**
         * @param claimed rows a cancelled stream could not deliver
         * @return completes when they are pending again
         */
        Mono<Void> release(List<OutboxRow> claimed);
    }

    /**
     * @param outbox where claims go
     * @param wakeups signalled by the backend after commits that may have made rows claimable
     * @param clock the store's clock
     * @param options the stream's options
     * @return the stream: claims only against outstanding demand
     */
    public static Flux<OutboxRow> create(Source outbox, Wakeups wakeups, Clock clock, ClaimStreamOptions options) {
        return Flux.create(sink -> new Loop(outbox, wakeups, clock, options, Schedulers.parallel(), sink).start());
    }

    /** The state machine of one subscription; {@link #drain()} serializes its transitions. */
    private static final class Loop {
        private final Source outbox;
        private final Clock clock;
        private final ClaimStreamOptions options;
        private final Scheduler timers;
        private final FluxSink<OutboxRow> sink;
        private final Wakeups wakeups;
        private final AtomicLong demand = new AtomicLong();
        private final AtomicLong wakeCount = new AtomicLong();
        private final AtomicInteger wip = new AtomicInteger();
        private volatile boolean claiming;
        private volatile boolean sleeping;
        private volatile boolean done;
        private volatile Disposable timer;
        /** The limit the claim in flight ran with (read by the backend when it runs the claim). */
        private volatile int claimLimit;
        private Runnable unregister;

        Loop(Source outbox, Wakeups wakeups, Clock clock, ClaimStreamOptions options, Scheduler timers,
                FluxSink<OutboxRow> sink) {
            this.outbox = outbox;
            this.wakeups = wakeups;
            this.clock = clock;
            this.options = options;
            this.timers = timers;
            this.sink = sink;
        }

        void start() {
            unregister = wakeups.register(this::wake);
            sink.onRequest(n -> {
                addDemand(n);
                drain();
            });
            sink.onDispose(this::stop);
        }

        private void addDemand(long n) {
            demand.getAndUpdate(d -> d + n < 0 ? Long.MAX_VALUE : d + n);
        }

        private void wake() {
            wakeCount.incrementAndGet();
            if (sleeping) {
                sleeping = false;
                cancelTimer();
                drain();
            }
        }

        private void stop() {
            done = true;
            cancelTimer();
            if (unregister != null) {
                unregister.run();
            }
        }

        private void drain() {
            if (wip.getAndIncrement() != 0) {
                return;
            }
            do {
                if (!done && !claiming && !sleeping && demand.get() > 0) {
                    claiming = true;
                    claimNext();
                }
            } while (wip.decrementAndGet() != 0);
        }

        private void claimNext() {
            long wakesBefore = wakeCount.get();
            Set<WorkflowId> held;
            try {
                held = options.heldWorkflows().get();
            } catch (RuntimeException e) {
                fail(e);
                return;
            }
            // Only this loop emits rows, and it does not while a claim is in flight: demand can only
            // grow between here and the moment the claim runs, so the limit read then is safe (O52).
            IntSupplier limit = () -> {
                int l = (int) Math.min(demand.get(), options.maxBatch());
                claimLimit = l;
                return l;
            };
            outbox.claimForStream(options.scope(), limit, held)
                    .subscribe(result -> onClaimed(result, claimLimit, wakesBefore), this::onClaimError);
        }

        private void onClaimed(ClaimBatch result, int limit, long wakesBefore) {
            List<OutboxRow> rows = result.rows();
            if (done) {
                outbox.release(rows).subscribe(null, e -> log.warn("could not release rows of a cancelled claim "
                        + "stream; the lease reaper will re-arm them", e));
                return;
            }
            for (OutboxRow row : rows) {
                demand.decrementAndGet();
                sink.next(row);
            }
            if (result.corrupt() != null) {
                log.warn("claim stream skipped undecodable outbox rows (dead-lettered)", result.corrupt());
                claiming = false;
                drain();
                return;
            }
            if (rows.size() < limit) {
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
            claiming = false;
            drain();
        }

        private void onClaimError(Throwable e) {
            if (e instanceof StoreClosedException) {
                fail(e);
                return;
            }
            log.warn("claim stream claim failed; retrying after {}", options.pollInterval(), e);
            sleeping = true;
            scheduleWake(options.pollInterval());
            claiming = false;
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
            timer = timers.schedule(() -> {
                sleeping = false;
                drain();
            }, Math.max(d.toNanos(), 0L), java.util.concurrent.TimeUnit.NANOSECONDS);
        }

        private void cancelTimer() {
            Disposable t = timer;
            if (t != null) {
                t.dispose();
            }
        }

        private void fail(Throwable e) {
            done = true;
            sink.error(e);
        }
    }
}
