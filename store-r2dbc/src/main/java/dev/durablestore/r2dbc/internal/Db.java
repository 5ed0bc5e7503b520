package dev.durablestore.r2dbc.internal;

import dev.durablestore.api.BackendException;
import dev.durablestore.api.StoreClosedException;
import dev.durablestore.api.StoreMetrics;
import dev.durablestore.api.TransientBackendException;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.IsolationLevel;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * How every operation reaches the database: a connection from the factory per operation, each
 * write in one transaction (S21), errors mapped in one place, metrics, and the in-flight count that
 * {@link #closeAsync} waits for.
 *
 * <p>With a non-blocking driver (r2dbc-postgresql) nothing changes threads: statements run and
 * results arrive on the driver's event loop. With a driver that works on the calling thread
 * (r2dbc-h2 wraps the blocking H2 engine), every operation is subscribed on the store's own
 * scheduler, and writes of this instance go through one {@link WriteLane}.
 */
final class Db implements GroupCommit.Gate {

    private final ConnectionFactory factory;
    private final SqlDialect dialect;
    private final Scheduler scheduler;
    private final WriteLane lane;
    private final StoreMetrics metrics;
    private final String storeName;
    private final String notifyChannel;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger writesInFlight = new AtomicInteger();
    private volatile boolean closed;
    private final Sinks.Empty<Void> drained = Sinks.empty();
    private final Duration operationTimeout;
    /** Run after every write that committed (see {@link #onWriteCommitted}); nothing by default. */
    private volatile Runnable writeCommitted = () -> {};

    /**
     * @param factory where connections come from (not owned: never closed by the store)
     * @param dialect the SQL dialect
     * @param scheduler the store's scheduler for a blocking driver, or {@code null}
     * @param metrics receives timings
     * @param storeName for errors
     * @param notifyChannel the PostgreSQL channel notified when rows become claimable, or {@code null}
     * @param operationTimeout the longest one operation may take, from subscription to result
     */
    Db(
            ConnectionFactory factory,
            SqlDialect dialect,
            Scheduler scheduler,
            StoreMetrics metrics,
            String storeName,
            String notifyChannel,
            Duration operationTimeout) {
        this.operationTimeout = operationTimeout;
        this.factory = factory;
        this.dialect = dialect;
        this.scheduler = scheduler;
        this.lane = scheduler == null ? null : new WriteLane(scheduler);
        this.metrics = metrics;
        this.storeName = storeName;
        this.notifyChannel = notifyChannel;
        metrics.registerQueueDepth(() -> lane == null ? writesInFlight.get() : lane.depth());
    }

    SqlDialect dialect() {
        return dialect;
    }

    /** @return the PostgreSQL channel notified when rows become claimable, or {@code null} for none */
    String notifyChannel() {
        return notifyChannel;
    }

    /**
     * @param action run after every write that committed (on the thread that saw the commit): the
     *     database accepts writes, so it is a primary
     */
    void onWriteCommitted(Runnable action) {
        writeCommitted = action;
    }

    /** Maps a transaction failure to the error the subscriber receives; runs after the rollback. */
    interface FailureMapper {
        /**
         * @param c the connection, outside any transaction
         * @param failure what failed
         * @return the error to signal
         */
        Mono<Throwable> map(Connection c, Throwable failure);
    }

    /**
     * Runs {@code work} in one transaction and commits; any failure rolls it back whole (X8).
     *
     * @param operation the operation name
     * @param work the statements; may complete empty
     * @param <T> the result
     * @return the result, signalled after the commit returned
     */
    <T> Mono<T> write(String operation, Function<Connection, Mono<T>> work) {
        return write(operation, work, (c, e) -> Mono.just(Failures.backend(operation, e)));
    }

    /**
     * Like {@link #write(String, Function)} with a custom failure mapping (E15).
     *
     * @param operation the operation name
     * @param work the statements
     * @param onFailure maps a failure after the rollback
     * @param <T> the result
     * @return the result
     */
    <T> Mono<T> write(String operation, Function<Connection, Mono<T>> work, FailureMapper onFailure) {
        Mono<Optional<T>> tx = Mono.usingWhen(
                        Mono.from(factory.create()),
                        c -> transaction(c, work, onFailure),
                        c -> Mono.from(c.close()),
                        (c, e) -> Mono.from(c.close()),
                        c -> Mono.from(c.rollbackTransaction())
                                .onErrorResume(e -> Mono.empty())
                                .then(Mono.from(c.close())))
                // a connection that cannot be had (server down, network gone) or not released fails
                // outside transaction(): map it here too, so writes fail with BackendException (X7)
                .onErrorMap(e -> Failures.backend(operation, e))
                .doOnSuccess(committed -> writeCommitted.run());
        Mono<Optional<T>> ordered = lane != null ? lane.run(tx) : tx;
        Mono<T> counted = Mono.defer(() -> {
                    writesInFlight.incrementAndGet();
                    return ordered.doFinally(s -> writesInFlight.decrementAndGet());
                })
                .flatMap(Mono::justOrEmpty);
        return guarded(operation, counted);
    }

    /**
     * Runs statements that each commit on their own (no {@code BEGIN}/{@code COMMIT} around
     * them): for a write that one statement does whole, so its one round trip is also its commit.
     * Counted and mapped like {@link #write}; only for a non-blocking driver (PostgreSQL), whose
     * writes need no lane.
     *
     * @param operation the operation name
     * @param commands how many callers' commands the statements carry (reported to the metrics)
     * @param work the statements
     * @param <T> the result
     * @return the result, signalled once the statement committed
     */
    <T> Mono<T> autocommit(String operation, int commands, Function<Connection, Mono<T>> work) {
        return guarded(operation, unguardedAutocommit(operation, commands, work));
    }

    /**
     * Like {@link #autocommit} without the close check and the in-flight count: for the flush of a
     * {@link GroupCommit}, whose callers were each admitted by {@link #guarded} or through this
     * class as the group's gate. It keeps the operation timeout, so a database that stops
     * answering cannot hold the group's flush slot.
     *
     * @param operation the operation name
     * @param commands how many callers' commands the statements carry
     * @param work the statements
     * @param <T> the result
     * @return the result, signalled once the statement committed
     */
    <T> Mono<T> unguardedAutocommit(String operation, int commands, Function<Connection, Mono<T>> work) {
        Mono<T> run = Mono.usingWhen(
                        Mono.from(factory.create()),
                        c -> {
                            long begin = System.nanoTime();
                            return Mono.defer(() -> work.apply(c)).doOnSuccess(v -> {
                                metrics.batchCommitted(commands, System.nanoTime() - begin);
                                writeCommitted.run();
                            });
                        },
                        c -> Mono.from(c.close()))
                .onErrorMap(e -> Failures.backend(operation, e))
                .timeout(operationTimeout, Mono.error(() -> timedOut(operation)));
        return Mono.defer(() -> {
            writesInFlight.incrementAndGet();
            return run.doFinally(s -> writesInFlight.decrementAndGet());
        });
    }

    private <T> Mono<Optional<T>> transaction(
            Connection c, Function<Connection, Mono<T>> work, FailureMapper onFailure) {
        long begin = System.nanoTime();
        String lock = dialect.writeLock();
        Mono<Void> start = Mono.from(c.beginTransaction());
        if (lock != null) {
            start = start.then(Sql.update(c, lock)).then();
        }
        return start.then(Mono.defer(() -> work.apply(c)).map(Optional::of).defaultIfEmpty(Optional.empty()))
                .flatMap(result -> Mono.from(c.commitTransaction())
                        .then(Mono.fromRunnable(() -> metrics.batchCommitted(1, System.nanoTime() - begin)))
                        .thenReturn(result))
                .onErrorResume(failure -> Mono.from(c.rollbackTransaction())
                        .onErrorResume(rollbackFailure -> {
                            failure.addSuppressed(rollbackFailure);
                            return Mono.empty();
                        })
                        .then(Mono.defer(() -> onFailure.map(c, failure)))
                        .flatMap(Mono::error));
    }

    /**
     * Runs statements outside a transaction (each sees the latest committed state).
     *
     * @param operation the operation name
     * @param work the statements
     * @param <T> the result
     * @return the result
     */
    <T> Mono<T> read(String operation, Function<Connection, Mono<T>> work) {
        Mono<T> run = Mono.usingWhen(Mono.from(factory.create()), work, c -> Mono.from(c.close()));
        return guarded(operation, run.onErrorMap(e -> Failures.backend(operation, e)));
    }

    /**
     * Runs several statements in one read-only snapshot ({@code REPEATABLE READ}), so they agree.
     *
     * @param operation the operation name
     * @param work the statements
     * @param <T> the result
     * @return the result
     */
    <T> Mono<T> readConsistent(String operation, Function<Connection, Mono<T>> work) {
        Mono<T> run = Mono.usingWhen(
                Mono.from(factory.create()),
                c -> Mono.from(c.beginTransaction(IsolationLevel.REPEATABLE_READ))
                        .then(Mono.defer(() -> work.apply(c)).map(Optional::of).defaultIfEmpty(Optional.empty()))
                        .flatMap(result -> Mono.from(c.commitTransaction()).thenReturn(result))
                        .onErrorResume(e -> Mono.from(c.rollbackTransaction())
                                .onErrorResume(x -> Mono.empty())
                                .then(Mono.error(e)))
                        .flatMap(Mono::justOrEmpty),
                c -> Mono.from(c.close()));
        return guarded(operation, run.onErrorMap(e -> Failures.backend(operation, e)));
    }

    /**
     * Streams a query's rows outside a transaction.
     *
     * @param operation the operation name
     * @param work the query
     * @param <T> the row value
     * @return the rows
     */
    <T> Flux<T> stream(String operation, Function<Connection, Flux<T>> work) {
        Flux<T> run = Flux.usingWhen(Mono.from(factory.create()), work, c -> Mono.from(c.close()))
                .onErrorMap(e -> Failures.backend(operation, e));
        return Flux.defer(() -> {
            if (!enter()) {
                return Flux.error(closedError(operation));
            }
            long start = System.nanoTime();
            // only the first row is timed: later rows come at the subscriber's pace (backpressure)
            Flux<T> timed = run.timeout(
                            Mono.delay(operationTimeout), row -> Mono.never(), Flux.error(() -> timedOut(operation)))
                    .doOnComplete(() -> metrics.operation(operation, System.nanoTime() - start, true))
                    .doOnError(e -> metrics.operation(operation, System.nanoTime() - start, false))
                    .doFinally(s -> leave());
            return scheduler == null ? timed : timed.subscribeOn(scheduler);
        });
    }

    /**
     * Admits one operation: refused once the store is closed, counted in flight until it ends
     * (close waits for it), bounded by the operation timeout, timed for the metrics. Grouped appends
     * admit each caller here, grouped settles through this class as their {@link GroupCommit.Gate}
     * (the same admission, one watchdog instead of a timer per caller); both run their flushes
     * unguarded.
     *
     * @param operation the operation name
     * @param run the operation
     * @param <T> its result
     * @return the admitted operation
     */
    <T> Mono<T> guarded(String operation, Mono<T> run) {
        return Mono.defer(() -> {
            if (!enter()) {
                return Mono.error(closedError(operation));
            }
            long start = System.nanoTime();
            Mono<T> timed = run.timeout(operationTimeout, Mono.error(() -> timedOut(operation)))
                    .doOnSuccess(v -> metrics.operation(operation, System.nanoTime() - start, true))
                    .doOnError(e -> metrics.operation(operation, System.nanoTime() - start, false))
                    .doFinally(s -> leave());
            return scheduler == null ? timed : timed.subscribeOn(scheduler);
        });
    }

    // GroupCommit.Gate: what guarded() does around one operation, for the callers of a group commit
    // that each wait for a flush (GroupCommit.submit with a gate), with one watchdog per group commit
    // instead of a timer per caller. Only for a non-blocking driver (no scheduler to subscribe on).

    @Override
    public boolean enter() {
        inFlight.incrementAndGet();
        if (closed) {
            inFlight.decrementAndGet();
            return false;
        }
        return true;
    }

    /** Counts an operation out; the last one out after close lets the close go on. */
    @Override
    public void leave() {
        if (inFlight.decrementAndGet() == 0 && closed) {
            drained.tryEmitEmpty();
        }
    }

    @Override
    public Throwable refused(String operation) {
        return closedError(operation);
    }

    @Override
    public long timeoutNanos() {
        // a timeout of some centuries has no nanosecond count: it never fires
        return operationTimeout.compareTo(Duration.ofNanos(Long.MAX_VALUE)) >= 0
                ? Long.MAX_VALUE
                : operationTimeout.toNanos();
    }

    @Override
    public void ended(String operation, long nanos, boolean success) {
        metrics.operation(operation, nanos, success);
    }

    /** Runs on Reactor's parallel scheduler, where {@code Mono.timeout} runs its timers. */
    @Override
    public Disposable schedule(Runnable task, long delayNanos) {
        return Schedulers.parallel().schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    }

    /**
     * @param operation the operation that timed out
     * @return its error: the database did not answer in time (a write may still commit)
     */
    @Override
    public BackendException timedOut(String operation) {
        return new TransientBackendException(operation + " timed out after " + operationTimeout
                + ": the database did not answer" + " (a write may still commit: read it back)");
    }

    /**
     * @param operation the refused operation
     * @return the error for an operation subscribed after {@link #closeAsync}
     */
    StoreClosedException closedError(String operation) {
        return new StoreClosedException(operation + " refused: store " + storeName + " is closed");
    }

    /** @return true once {@link #closeAsync} has begun */
    boolean isClosed() {
        return closed;
    }

    /**
     * Refuses new operations, then waits for those in flight to finish, without blocking.
     *
     * @param timeout the longest wait
     * @return completes when no operation is in flight, or after {@code timeout}
     */
    Mono<Void> closeAsync(Duration timeout) {
        return Mono.defer(() -> {
            closed = true;
            if (inFlight.get() == 0) {
                drained.tryEmitEmpty();
            }
            return drained.asMono().timeout(timeout, Mono.empty());
        });
    }
}
