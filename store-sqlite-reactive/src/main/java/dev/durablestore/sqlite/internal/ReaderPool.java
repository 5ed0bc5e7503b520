package dev.durablestore.sqlite.internal;

import dev.durablestore.api.StoreClosedException;
import dev.durablestore.api.StoreMetrics;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * A fixed set of read-only connections served on a bounded scheduler that the store creates, names
 * and owns (never Reactor's shared bounded-elastic scheduler). WAL lets these read while the writer
 * writes; each read sees committed data only (S23).
 */
final class ReaderPool {

    /** A read against one borrowed connection. */
    @FunctionalInterface
    interface Read<T> {
        /**
         * @param c a read-only connection, for this call only
         * @return the result (null for empty)
         * @throws SQLException on failure
         */
        T apply(DbConnection c) throws SQLException;
    }

    private final BlockingQueue<DbConnection> idle;
    private final Scheduler scheduler;
    private final Scheduler emit;
    private final String storeName;
    private final StoreMetrics metrics;
    private volatile boolean closed;

    /**
     * @param size number of connections and threads
     * @param opener opens one read-only connection
     * @param emit where subscribers are signalled
     * @param storeName used in thread names and errors
     * @param metrics receives read timings
     */
    ReaderPool(int size, Supplier<DbConnection> opener, Scheduler emit, String storeName, StoreMetrics metrics) {
        this.idle = new ArrayBlockingQueue<>(size);
        for (int i = 0; i < size; i++) {
            idle.add(opener.get());
        }
        this.scheduler =
                Schedulers.newBoundedElastic(size, Integer.MAX_VALUE, "durable-store-reader-" + storeName, 60, true);
        this.emit = emit;
        this.storeName = storeName;
        this.metrics = metrics;
    }

    /**
     * @param operation the operation name, for errors
     * @param read the read
     * @param <T> result type
     * @return a cold Mono running the read on a reader thread
     */
    <T> Mono<T> read(String operation, Read<T> read) {
        return Mono.defer(() -> closed ? Mono.error(closed(operation)) : readOpen(operation, read));
    }

    private StoreClosedException closed(String operation) {
        return new StoreClosedException(operation + " refused: store " + storeName + " is closed");
    }

    private <T> Mono<T> readOpen(String operation, Read<T> read) {
        return Mono.fromCallable(() -> {
                    long started = System.nanoTime();
                    boolean ok = false;
                    if (closed) {
                        throw closed(operation);
                    }
                    DbConnection c = idle.take();
                    try {
                        T result = read.apply(c);
                        ok = true;
                        return result;
                    } catch (SQLException e) {
                        c.resetStatements();
                        throw Failures.backend(operation, e);
                    } catch (RuntimeException e) {
                        throw Failures.backend(operation, e);
                    } finally {
                        metrics.operation(operation, System.nanoTime() - started, ok);
                        if (closed) {
                            c.close();
                        } else {
                            idle.add(c);
                        }
                    }
                })
                .subscribeOn(scheduler)
                .publishOn(emit);
    }

    /**
     * Like {@link #read} inside one read transaction, so every statement sees the same snapshot.
     *
     * @param operation the operation name
     * @param read the read
     * @param <T> result type
     * @return a cold Mono
     */
    <T> Mono<T> readConsistent(String operation, Read<T> read) {
        return read(operation, c -> {
            c.execute("BEGIN");
            try {
                return read.apply(c);
            } finally {
                c.execute("COMMIT");
            }
        });
    }

    /**
     * Refuses new reads, lets the queued ones run (each fails at once with
     * {@link StoreClosedException}, so none is left unanswered), waits for the running ones, then
     * closes the connections. Blocks nobody.
     *
     * @return completes when the reader threads have stopped and every connection is closed
     */
    Mono<Void> closeAsync() {
        return Mono.defer(() -> {
            closed = true;
            return scheduler
                    .disposeGracefully()
                    .timeout(Duration.ofSeconds(30))
                    .onErrorResume(e -> {
                        scheduler.dispose(); // a read that did not end in 30 s: stop waiting for it
                        return Mono.empty();
                    })
                    .then(Mono.fromRunnable(this::closeIdle));
        });
    }

    private void closeIdle() {
        DbConnection c;
        while ((c = idle.poll()) != null) {
            c.close();
        }
    }
}
