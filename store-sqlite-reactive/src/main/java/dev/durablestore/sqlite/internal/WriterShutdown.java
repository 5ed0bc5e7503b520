package dev.durablestore.sqlite.internal;

import dev.durablestore.api.StoreClosedException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * How the {@link Writer} stops: close() stops accepting commands and queues the close marker behind
 * the queued ones; the leader finishes them, refuses whatever came later, folds the WAL back and
 * closes the connection ({@link #stop}). A close that waits too long aborts the leader at its next
 * wait; commands left without an outcome fail with {@link StoreClosedException}. Subscribers of
 * commands failed while stopping are signalled on the emit scheduler, not by the stopping leader.
 */
final class WriterShutdown {

    private static final Logger log = LoggerFactory.getLogger(Writer.class);

    private final CommandQueue queue;
    private final LeaderHandOff threads;
    private final DbConnection connection;
    private final Scheduler emit;
    private final String storeName;
    /** Whether submits are taken: false from close() (or the writer's stop) on. */
    volatile boolean accepting = true;
    /** Completes when the writer has stopped: close(long) waits for it, closeAsync() subscribes to it. */
    private final CompletableFuture<Void> stopped = new CompletableFuture<>();

    /**
     * @param queue the writer's queue
     * @param threads the writer's threads
     * @param connection the write connection, closed by {@link #stop}
     * @param emit where the subscribers of commands refused while the writer stops are signalled
     * @param storeName used in errors
     */
    WriterShutdown(
            CommandQueue queue, LeaderHandOff threads, DbConnection connection, Scheduler emit, String storeName) {
        this.queue = queue;
        this.threads = threads;
        this.connection = connection;
        this.emit = emit;
        this.storeName = storeName;
    }

    /**
     * Stops accepting commands, lets the queued ones finish, then closes the write connection.
     *
     * @param timeoutMillis how long to wait for queued commands
     */
    void close(long timeoutMillis) {
        if (beginClose()) {
            awaitStop(timeoutMillis);
        }
        // else a subscriber closes the store from the writer thread that has to stop the writer
        // itself: the close marker is queued, and the writer stops when it gets to it
    }

    /**
     * @param timeout how long to wait for queued commands
     * @return completes when the writer has stopped
     * @see Writer#closeAsync
     */
    Mono<Void> closeAsync(Duration timeout) {
        return Mono.defer(() -> {
            beginClose();
            Mono<Void> stop = Mono.fromFuture(stopped, true);
            return stop.timeout(timeout, Mono.defer(() -> {
                abort();
                return stop.timeout(timeout, Mono.empty());
            }));
        });
    }

    /**
     * Stops accepting commands and queues the close marker behind the queued ones (once).
     *
     * @return whether the caller may wait for the writer to stop: false on the writer's own thread
     *     while it signals subscribers, since that thread stops the writer when it gets back to the
     *     queue
     */
    private boolean beginClose() {
        boolean onWriterThread = threads.onWriterThread();
        if (!accepting) {
            return !onWriterThread;
        }
        accepting = false;
        queue.queue.add(queue.poison);
        boolean moved = threads.handOverIfSignalling(true);
        if (!moved) {
            LockSupport.unpark(threads.leader());
        }
        return moved || !onWriterThread;
    }

    private void awaitStop(long timeoutMillis) {
        try {
            try {
                stopped.get(timeoutMillis, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                abort();
                stopped.get(timeoutMillis, TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (TimeoutException | ExecutionException e) {
            // gave up a second time (or the stop itself failed): close() returns, as before
        }
    }

    /** Stops the leader at its next wait for commands. */
    private void abort() {
        queue.aborted = true;
        threads.leader().interrupt();
    }

    /** Fails the commands of the batch in hand that have no outcome yet, and signals the whole batch. */
    void failUnfinished(List<Pending<?>> batch, List<Pending<?>> done, Function<Pending<?>, Throwable> failure) {
        List<Pending<?>> signals = new ArrayList<>(done);
        for (Pending<?> p : batch) {
            if (!done.contains(p)) {
                p.fail(failure.apply(p));
                signals.add(p);
            }
        }
        publish(signals);
    }

    /** Refuses what is still queued, folds the WAL back, closes the connection and ends both threads. */
    void stop() {
        try {
            accepting = false;
            List<Pending<?>> refused = new ArrayList<>();
            Pending<?> p;
            while ((p = queue.queue.poll()) != null) {
                if (p != queue.poison) {
                    p.fail(closed(p.command));
                    refused.add(p);
                }
            }
            publish(refused);
            checkpoint();
            connection.close();
        } finally {
            threads.finish();
            stopped.complete(null);
        }
    }

    /**
     * Signals the subscribers of commands refused or failed while the writer stops, from one task
     * on the emit scheduler: the stopping leader does not run subscriber code.
     */
    private void publish(List<Pending<?>> finished) {
        if (finished.isEmpty()) {
            return;
        }
        List<Pending<?>> signals = List.copyOf(finished);
        Runnable task = () -> {
            for (Pending<?> p : signals) {
                p.signal();
            }
        };
        try {
            emit.schedule(task);
        } catch (RejectedExecutionException e) {
            task.run(); // the store is closing and its emit threads are gone: signal here
        }
    }

    /** Folds the WAL back into the database so a clean close leaves no {@code -wal} behind. */
    private void checkpoint() {
        try {
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)");
        } catch (SQLException e) {
            log.debug("checkpoint at close failed; the WAL is recovered on the next open", e);
        }
    }

    /** @return the error of a command refused because the store is closed */
    StoreClosedException closed(WriteCommand<?> command) {
        return new StoreClosedException(
                (command == null ? "operation" : command.name()) + " refused: store " + storeName + " is closed");
    }
}
