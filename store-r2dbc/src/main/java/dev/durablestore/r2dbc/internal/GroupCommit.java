package dev.durablestore.r2dbc.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

/**
 * Group commit for one kind of write on PostgreSQL: requests made while earlier groups are being
 * written wait and go out together, as one statement, when a flush slot frees. Nothing waits for a
 * timer: a request that finds a free slot is sent at once (alone when nobody else is waiting), so
 * the wait of a request is bounded by the flushes ahead of it, at most {@code maxFlushes} of them,
 * each bounded by the store's operation timeout. Under load the group grows to whatever arrived
 * during one flush, up to {@code maxGroup}; every caller's {@code Mono} completes when the
 * statement that holds its change has committed.
 *
 * <p>With the hop on, a request that finds a free slot made on a Netty event loop is taken once the
 * loop's current task has returned ({@link EventLoops}; microseconds, no timer), with every request
 * that task made meanwhile: a claim's rows are completed one by one as they are handed over, so
 * without it the first complete of each claim went alone and the rest waited a whole flush for it
 * (the issue-17 drain alternated flushes of 1 row and of about 62, and its claims did the same; with
 * it both carry the 64 rows in flight: 31.7–35.9 commits per 1,000 rows instead of 79–102).
 *
 * <p>A caller that cancels before its group is taken is left out of it; once taken, its change is
 * written (as a cancelled transaction may still commit) and no signal is sent.
 *
 * @param <R> a request
 * @param <T> its result
 */
final class GroupCommit<R, T> {

    /**
     * Writes one group. It completes each call ({@link Call#succeed}, {@link Call#fail}) once its
     * change committed or failed; calls it leaves open complete empty when the returned
     * {@code Mono} completes, or fail with its error.
     *
     * @param <R> a request
     * @param <T> its result
     */
    @FunctionalInterface
    interface Flush<R, T> {
        /**
         * Called for one group at a time, in the order the groups were taken (queue order); the
         * returned {@code Mono} is subscribed at once, and may run beside another group's.
         *
         * @param group the requests, in submission order; never empty
         * @return completes when every statement of the group finished
         */
        Mono<Void> write(List<Call<R, T>> group);
    }

    /** One caller's request, completed by the flush that takes it. */
    static final class Call<R, T> {
        private final R request;
        private final MonoSink<T> sink;
        private final AtomicInteger state = new AtomicInteger(); // 0 open, 1 completed, 2 cancelled

        private Call(R request, MonoSink<T> sink) {
            this.request = request;
            this.sink = sink;
        }

        /** @return the request */
        R request() {
            return request;
        }

        /** @param value the caller's result, signalled now */
        void succeed(T value) {
            if (state.compareAndSet(0, 1)) {
                if (value == null) {
                    sink.success();
                } else {
                    sink.success(value);
                }
            }
        }

        /** @param error the caller's error, signalled now */
        void fail(Throwable error) {
            if (state.compareAndSet(0, 1)) {
                sink.error(error);
            }
        }

        private boolean cancelled() {
            return state.get() == 2;
        }

        private void cancel() {
            state.compareAndSet(0, 2);
        }
    }

    private final Queue<Call<R, T>> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger wip = new AtomicInteger();
    private final AtomicInteger flushing = new AtomicInteger();
    private final int maxGroup;
    private final int maxFlushes;
    private final boolean hop;
    private final Flush<R, T> flush;
    private final Object takeLock = new Object();

    /**
     * @param maxGroup the most requests in one group
     * @param maxFlushes the most groups being written at once
     * @param flush writes a group
     */
    GroupCommit(int maxGroup, int maxFlushes, Flush<R, T> flush) {
        this(maxGroup, maxFlushes, false, flush);
    }

    /**
     * @param maxGroup the most requests in one group
     * @param maxFlushes the most groups being written at once
     * @param hop true to take a group once the event-loop task that made its first request has
     *     returned ({@link EventLoops}), so the requests that task makes one by one go together
     * @param flush writes a group
     */
    GroupCommit(int maxGroup, int maxFlushes, boolean hop, Flush<R, T> flush) {
        this.maxGroup = maxGroup;
        this.maxFlushes = maxFlushes;
        this.hop = hop;
        this.flush = flush;
    }

    /**
     * @param request the request
     * @return its result, signalled after the commit that holds it (or its failure)
     */
    Mono<T> submit(R request) {
        return Mono.create(sink -> {
            Call<R, T> call = new Call<>(request, sink);
            sink.onCancel(call::cancel);
            queue.add(call);
            drain();
        });
    }

    /** @return requests waiting for a flush */
    int depth() {
        return queue.size();
    }

    private void drain() {
        if (wip.getAndIncrement() != 0) {
            return;
        }
        do {
            while (flushing.get() < maxFlushes && !queue.isEmpty()) {
                flushing.incrementAndGet(); // the slot is this group's from now
                if (!hop || !EventLoops.runAfterCurrentTask(this::takeAndStart)) {
                    takeAndStart();
                }
            }
        } while (wip.decrementAndGet() != 0);
    }

    /**
     * Takes the group for the slot reserved in {@link #drain} and writes it; frees the slot when none
     * is left. Groups are taken, and their writes assembled ({@link Flush#write}), one at a time, so
     * a flush sees the groups taken before it in the order they were taken: queue order.
     */
    private void takeAndStart() {
        List<Call<R, T>> group = new ArrayList<>(); // (size() walks the whole queue)
        Mono<Void> write = null;
        synchronized (takeLock) {
            Call<R, T> call;
            while (group.size() < maxGroup && (call = queue.poll()) != null) {
                if (!call.cancelled()) {
                    group.add(call);
                }
            }
            if (!group.isEmpty()) {
                write = assemble(group);
            }
        }
        if (write == null) {
            flushing.decrementAndGet();
            drain();
            return;
        }
        start(group, write);
    }

    private Mono<Void> assemble(List<Call<R, T>> group) {
        try {
            return flush.write(group);
        } catch (RuntimeException e) {
            return Mono.error(e);
        }
    }

    private void start(List<Call<R, T>> group, Mono<Void> write) {
        write.doFinally(signal -> {
                    flushing.decrementAndGet();
                    drain();
                })
                .subscribe(
                        null,
                        error -> {
                            for (Call<R, T> c : group) {
                                c.fail(error);
                            }
                        },
                        () -> {
                            for (Call<R, T> c : group) {
                                c.succeed(null);
                            }
                        });
    }
}
