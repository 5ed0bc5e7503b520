package dev.durablestore.examples.demo;

import dev.durablestore.api.OperatorStore;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Prints a progress line once per interval: elapsed time, rows settled per second over the last
 * interval, the outbox's pending and claimed counts ({@code countInflight}, {@code countClaimed})
 * and this run's done, retried and failed (dead-lettered) counts.
 *
 * <p>On a terminal the line is redrawn in place with {@code \r}; otherwise (piped, redirected, in
 * CI) each update is a plain line. Printing runs on a dedicated console thread, never on a Reactor
 * non-blocking thread.
 */
public final class ProgressReporter implements AutoCloseable {

    private final OperatorStore outbox;
    private final DemoStats stats;
    private final int workflows;
    private final PrintStream out;
    private final boolean inPlace;
    private final Duration interval;
    private final long startNanos = System.nanoTime();
    private final ExecutorService console = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "demo-console");
        t.setDaemon(true);
        return t;
    });
    private final Scheduler consoleScheduler = Schedulers.fromExecutorService(console, "demo-console");
    private Disposable ticks;
    private long lastSettled;
    private long lastNanos = startNanos;
    private int lastWidth;

    /**
     * @param outbox the outbox whose counts are shown
     * @param stats this run's counters
     * @param workflows how many workflows staging goes through
     * @param out where to print
     * @param inPlace true to redraw one line with {@code \r} (a terminal), false for plain lines
     * @param interval time between updates
     */
    public ProgressReporter(
            OperatorStore outbox, DemoStats stats, int workflows, PrintStream out, boolean inPlace, Duration interval) {
        this.outbox = outbox;
        this.workflows = workflows;
        this.stats = stats;
        this.out = out;
        this.inPlace = inPlace;
        this.interval = interval;
    }

    /** Starts printing. */
    public void start() {
        ticks = Flux.interval(interval, interval)
                .onBackpressureDrop()
                .concatMap(
                        tick -> Mono.zip(
                                outbox.countInflight(Workload.NAMESPACE), outbox.countClaimed(Workload.NAMESPACE)),
                        1)
                .publishOn(consoleScheduler)
                .subscribe(counts -> print(counts.getT1(), counts.getT2()), e -> {});
    }

    private void print(long inflight, long claimed) {
        long now = System.nanoTime();
        long settled = stats.settled();
        double seconds = Math.max(1e-9, (now - lastNanos) / 1e9);
        double rate = (settled - lastSettled) / seconds;
        lastSettled = settled;
        lastNanos = now;
        String line = String.format(
                Locale.ROOT,
                "[%5.1fs] %,8.0f rows/s | pending %,7d  claimed %,4d | done %,8d  retried %,6d  failed %,5d"
                        + " | staging %,d/%,d wf",
                (now - startNanos) / 1e9,
                rate,
                inflight - claimed,
                claimed,
                stats.completed(),
                stats.retried(),
                stats.deadLettered(),
                stats.workflowsStaged() + stats.workflowsSkipped(),
                workflows);
        if (inPlace) {
            int pad = Math.max(0, lastWidth - line.length());
            out.print("\r" + line + " ".repeat(pad));
            lastWidth = line.length();
        } else {
            out.println(line);
        }
        out.flush();
    }

    /** Stops printing and, on a terminal, ends the progress line. Waits up to a second for the console thread. */
    @Override
    public void close() {
        if (ticks != null) {
            ticks.dispose();
        }
        console.shutdown();
        try {
            console.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        consoleScheduler.dispose();
        if (inPlace && lastWidth > 0) {
            out.println();
        }
    }
}
