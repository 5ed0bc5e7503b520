package dev.durablestore.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.OutboxRow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;

/**
 * A subscriber to a claim stream that the test thread drives: it requests nothing until told, hands
 * each row to the test thread through a queue, and lets the test wait for rows (or for their
 * absence) with a bound, so that the test thread, never a store thread, runs every blocking step.
 */
final class ClaimStreamProbe extends BaseSubscriber<OutboxRow> {

    private final BlockingQueue<OutboxRow> pending = new LinkedBlockingQueue<>();
    private final List<OutboxRow> received = new CopyOnWriteArrayList<>();
    private final AtomicReference<Throwable> error = new AtomicReference<>();
    private volatile boolean completed;

    private ClaimStreamProbe() {}

    /**
     * @param stream the claim stream
     * @return a probe subscribed to it, with no demand yet
     */
    static ClaimStreamProbe subscribe(Flux<OutboxRow> stream) {
        ClaimStreamProbe probe = new ClaimStreamProbe();
        stream.subscribe(probe);
        return probe;
    }

    @Override
    protected void hookOnSubscribe(Subscription subscription) {
        // no demand until the test asks
    }

    @Override
    protected void hookOnNext(OutboxRow row) {
        received.add(row);
        pending.add(row);
    }

    @Override
    protected void hookOnError(Throwable throwable) {
        error.set(throwable);
    }

    @Override
    protected void hookOnComplete() {
        completed = true;
    }

    /**
     * @param timeout how long to wait
     * @return the next row delivered
     * @throws InterruptedException when interrupted
     */
    OutboxRow next(Duration timeout) throws InterruptedException {
        OutboxRow row = pending.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
        if (row == null) {
            throw new AssertionError(
                    "no row within " + timeout + "; received so far " + OutboxFixtures.keys(received)
                            + (error.get() != null ? ", stream failed with " + error.get() : "")
                            + (completed ? ", stream completed" : ""),
                    error.get());
        }
        return row;
    }

    /**
     * @param count how many rows to wait for
     * @param timeout the bound on the whole wait
     * @return the next {@code count} rows delivered, in delivery order
     * @throws InterruptedException when interrupted
     */
    List<OutboxRow> next(int count, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<OutboxRow> rows = new ArrayList<>(count);
        while (rows.size() < count) {
            Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
            try {
                rows.add(next(left));
            } catch (AssertionError e) {
                throw new AssertionError(
                        "only " + rows.size() + " of " + count + " rows arrived: " + e.getMessage(), e.getCause());
            }
        }
        return rows;
    }

    /**
     * Waits {@code window} and fails if a row arrives meanwhile.
     *
     * @param window how long to watch
     * @throws InterruptedException when interrupted
     */
    void expectNothingFor(Duration window) throws InterruptedException {
        OutboxRow row = pending.poll(window.toNanos(), TimeUnit.NANOSECONDS);
        assertThat(row).as("a row delivered although none was expected").isNull();
    }

    /**
     * Watches the stream for {@code window}, taking whatever rows it still delivers: after a
     * cancel, rows already on their way may still reach {@code onNext} (Reactive Streams 3.12),
     * and they are the subscriber's like any other.
     *
     * @param window how long to watch
     * @throws InterruptedException when interrupted
     */
    void watchFor(Duration window) throws InterruptedException {
        long deadline = System.nanoTime() + window.toNanos();
        for (long left = window.toNanos(); left > 0; left = deadline - System.nanoTime()) {
            pending.poll(left, TimeUnit.NANOSECONDS);
        }
    }

    /** Checks that the stream has neither failed nor completed (a claim stream is endless). */
    void assertLive() {
        assertThat(error.get()).as("claim stream error").isNull();
        assertThat(completed).as("claim stream completed").isFalse();
    }

    /** @return every row delivered so far, in delivery order */
    List<OutboxRow> received() {
        return List.copyOf(received);
    }
}
