package dev.durablestore.bench.workload;

import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.Settlement;
import dev.durablestore.bench.Fixtures;
import dev.durablestore.sqlite.SqliteReactiveStore;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;

/**
 * The child JVM of P6 (started with a small {@code -Xmx}): opens a store on a file already holding
 * pending rows, passes them through {@code claimStream} with a subscriber that requests one row at a
 * time and completes each, and prints the used heap after a full GC before and after.
 *
 * <p>Output, one line on standard output:
 * {@code MEMORY start=<bytes> end=<bytes> peak=<bytes> rows=<n> nanos=<n>}.
 */
public final class ClaimStreamMemoryProbe {

    private ClaimStreamMemoryProbe() {}

    /**
     * @param args the database file, the number of pending rows in it
     * @throws Exception when the run fails (exit status 1)
     */
    public static void main(String[] args) throws Exception {
        Path db = Path.of(args[0]);
        long rows = Long.parseLong(args[1]);
        long warm = Math.min(1_000, rows / 10);
        try (SqliteReactiveStore store = Fixtures.openStore(db, "NORMAL")) {
            OneByOne warmUp = new OneByOne(store, warm);
            store.claimStream(options()).subscribe(warmUp);
            warmUp.await();
            long start = usedAfterGc();
            resetPeaks();
            OneByOne subscriber = new OneByOne(store, rows - warm);
            long began = System.nanoTime();
            store.claimStream(options()).subscribe(subscriber);
            subscriber.await();
            long nanos = System.nanoTime() - began;
            long peak = peakUsed();
            long end = usedAfterGc();
            System.out.println("MEMORY start=" + start + " end=" + end + " peak=" + peak + " rows=" + (rows - warm)
                    + " nanos=" + nanos);
        }
    }

    private static ClaimStreamOptions options() {
        return ClaimStreamOptions.defaults().withPollInterval(Duration.ofMillis(100));
    }

    private static long usedAfterGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static void resetPeaks() {
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                pool.resetPeakUsage();
            }
        }
    }

    private static long peakUsed() {
        long sum = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                sum += pool.getPeakUsage().getUsed();
            }
        }
        return sum;
    }

    /**
     * Requests one row, and the next as soon as one arrives; completes every row it gets (the
     * completes run while the next claim is queued, so they can share its commit). Cancels the
     * stream after {@code wanted} rows are complete.
     */
    private static final class OneByOne extends BaseSubscriber<OutboxRow> {
        private final SqliteReactiveStore store;
        private final long wanted;
        private final AtomicLong received = new AtomicLong();
        private final AtomicLong completed = new AtomicLong();
        private final AtomicReference<Throwable> failure = new AtomicReference<>();
        private final CountDownLatch done = new CountDownLatch(1);

        OneByOne(SqliteReactiveStore store, long wanted) {
            this.store = store;
            this.wanted = wanted;
        }

        @Override
        protected void hookOnSubscribe(Subscription subscription) {
            if (wanted == 0) {
                done.countDown();
                subscription.cancel();
                return;
            }
            subscription.request(1);
        }

        @Override
        protected void hookOnNext(OutboxRow row) {
            if (received.incrementAndGet() < wanted) {
                request(1);
            }
            store.settleKeys(List.of(row.dispatchKey()), Settlement.complete()).subscribe(null, this::fail, () -> {
                if (completed.incrementAndGet() == wanted) {
                    cancel();
                    done.countDown();
                }
            });
        }

        @Override
        protected void hookOnError(Throwable t) {
            fail(t);
        }

        private void fail(Throwable t) {
            failure.compareAndSet(null, t);
            done.countDown();
        }

        void await() throws Exception {
            if (!done.await(2, TimeUnit.HOURS)) {
                throw new IllegalStateException("timed out after " + completed.get() + " of " + wanted + " rows");
            }
            if (failure.get() != null) {
                throw new IllegalStateException("claim stream failed", failure.get());
            }
        }
    }
}
