package dev.durablestore.sqlite.internal;

import dev.durablestore.api.StoreClosedException;
import dev.durablestore.api.StoreMetrics;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.NonBlocking;
import reactor.core.scheduler.Scheduler;

/**
 * The single writer: one thread at a time owns the only write connection and drains a queue of
 * {@link WriteCommand}s in group commits. Each batch is one {@code BEGIN IMMEDIATE} transaction
 * that takes in the commands arriving while it runs (see {@link CommandQueue#arrivals}); every
 * command's subscriber is signalled only after the commit that holds it has returned (nothing is
 * acknowledged before it is durable). Commands run in queue order, so the writer is the
 * serialization point for guards and claims.
 *
 * <p><b>Two threads, one leader.</b> The thread that committed a batch signals its subscribers
 * itself, at once: their next commands (a dispatcher's completes, the claim its demand asks for)
 * are queued before it takes the queue again, with no thread hand-off between a commit and the
 * next transaction. Subscriber code must not hold up the other submitters, though: a command
 * submitted from any other thread while the leader signals makes the second thread, parked until
 * then, the leader; the first finishes its signals and parks in turn. Only the leader touches the
 * connection and the batch state; leadership moves only while the leader signals, and the move is
 * one compare-and-set, which also orders the old leader's writes before the new one's reads. Both
 * threads are {@link NonBlocking}, like the emit threads they replace for writes: Reactor refuses
 * {@code block()} on them and BlockHound checks subscriber code there
 * ({@link WriterBlockHoundIntegration} allows the writer's own waits and statements).
 *
 * <p><b>The parts.</b> This class takes submits and runs each thread's lead loop; the jobs are in
 * package-private classes beside it: {@link CommandQueue} (the queue and the linger policy: how the
 * leader waits for commands), {@link LeaderHandOff} (the two threads and the move of the lead),
 * {@link TransactionRunner} (one batch as one transaction: grouping, replay after a failure,
 * listeners) and {@link WriterShutdown} (close, abort and the refusal of what is left);
 * {@link Pending} is a queued command with its subscriber.
 */
final class Writer {

    private static final Logger log = LoggerFactory.getLogger(Writer.class);

    private final CommandQueue queue;
    private final LeaderHandOff threads;
    private final TransactionRunner runner;
    private final WriterShutdown shutdown;
    private final StoreMetrics metrics;
    private final String storeName;

    /** Told about every transaction the writer opens and how it ends; called on the writer thread. */
    interface TransactionListener {
        /**
         * @param c the write connection, right after {@code BEGIN IMMEDIATE}
         * @throws SQLException to fail the transaction
         */
        void afterBegin(DbConnection c) throws SQLException;

        /**
         * Last chance to refuse the transaction, right before {@code COMMIT}.
         *
         * @throws SQLException to roll the transaction back and fail its commands
         */
        default void beforeCommit() throws SQLException {}

        /** The transaction committed. */
        void afterCommit();

        /** The transaction was rolled back (or its commit failed). */
        void afterRollback();
    }

    /**
     * @param connection the write connection, owned from now on
     * @param maxBatch most commands per transaction
     * @param emit where the subscribers of commands refused while the writer stops are signalled
     * @param onWake called after a commit that may have made outbox rows claimable
     * @param metrics receives operation timings and commit batch sizes
     * @param storeName used in the thread name and in errors
     */
    Writer(
            DbConnection connection,
            int maxBatch,
            Scheduler emit,
            Runnable onWake,
            StoreMetrics metrics,
            String storeName) {
        this.queue = new CommandQueue(maxBatch);
        this.metrics = metrics;
        this.storeName = storeName;
        this.threads = new LeaderHandOff(queue, this::serve, storeName);
        this.runner = new TransactionRunner(connection, queue, onWake, metrics);
        this.shutdown = new WriterShutdown(queue, threads, connection, emit, storeName);
        metrics.registerQueueDepth(queue.queue::size);
        threads.start();
    }

    /**
     * Queues a command when subscribed.
     *
     * @param command the command
     * @param <T> its result type
     * @return a cold Mono signalled after the command's transaction committed (or failed)
     */
    <T> Mono<T> submit(WriteCommand<T> command) {
        return Mono.defer(() -> {
            if (!shutdown.accepting) {
                return Mono.error(shutdown.closed(command));
            }
            return Mono.<T>create(sink -> {
                if (!shutdown.accepting) {
                    sink.error(shutdown.closed(command));
                    return;
                }
                Pending<T> p = new Pending<>(command, sink, metrics);
                sink.onCancel(p::cancel);
                queue.queue.add(p);
                if (!shutdown.accepting && queue.queue.remove(p)) {
                    // close() came between the check above and the add, and the stopping leader
                    // may have drained the queue already: nobody would ever take this command
                    sink.error(shutdown.closed(command));
                    return;
                }
                if (!threads.handOverIfSignalling(false) && queue.waiting) {
                    LockSupport.unpark(threads.leader());
                }
            });
        });
    }

    /**
     * @param listener told about every transaction from now on; must be registered before commands
     *     that rely on it are submitted
     */
    void addListener(TransactionListener listener) {
        runner.addListener(listener);
    }

    /** @return commands waiting for the writer */
    int queueDepth() {
        return queue.queue.size();
    }

    /**
     * Stops accepting commands, lets the queued ones finish, then closes the write connection.
     *
     * @param timeoutMillis how long to wait for queued commands
     */
    void close(long timeoutMillis) {
        shutdown.close(timeoutMillis);
    }

    /**
     * Like {@link #close(long)} without blocking the caller: stops accepting commands when
     * subscribed, and completes once the queued ones finished and the connection is closed. When
     * they take longer than {@code timeout}, the leader is stopped at its next wait and whatever is
     * still queued fails with {@link StoreClosedException}.
     *
     * @param timeout how long to wait for queued commands
     * @return completes when the writer has stopped
     */
    Mono<Void> closeAsync(Duration timeout) {
        return shutdown.closeAsync(timeout);
    }

    /** The body of each writer thread: wait for the lead, lead until it moves or the writer stops. */
    private void serve(int index) {
        LeaderHandOff.WriterThread self = threads.thread(index);
        while (threads.awaitLead(self)) {
            if (lead(self)) {
                return;
            }
        }
    }

    /**
     * Takes batches from the queue and commits them, signalling each batch's subscribers on this
     * thread, until the lead moves (a submit from another thread while this one signalled) or the
     * writer stops.
     *
     * @return true when the writer stopped (this thread ran its shutdown)
     */
    private boolean lead(LeaderHandOff.WriterThread self) {
        List<Pending<?>> batch = new ArrayList<>();
        List<Pending<?>> done = new ArrayList<>();
        try {
            while (!queue.closing) {
                Pending<?> first = queue.take();
                if (first == queue.poison) {
                    break;
                }
                batch.add(first);
                runner.runBatch(batch, done);
                batch.clear();
                boolean stillLeading = threads.signal(self, done);
                Thread.interrupted(); // a status a subscriber left behind; only 'aborted' stops the writer
                if (!stillLeading) {
                    return false;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            shutdown.failUnfinished(batch, done, p -> shutdown.closed(p.command));
        } catch (Throwable t) {
            log.error("durable-store writer {} stopped unexpectedly", storeName, t);
            shutdown.failUnfinished(batch, done, p -> Failures.backend(p.command.name(), t));
        }
        shutdown.stop();
        return true;
    }
}
