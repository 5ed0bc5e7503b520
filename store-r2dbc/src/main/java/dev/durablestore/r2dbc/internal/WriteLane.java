package dev.durablestore.r2dbc.internal;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.core.scheduler.Scheduler;

/**
 * Runs write transactions one at a time, in subscription order, without blocking the subscriber
 * (used on H2, whose driver works on the calling thread: one instance then never has two threads
 * waiting for H2's write lock). Each task starts on the store's scheduler, so a long queue never
 * recurses on one stack.
 */
final class WriteLane {

    private final Queue<Task<?>> queue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean busy = new AtomicBoolean();
    private final Scheduler scheduler;

    /** @param scheduler where each task is started */
    WriteLane(Scheduler scheduler) {
        this.scheduler = scheduler;
    }

    /** @return tasks waiting for their turn */
    int depth() {
        return queue.size();
    }

    /**
     * @param work the transaction
     * @param <T> its result
     * @return a Mono that runs {@code work} when every earlier task has finished
     */
    <T> Mono<T> run(Mono<T> work) {
        return Mono.create(sink -> {
            Task<T> task = new Task<>(work, sink);
            sink.onCancel(task::cancel);
            queue.add(task);
            drain();
        });
    }

    private void drain() {
        while (busy.compareAndSet(false, true)) {
            Task<?> next = queue.poll();
            if (next != null) {
                next.start();
                return;
            }
            busy.set(false);
            if (queue.isEmpty()) {
                return;
            }
        }
    }

    private void release() {
        busy.set(false);
        drain();
    }

    private final class Task<T> {
        private final Mono<T> work;
        private final MonoSink<T> sink;
        private final AtomicBoolean cancelled = new AtomicBoolean();
        private volatile Disposable running;

        Task(Mono<T> work, MonoSink<T> sink) {
            this.work = work;
            this.sink = sink;
        }

        void start() {
            if (cancelled.get()) {
                release();
                return;
            }
            running = work.subscribeOn(scheduler)
                    .doFinally(signal -> release())
                    .subscribe(sink::success, sink::error, sink::success);
        }

        void cancel() {
            if (cancelled.compareAndSet(false, true)) {
                Disposable d = running;
                if (d != null) {
                    d.dispose();
                }
            }
        }
    }
}
