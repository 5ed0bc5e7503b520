package dev.durablestore.sqlite.internal;

import dev.durablestore.api.StoreClosedException;
import dev.durablestore.api.StoreException;
import dev.durablestore.api.StoreMetrics;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.core.scheduler.Scheduler;

/**
 * The single writer: one thread owns the only write connection and drains a queue of
 * {@link WriteCommand}s in group commits. Each batch is one {@code BEGIN IMMEDIATE} transaction;
 * every command's subscriber is signalled only after the commit that holds it has returned
 * (nothing is acknowledged before it is durable). Commands run in queue order, so the writer is
 * the serialization point for guards and claims.
 */
public final class Writer {

    private static final Logger log = LoggerFactory.getLogger(Writer.class);

    private final DbConnection connection;
    /** Lock-free, so submitting never parks a non-blocking subscriber thread. */
    private final ConcurrentLinkedQueue<Pending<?>> queue = new ConcurrentLinkedQueue<>();
    private final Pending<Void> poison = new Pending<>(null, null, StoreMetrics.NONE);
    private final int maxBatch;
    private final Scheduler emit;
    private final Runnable onWake;
    private final StoreMetrics metrics;
    private final Thread thread;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final String storeName;
    private final List<TransactionListener> listeners = new java.util.concurrent.CopyOnWriteArrayList<>();
    private volatile boolean accepting = true;
    /** Size and duration of the last batch, read and written by the writer thread only. */
    private int lastBatchSize;
    private long lastBatchNanos;
    /** The longest the writer waits for stragglers before a commit: 0.2 ms. */
    private static final long MAX_LINGER_NANOS = 200_000L;

    /** Told about every transaction the writer opens and how it ends; called on the writer thread. */
    public interface TransactionListener {
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
     * @param emit where subscribers are signalled (never the writer thread)
     * @param onWake called after a commit that may have made outbox rows claimable
     * @param metrics receives operation timings and commit batch sizes
     * @param storeName used in the thread name and in errors
     */
    public Writer(DbConnection connection, int maxBatch, Scheduler emit, Runnable onWake, StoreMetrics metrics,
            String storeName) {
        this.connection = connection;
        this.maxBatch = maxBatch;
        this.emit = emit;
        this.onWake = onWake;
        this.metrics = metrics;
        metrics.registerQueueDepth(queue::size);
        this.storeName = storeName;
        this.thread = new Thread(this::loop, "durable-store-writer-" + storeName);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /**
     * Queues a command when subscribed.
     *
     * @param command the command
     * @param <T> its result type
     * @return a cold Mono signalled after the command's transaction committed (or failed)
     */
    public <T> Mono<T> submit(WriteCommand<T> command) {
        return Mono.defer(() -> {
            if (!accepting) {
                return Mono.error(closed(command));
            }
            return Mono.<T>create(sink -> {
                if (!accepting) {
                    sink.error(closed(command));
                    return;
                }
                Pending<T> p = new Pending<>(command, sink, metrics);
                sink.onCancel(p::cancel);
                queue.add(p);
                LockSupport.unpark(thread);
            }).publishOn(emit);
        });
    }

    /**
     * @param listener told about every transaction from now on; must be registered before commands
     *     that rely on it are submitted
     */
    public void addListener(TransactionListener listener) {
        listeners.add(listener);
    }

    /** @return commands waiting for the writer */
    public int queueDepth() {
        return queue.size();
    }

    /**
     * Stops accepting commands, lets the queued ones finish, then closes the write connection.
     *
     * @param timeoutMillis how long to wait for queued commands
     */
    public void close(long timeoutMillis) {
        if (!accepting) {
            awaitStop(timeoutMillis);
            return;
        }
        accepting = false;
        queue.add(poison);
        LockSupport.unpark(thread);
        awaitStop(timeoutMillis);
    }

    private void awaitStop(long timeoutMillis) {
        try {
            if (!stopped.await(timeoutMillis, TimeUnit.MILLISECONDS)) {
                thread.interrupt();
                stopped.await(timeoutMillis, TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void loop() {
        List<Pending<?>> batch = new ArrayList<>();
        try {
            boolean stop = false;
            while (!stop) {
                Pending<?> first = take();
                if (first == poison) {
                    break;
                }
                batch.add(first);
                stop = gather(batch, System.nanoTime() + lingerNanos(batch.size()));
                long began = System.nanoTime();
                runBatch(batch);
                lastBatchSize = batch.size();
                lastBatchNanos = System.nanoTime() - began;
                batch.clear();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            for (Pending<?> p : batch) {
                p.fail(closed(p.command));
            }
        } catch (Throwable t) {
            log.error("durable-store writer {} stopped unexpectedly", storeName, t);
            for (Pending<?> p : batch) {
                p.fail(Failures.backend(p.command.name(), t));
            }
        } finally {
            accepting = false;
            Pending<?> p;
            while ((p = queue.poll()) != null) {
                if (p != poison) {
                    p.fail(closed(p.command));
                }
            }
            checkpoint();
            connection.close();
            stopped.countDown();
        }
    }

    /**
     * Adds waiting commands to the batch, up to {@code maxBatch}. When the batch is much smaller
     * than the previous one, the previous batch's subscribers are most likely about to send their
     * next commands; waiting for them until {@code lingerUntil} (a fraction of the last commit's
     * duration) lets one commit carry them all instead of two.
     *
     * @return true when the close marker was met (the batch still runs)
     */
    private boolean gather(List<Pending<?>> batch, long lingerUntil) {
        boolean stop = false;
        while (batch.size() < maxBatch) {
            Pending<?> next = queue.poll();
            if (next == null) {
                long wait = lingerUntil - System.nanoTime();
                if (stop || wait <= 0 || batch.size() >= lastBatchSize) {
                    break;
                }
                LockSupport.parkNanos(this, wait); // every submit unparks the writer
                continue;
            }
            if (next == poison) {
                stop = true;
            } else if (stop) {
                next.fail(closed(next.command));
            } else {
                batch.add(next);
            }
        }
        return stop;
    }

    /** How long to wait for more commands: none unless the batch is under half the last one. */
    private long lingerNanos(int size) {
        if (size * 2 > lastBatchSize) {
            return 0;
        }
        return Math.min(MAX_LINGER_NANOS, lastBatchNanos / 4);
    }

    private Pending<?> take() throws InterruptedException {
        Pending<?> p;
        while ((p = queue.poll()) == null) {
            LockSupport.park(this);
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
        }
        return p;
    }

    /** Folds the WAL back into the database so a clean close leaves no {@code -wal} behind. */
    private void checkpoint() {
        try {
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)");
        } catch (SQLException e) {
            log.debug("checkpoint at close failed; the WAL is recovered on the next open", e);
        }
    }

    private void runBatch(List<Pending<?>> batch) {
        List<Pending<?>> todo = new ArrayList<>(batch.size());
        for (Pending<?> p : batch) {
            if (!p.cancelled) {
                todo.add(p);
            }
        }
        while (!todo.isEmpty()) {
            long began = System.nanoTime();
            try {
                connection.execute("BEGIN IMMEDIATE");
            } catch (SQLException e) {
                connection.resetStatements();
                failAll(todo, e);
                return;
            }
            try {
                for (TransactionListener l : listeners) {
                    l.afterBegin(connection);
                }
            } catch (SQLException | RuntimeException e) {
                rollbackQuietly();
                failAll(todo, e);
                return;
            }
            int failedAt = -1;
            Throwable failure = null;
            for (int i = 0; i < todo.size(); i++) {
                Pending<?> p = todo.get(i);
                try {
                    p.run(connection);
                } catch (StoreException rejected) {
                    p.reject(rejected);
                } catch (Throwable t) {
                    failedAt = i;
                    failure = t;
                    break;
                }
            }
            if (failedAt >= 0) {
                rollbackQuietly();
                Pending<?> bad = todo.remove(failedAt);
                bad.fail(mapFailure(bad, failure));
                continue; // the others wrote nothing durable: run them again
            }
            try {
                for (TransactionListener l : listeners) {
                    l.beforeCommit();
                }
                connection.execute("COMMIT");
            } catch (SQLException e) {
                rollbackQuietly();
                failAll(todo, e);
                return;
            }
            for (TransactionListener l : listeners) {
                l.afterCommit();
            }
            boolean wake = false;
            for (Pending<?> p : todo) {
                wake |= p.deliver();
            }
            metrics.batchCommitted(todo.size(), System.nanoTime() - began);
            if (wake) {
                onWake.run();
            }
            return;
        }
    }

    private void failAll(List<Pending<?>> todo, Throwable failure) {
        for (Pending<?> p : todo) {
            p.fail(mapFailure(p, failure));
        }
    }

    private Throwable mapFailure(Pending<?> p, Throwable failure) {
        try {
            return p.command.onTransactionFailure(connection, failure);
        } catch (Throwable t) {
            failure.addSuppressed(t);
            return Failures.backend(p.command.name(), failure);
        }
    }

    private void rollbackQuietly() {
        connection.resetStatements();
        for (TransactionListener l : listeners) {
            l.afterRollback();
        }
        try {
            connection.execute("ROLLBACK");
        } catch (SQLException e) {
            log.debug("rollback after failure also failed (no transaction left open?)", e);
        }
    }

    private StoreClosedException closed(WriteCommand<?> command) {
        return new StoreClosedException(
                (command == null ? "operation" : command.name()) + " refused: store " + storeName + " is closed");
    }

    /** A queued command with its subscriber and its outcome in the current transaction. */
    private static final class Pending<T> {
        final WriteCommand<T> command;
        final MonoSink<T> sink;
        final StoreMetrics metrics;
        final long queuedAt = System.nanoTime();
        volatile boolean cancelled;
        T value;
        Throwable rejection;

        Pending(WriteCommand<T> command, MonoSink<T> sink, StoreMetrics metrics) {
            this.command = command;
            this.sink = sink;
            this.metrics = metrics;
        }

        void cancel() {
            cancelled = true;
        }

        void run(DbConnection c) throws SQLException {
            rejection = null;
            value = command.execute(c);
        }

        void reject(StoreException e) {
            value = null;
            rejection = e;
        }

        /** @return true when the command succeeded and wakes claimers */
        boolean deliver() {
            if (rejection != null) {
                fail(rejection);
                return false;
            }
            metrics.operation(command.name(), System.nanoTime() - queuedAt, true);
            if (value == null) {
                sink.success();
            } else {
                sink.success(value);
            }
            return command.wakesClaimers();
        }

        void fail(Throwable t) {
            metrics.operation(command.name(), System.nanoTime() - queuedAt, false);
            sink.error(t);
        }
    }
}
