package dev.durablestore.bench.workload;

import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.RetentionPolicy;
import dev.durablestore.api.RetentionSweeper;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.bench.Fixtures;
import dev.durablestore.bench.RunContext;
import dev.durablestore.bench.Stats;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The load of the retention soak (issue 42, item 3), the same on every backend: workflows that
 * start and finish. A workflow is started by one {@code appendWithOutbox} (its
 * {@code WorkflowStarted} and one outbox row); a claim stream takes the row, completes it and
 * appends the workflow's {@code WorkflowCompleted}, which closes it. Records carry the wall clock,
 * so a {@link RetentionSweeper} on the system clock deletes them once their retention has passed.
 *
 * <p>Two shapes: {@link #steady} offers workflows at a fixed rate for several retention periods
 * with a sweeper running, sampling the storage each second; {@link #windows} runs the load flat out
 * ({@value #IN_FLIGHT} workflows in flight) and counts what it stages and drains in windows that
 * take turns with and without a sweeper.
 */
public final class SoakLoad {

    /** Workflows in flight in the flat-out windows, and the drain's concurrency. */
    static final int IN_FLIGHT = 64;

    private static final Duration TIMEOUT = Duration.ofMinutes(2);

    private final ReactiveStore store;
    private final LongAdder staged = new LongAdder();
    private final LongAdder drained = new LongAdder();
    private final Map<WorkflowId, Sinks.Empty<Void>> closing = new ConcurrentHashMap<>();
    /** The first failure of the load or the drain: the run fails with it. */
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    /** @param store the store the load runs on */
    public SoakLoad(ReactiveStore store) {
        this.store = store;
    }

    /** The storage a store takes, measured by the backend's own means. */
    @FunctionalInterface
    public interface Sizer {
        /** @return the bytes the store's data takes now, by part (tables, indexes, files) */
        Map<String, Long> measure();
    }

    /** @return the total of a measurement */
    public static long total(Map<String, Long> parts) {
        return parts.values().stream().mapToLong(Long::longValue).sum();
    }

    /**
     * What {@link #steady} saw.
     *
     * @param firstPeriod the storage at the end of the first retention period, by part
     * @param lastPeriodMax the largest total storage sampled in the last retention period
     * @param end the storage at the end, by part
     * @param started workflows started
     * @param closed workflows closed
     * @param backlogAtEnd overdue closed workflows left when the load stopped
     */
    public record Steady(
            Map<String, Long> firstPeriod,
            long lastPeriodMax,
            Map<String, Long> end,
            long started,
            long closed,
            long backlogAtEnd) {}

    /**
     * Offers {@code rate} workflows per second for {@code periods} retention periods while a sweeper
     * with {@code retention} runs every tenth of it, sampling the storage once a second.
     *
     * @param ctx where progress is logged
     * @param tag the log prefix
     * @param rate workflows started per second
     * @param retention how long closed workflows are kept
     * @param periods how many retention periods the load runs
     * @param sizer how storage is measured
     * @return what was seen
     * @throws InterruptedException if interrupted
     */
    public Steady steady(RunContext ctx, String tag, int rate, Duration retention, int periods, Sizer sizer)
            throws InterruptedException {
        RetentionPolicy policy = RetentionPolicy.closedFor(retention);
        Disposable drain = drain();
        Disposable sweeper = RetentionSweeper.of(store, policy)
                .withInterval(retention.dividedBy(10))
                .start();
        int ticksPerSecond = 20;
        // open loop: the offer does not wait for workflows to close, so the rate is the rate
        Disposable offer = Flux.interval(Duration.ofMillis(1000 / ticksPerSecond))
                .onBackpressureBuffer()
                .concatMap(tick -> Flux.range(0, perTick(rate, ticksPerSecond, tick))
                        .flatMap(i -> stage(WorkflowId.random()), IN_FLIGHT))
                .subscribe(null, failure::set);
        Map<String, Long> first = null;
        long lastMax = 0;
        long seconds = retention.toSeconds() * periods;
        long began = System.nanoTime();
        try {
            for (long s = 1; s <= seconds; s++) {
                // sampled on the wall clock of the load, however long a measurement takes
                TimeUnit.NANOSECONDS.sleep(Math.max(0, began + TimeUnit.SECONDS.toNanos(s) - System.nanoTime()));
                checkFailure();
                Map<String, Long> now = sizer.measure();
                if (s == retention.toSeconds()) {
                    first = now;
                }
                if (s > seconds - retention.toSeconds()) {
                    lastMax = Math.max(lastMax, total(now));
                }
                if (s % retention.toSeconds() == 0) {
                    ctx.log(String.format(
                            "%s   t=%d s: %.2f MB, %d started, %d closed",
                            tag, s, total(now) / 1e6, staged.sum(), drained.sum()));
                }
            }
        } finally {
            offer.dispose();
            sweeper.dispose();
        }
        quiesce();
        drain.dispose();
        Map<String, Long> end = sizer.measure();
        long backlog =
                store.retentionBacklog(policy, Instant.now()).block(TIMEOUT).overdueWorkflows();
        return new Steady(first, lastMax, end, staged.sum(), drained.sum(), backlog);
    }

    /** Spreads {@code rate} per second over the ticks of a second without losing the remainder. */
    private static int perTick(int rate, int ticksPerSecond, long tick) {
        long before = tick * rate / ticksPerSecond;
        long after = (tick + 1) * rate / ticksPerSecond;
        return (int) (after - before);
    }

    /**
     * What one flat-out window did.
     *
     * @param sweeping whether a sweeper ran during it
     * @param stagedPerSecond workflows started (rows staged) per second
     * @param drainedPerSecond rows drained (workflows closed) per second
     */
    public record Window(boolean sweeping, double stagedPerSecond, double drainedPerSecond) {}

    /**
     * Runs the load flat out and measures {@code count} windows of {@code length}, taking turns
     * without and with a sweeper whose retention is {@code retention} (so it deletes, all the
     * time, what the load closed that long ago, and at first the backlog of the window before).
     *
     * @param ctx where progress is logged
     * @param tag the log prefix
     * @param sweepFirst whether the first window sweeps
     * @param count how many windows
     * @param length each window's length
     * @param retention the sweeper's retention
     * @return the windows in the order they ran
     * @throws InterruptedException if interrupted
     */
    public List<Window> windows(
            RunContext ctx, String tag, boolean sweepFirst, int count, Duration length, Duration retention)
            throws InterruptedException {
        Disposable drain = drain();
        Disposable load = Flux.<WorkflowId>generate(sink -> sink.next(WorkflowId.random()))
                .flatMap(this::start, IN_FLIGHT)
                .subscribe(null, failure::set);
        List<Window> out = new ArrayList<>();
        try {
            TimeUnit.SECONDS.sleep(2); // warm-up, untimed
            for (int i = 0; i < count; i++) {
                boolean sweeping = (i % 2 == 0) == sweepFirst;
                Disposable sweeper = sweeping
                        ? RetentionSweeper.of(store, RetentionPolicy.closedFor(retention))
                                .withInterval(Duration.ofMillis(100))
                                .start()
                        : null;
                long s0 = staged.sum();
                long d0 = drained.sum();
                long t0 = System.nanoTime();
                TimeUnit.MILLISECONDS.sleep(length.toMillis());
                checkFailure();
                long t1 = System.nanoTime();
                Window w = new Window(
                        sweeping,
                        Stats.perSecond(staged.sum() - s0, t1 - t0),
                        Stats.perSecond(drained.sum() - d0, t1 - t0));
                if (sweeper != null) {
                    sweeper.dispose();
                }
                out.add(w);
                ctx.log(String.format(
                        "%s   window %d (%s): %.0f staged/s, %.0f drained/s",
                        tag, i + 1, sweeping ? "sweeping" : "no sweeper", w.stagedPerSecond(), w.drainedPerSecond()));
            }
        } finally {
            load.dispose();
        }
        quiesce();
        drain.dispose();
        return out;
    }

    /** Starts one workflow: its first event and its one row, in one transaction; done once it is closed. */
    private Mono<Void> start(WorkflowId w) {
        Sinks.Empty<Void> closed = Sinks.empty();
        closing.put(w, closed);
        return stage(w).then(closed.asMono());
    }

    /** Stages one workflow's first event and its one row, in one transaction. */
    private Mono<Void> stage(WorkflowId w) {
        Instant now = Instant.now();
        List<OutboxRow> row = List.of(Fixtures.pendingRow(w, 1, now));
        return store.appendWithOutbox(w, List.of(Fixtures.started(w, now)), 0, row)
                .doOnSuccess(v -> staged.increment());
    }

    /** The dispatcher: completes each row it claims and closes its workflow. */
    private Disposable drain() {
        return store.claimStream(ClaimStreamOptions.defaults().withMaxBatch(IN_FLIGHT))
                .flatMap(
                        row -> store.complete(row)
                                .then(store.append(
                                        row.workflowId(),
                                        List.of(Fixtures.workflowCompleted(row.workflowId(), 2, Instant.now())),
                                        1))
                                .doOnSuccess(v -> {
                                    drained.increment();
                                    Sinks.Empty<Void> s = closing.remove(row.workflowId());
                                    if (s != null) {
                                        s.tryEmitEmpty();
                                    }
                                }),
                        IN_FLIGHT)
                .subscribe(null, failure::set);
    }

    /**
     * Waits until the drain has closed what was started before the load stopped: until no workflow
     * closes for a second (a start cancelled when the load stopped may or may not have committed,
     * so the counts alone cannot say).
     */
    private void quiesce() throws InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        long seen = -1;
        while (drained.sum() != seen) {
            checkFailure();
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "the soak load did not settle: " + staged.sum() + " started, " + drained.sum() + " closed");
            }
            seen = drained.sum();
            TimeUnit.SECONDS.sleep(1);
        }
        closing.clear();
    }

    private void checkFailure() {
        Throwable f = failure.get();
        if (f != null) {
            throw new IllegalStateException("the soak load failed", f);
        }
    }
}
