package dev.durablestore.r2dbc.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.CoreSubscriber;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.core.publisher.Operators;

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
 * <p>{@link #submit(Object, String, Gate)} admits each caller through the store's {@link Gate}
 * (refused once closed, counted in flight, timed for the metrics) and bounds its wait by the
 * operation timeout like {@link Db#guarded} does, but without a timer of its own: one watchdog per
 * group commit is armed for the oldest open caller's deadline and fails every caller past its
 * deadline with the gate's timeout error (naming the caller's operation). A caller that times out
 * before its group is taken is left out of it, as a cancelled one is. Measured on the issue-17
 * drain, a timer per settle (scheduled and cancelled on Reactor's parallel scheduler) and the
 * operators of {@code guarded} around each were the dearest part of a settle in the JVM.
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

    /**
     * Admits, bounds and reports the callers of {@link #submit(Object, String, Gate)}: the store's
     * {@link Db}.
     */
    interface Gate {
        /** @return true when the caller is admitted (counted in flight); false once the store is closed */
        boolean enter();

        /** Counts an admitted caller out, once its signal was sent. */
        void leave();

        /**
         * @param operation the refused operation
         * @return its error
         */
        Throwable refused(String operation);

        /**
         * @param operation the operation that timed out
         * @return its error
         */
        Throwable timedOut(String operation);

        /** @return the longest a caller waits, in nanoseconds */
        long timeoutNanos();

        /**
         * @param operation the caller's operation
         * @param nanos how long it took
         * @param success whether it succeeded
         */
        void ended(String operation, long nanos, boolean success);

        /**
         * @param task what to run
         * @param delayNanos after how long
         * @return cancels it
         */
        Disposable schedule(Runnable task, long delayNanos);
    }

    /** One caller's request, completed by the flush that takes it. */
    static final class Call<R, T> {
        private final R request;
        private final MonoSink<T> sink;
        /** With a gate ({@link #submit(Object, String, Gate)}): the caller, its operation, start and deadline. */
        private final Out<T> out;

        private final Gate gate;
        private final String operation;
        private final long start;
        private final long deadline;
        private final AtomicInteger state = new AtomicInteger(); // 0 open, 1 completed, 2 cancelled

        private Call(R request, MonoSink<T> sink) {
            this.request = request;
            this.sink = sink;
            this.out = null;
            this.gate = null;
            this.operation = null;
            this.start = 0;
            this.deadline = 0;
        }

        private Call(R request, Out<T> out, Gate gate, String operation, long start) {
            this.request = request;
            this.sink = null;
            this.out = out;
            this.gate = gate;
            this.operation = operation;
            this.start = start;
            this.deadline = start + gate.timeoutNanos();
        }

        /** @return the request */
        R request() {
            return request;
        }

        /** @param value the caller's result, signalled now */
        void succeed(T value) {
            if (state.compareAndSet(0, 1)) {
                if (out != null) {
                    gate.ended(operation, System.nanoTime() - start, true);
                    if (value == null) {
                        out.onComplete();
                    } else {
                        out.complete(value);
                    }
                    gate.leave();
                } else if (value == null) {
                    sink.success();
                } else {
                    sink.success(value);
                }
            }
        }

        /** @param error the caller's error, signalled now */
        void fail(Throwable error) {
            if (state.compareAndSet(0, 1)) {
                if (out != null) {
                    gate.ended(operation, System.nanoTime() - start, false);
                    out.onError(error);
                    gate.leave();
                } else {
                    sink.error(error);
                }
            }
        }

        /** Fails the caller with its operation's timeout error, unless it has ended. */
        private void timeOut() {
            if (state.get() == 0) {
                fail(gate.timedOut(operation));
            }
        }

        private boolean open() {
            return state.get() == 0;
        }

        private void cancel() {
            if (state.compareAndSet(0, 2) && out != null) {
                gate.leave();
            }
        }
    }

    /** The subscriber side of a gated call: a {@code Mono}'s one value, or none, once requested. */
    private static final class Out<T> extends Operators.MonoSubscriber<T, T> {
        private Call<?, T> call;

        Out(CoreSubscriber<? super T> actual) {
            super(actual);
        }

        @Override
        public void cancel() {
            super.cancel();
            Call<?, T> c = call;
            if (c != null) {
                c.cancel();
            }
        }
    }

    /** The {@code Mono} of {@link #submit(Object, String, Gate)}: each subscription one admitted call. */
    private static final class Gated<R, T> extends Mono<T> {
        private final GroupCommit<R, T> commit;
        private final R request;
        private final String operation;
        private final Gate gate;

        Gated(GroupCommit<R, T> commit, R request, String operation, Gate gate) {
            this.commit = commit;
            this.request = request;
            this.operation = operation;
            this.gate = gate;
        }

        @Override
        public void subscribe(CoreSubscriber<? super T> actual) {
            if (!gate.enter()) {
                Operators.error(actual, gate.refused(operation));
                return;
            }
            Out<T> out = new Out<>(actual);
            Call<R, T> call = new Call<>(request, out, gate, operation, System.nanoTime());
            out.call = call;
            actual.onSubscribe(out);
            if (!call.open()) {
                return; // cancelled in onSubscribe: left it at once
            }
            try {
                commit.watch(call);
            } catch (RuntimeException e) { // its watchdog could not be armed (a scheduler shut down)
                call.fail(e); // counted out, signalled, never queued
                return;
            }
            commit.queue.add(call);
            commit.drain();
        }
    }

    private final Queue<Call<R, T>> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger wip = new AtomicInteger();
    private final AtomicInteger flushing = new AtomicInteger();
    private final int maxGroup;
    private final int maxFlushes;
    private final boolean hop;
    private final Flush<R, T> flush;
    /** The gated calls in submission order, so by deadline; guarded by itself. */
    private final ArrayDeque<Call<R, T>> watched = new ArrayDeque<>();
    /** The watchdog armed for the head of {@link #watched}, or {@code null}; guarded by {@link #watched}. */
    private Disposable watchdog;
    /** Held while a group is taken and its write assembled, so groups are taken in queue order. */
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

    /**
     * Like {@link #submit(Object)}, each subscription admitted through {@code gate} and bounded by
     * its operation timeout (see the class description).
     *
     * @param request the request
     * @param operation the caller's operation, for its errors and metrics
     * @param gate admits, bounds and reports the caller
     * @return its result, signalled after the commit that holds it (or its failure)
     */
    Mono<T> submit(R request, String operation, Gate gate) {
        return new Gated<>(this, request, operation, gate);
    }

    /** Puts a gated call under the watchdog; calls that ended are dropped from the front first. */
    private void watch(Call<R, T> call) {
        synchronized (watched) {
            Call<R, T> head;
            while ((head = watched.peekFirst()) != null && !head.open()) {
                watched.pollFirst();
            }
            watched.addLast(call);
            if (watchdog == null) {
                arm(watched.peekFirst());
            }
        }
    }

    /** Arms the watchdog for {@code head}'s deadline; holds the lock of {@link #watched}. */
    private void arm(Call<R, T> head) {
        watchdog = head.gate.schedule(this::expire, Math.max(0L, head.deadline - System.nanoTime()));
    }

    /** The watchdog: fails every open call past its deadline, then re-arms for the oldest one left. */
    private void expire() {
        List<Call<R, T>> expired = new ArrayList<>();
        synchronized (watched) {
            watchdog = null;
            long now = System.nanoTime();
            Call<R, T> head;
            while ((head = watched.peekFirst()) != null && (!head.open() || head.deadline - now <= 0)) {
                watched.pollFirst();
                if (head.open()) {
                    expired.add(head);
                }
            }
            if (head != null) {
                arm(head);
            }
        }
        for (Call<R, T> call : expired) {
            call.timeOut();
        }
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
                if (call.open()) { // a call cancelled or timed out meanwhile is left out
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
