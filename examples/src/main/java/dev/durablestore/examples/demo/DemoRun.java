package dev.durablestore.examples.demo;

import dev.durablestore.api.OutboxLeaseReaper;
import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * One run of the demo, start to finish, on the calling thread.
 *
 * <ol>
 *   <li>open the SQLite file and re-arm rows a killed earlier run left claimed;</li>
 *   <li>start the lease reaper, the progress line and the {@link Dispatcher};</li>
 *   <li>stage the workflows that are not in the file yet ({@link Workload#stage});</li>
 *   <li>wait until no row is pending or claimed and the dispatcher holds none;</li>
 *   <li>stop, verify every history and row ({@link Verifier}), print the {@link Report}.</li>
 * </ol>
 *
 * <p>This is the top level: it is the only place that blocks ({@code block()} on the main thread).
 * It assumes it is the only process dispatching from the file: rows claimed when it starts are
 * taken to belong to a dead run.
 */
public final class DemoRun {

    private static final Logger log = LoggerFactory.getLogger(DemoRun.class);
    private static final Duration REAP_INTERVAL = Duration.ofSeconds(5);
    private static final Duration DRAIN_POLL = Duration.ofMillis(100);
    private static final Duration STALL_TIMEOUT = Duration.ofMinutes(3);
    private static final int STAGING_CONCURRENCY = 64;

    private DemoRun() {}

    /**
     * Runs the demo.
     *
     * @param options the options
     * @param out where progress and the report go
     * @param terminal true when {@code out} is a terminal (the progress line is redrawn in place)
     * @return the exit code: 0 verified, 1 otherwise
     */
    public static int run(DemoOptions options, PrintStream out, boolean terminal) {
        Report report = execute(options, out, terminal);
        return report != null && report.verified() ? 0 : 1;
    }

    /**
     * Runs the demo as {@link #run} does and hands back its report, for callers that measure it
     * (the benchmark runner's {@code DEMO} group).
     *
     * @param options the options
     * @param out where progress and the report go
     * @param terminal true when {@code out} is a terminal
     * @return the report, printed already; {@code null} when the file could not be opened or the run
     *     broke (said on {@code out})
     */
    public static Report execute(DemoOptions options, PrintStream out, boolean terminal) {
        long t0 = System.nanoTime();
        SqliteReactiveStore store;
        try {
            store = SqliteReactiveStore.open(SqliteStoreConfig.of(options.db()));
        } catch (RuntimeException e) {
            out.println("cannot open " + options.db() + ": " + e.getMessage());
            return null;
        }
        try (store) {
            out.println(String.format(
                    Locale.ROOT,
                    "durable-store demo: %,d workflows x %,d activities on %s",
                    options.workflows(),
                    options.activities(),
                    options.db()));
            out.println("  " + options.describeFailures() + ", concurrency " + options.concurrency());
            DemoStats stats = new DemoStats();

            // A killed run leaves rows claimed; nobody holds them now, so re-arm them all at once
            // rather than waiting a lease for the reaper.
            long rearmed = OutboxLeaseReaper.of(store)
                    .withLease(Duration.ofNanos(1))
                    .reapOnce()
                    .block();

            Duration lease = Duration.ofSeconds(30).plusMillis(2L * options.workMs());
            Disposable reaper = OutboxLeaseReaper.of(store)
                    .withLease(lease)
                    .withInterval(REAP_INTERVAL)
                    .withOnReaped(rows -> stats.onReaped(rows.size()))
                    .withOnError(e -> log.warn("lease reaper sweep failed", e))
                    .start();
            ProgressReporter progress =
                    new ProgressReporter(store, stats, options.workflows(), out, terminal, Duration.ofSeconds(1));
            progress.start();
            long dispatchStart = System.nanoTime();
            Dispatcher dispatcher = new Dispatcher(store, FaultPlan.of(options), stats, options);
            Disposable dispatching = dispatcher.start();
            boolean drained;
            Workload.StageResult staged;
            long stagedAt;
            long drainedAt;
            try {
                staged = Workload.stage(store, options.workflows(), options.activities(), STAGING_CONCURRENCY, stats)
                        .block();
                stagedAt = System.nanoTime();
                drained = awaitDrained(store, stats, dispatcher);
                // the drain is seen by polling; it happened when the last row was settled
                long lastSettled = stats.lastSettledNanos();
                drainedAt = drained && lastSettled != 0 ? Math.max(stagedAt, lastSettled) : System.nanoTime();
            } finally {
                dispatching.dispose();
                reaper.dispose();
                progress.close();
            }
            Verifier.Result verification =
                    Verifier.check(Verifier.collect(store).block());
            Report report = new Report(
                    options,
                    stats,
                    staged,
                    rearmed,
                    seconds(stagedAt - dispatchStart),
                    seconds(drainedAt - dispatchStart),
                    seconds(System.nanoTime() - t0),
                    drained,
                    verification);
            report.print(out);
            out.flush();
            return report;
        } catch (RuntimeException e) {
            out.println();
            out.println("VERIFICATION FAILED: the run broke: " + e);
            log.error("the demo run failed", e);
            return null;
        }
    }

    /**
     * Polls until nothing is left to dispatch: no live row in the outbox and none in the
     * dispatcher's hands. Gives up when the claim stream failed or nothing moved for
     * {@link #STALL_TIMEOUT}.
     *
     * @return true when drained, false when it gave up
     */
    private static boolean awaitDrained(SqliteReactiveStore store, DemoStats stats, Dispatcher dispatcher) {
        AtomicLong lastMark = new AtomicLong(-1);
        AtomicLong lastMove = new AtomicLong(System.nanoTime());
        Boolean drained = Flux.interval(DRAIN_POLL)
                .onBackpressureDrop()
                // while the dispatcher holds rows it is not drained: count live rows only when it holds none
                .concatMap(tick -> stats.inHand() > 0 ? Mono.just(-1L) : store.countInflight(Workload.NAMESPACE), 1)
                .<Boolean>handle((live, sink) -> {
                    long now = System.nanoTime();
                    long mark = stats.deliveries() + stats.settled() + stats.retried();
                    if (lastMark.getAndSet(mark) != mark) {
                        lastMove.set(now);
                    }
                    if (live == 0 && stats.inHand() == 0) {
                        sink.next(true);
                    } else if (dispatcher.failure() != null) {
                        sink.next(false);
                    } else if (now - lastMove.get() > STALL_TIMEOUT.toNanos()) {
                        log.warn("no progress for {} with {} rows in hand; giving up", STALL_TIMEOUT, stats.inHand());
                        sink.next(false);
                    }
                })
                .next()
                .block();
        return Boolean.TRUE.equals(drained);
    }

    private static double seconds(long nanos) {
        return nanos / 1e9;
    }
}
