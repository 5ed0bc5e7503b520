package dev.durablestore.api;

import dev.durablestore.api.internal.Periodic;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Deletes closed workflows whose retention ran out (D12): every {@code interval}, runs one pass of
 * {@link OperatorStore#sweepRetention} steps under its {@link RetentionPolicy}, each step at most
 * {@code batchSize} workflows, until a step says the pass is over; then, when it reports to
 * {@link StoreMetrics}, reads the {@linkplain OperatorStore#retentionBacklog backlog} for them.
 * A failed pass is logged in one line and the next one runs as planned.
 *
 * <p>Immutable configuration, validated when built: each {@code with*} method returns a checked
 * copy and leaves this one unchanged, so its result must be used. {@link #start()} runs it until
 * the returned {@link Disposable} is disposed.
 *
 * <pre>{@code
 * Disposable sweeper = RetentionSweeper.of(store, RetentionPolicy.closedFor(Duration.ofDays(30)))
 *         .withInterval(Duration.ofMinutes(10))
 *         .start();
 * }</pre>
 */
public final class RetentionSweeper {

    private static final Logger log = LoggerFactory.getLogger(RetentionSweeper.class);

    /** The default {@link #withInterval(Duration) interval} between passes: 5 minutes. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofMinutes(5);

    /** The default {@link #withBatchSize(int) batch size}: closed workflows read per step. */
    public static final int DEFAULT_BATCH_SIZE = 500;

    private final Settings settings;

    private RetentionSweeper(Settings settings) {
        this.settings = settings;
    }

    /** Every setting, checked whenever a sweeper is built. */
    private record Settings(
            OperatorStore store,
            RetentionPolicy policy,
            Duration interval,
            int batchSize,
            Clock clock,
            StoreMetrics metrics,
            Consumer<Throwable> onError) {

        Settings {
            InvalidArgumentException.requireNonNull(store, "store");
            InvalidArgumentException.requireNonNull(policy, "policy");
            InvalidArgumentException.requirePositive(interval, "interval");
            InvalidArgumentException.requirePositive(batchSize, "batchSize");
            InvalidArgumentException.requireNonNull(clock, "clock");
            InvalidArgumentException.requireNonNull(metrics, "metrics");
            InvalidArgumentException.requireNonNull(onError, "onError");
        }

        Settings with(Duration newInterval, int newBatchSize, Clock newClock, StoreMetrics newMetrics) {
            return new Settings(store, policy, newInterval, newBatchSize, newClock, newMetrics, onError);
        }
    }

    /**
     * @param store the store to sweep
     * @param policy how long closed workflows are kept
     * @return a sweeper with a 5 minute interval, steps of {@value #DEFAULT_BATCH_SIZE} workflows,
     *     the UTC system clock, no metrics, and failures logged in one line
     * @throws InvalidArgumentException naming {@code store} or {@code policy} when null
     */
    public static RetentionSweeper of(OperatorStore store, RetentionPolicy policy) {
        return new RetentionSweeper(new Settings(
                store,
                policy,
                DEFAULT_INTERVAL,
                DEFAULT_BATCH_SIZE,
                Clock.systemUTC(),
                StoreMetrics.NONE,
                RetentionSweeper::logFailure));
    }

    /**
     * @param value time between passes; positive
     * @return a copy with the interval set
     * @throws InvalidArgumentException naming {@code interval} when null or not positive
     */
    public RetentionSweeper withInterval(Duration value) {
        return new RetentionSweeper(settings.with(value, settings.batchSize(), settings.clock(), settings.metrics()));
    }

    /**
     * @param value the most closed workflows one step reads and deletes, at least 1; a pass repeats
     *     steps until the last closed workflow is read (the SQLite store also cuts a step's deletes
     *     into writes of about 2,000 rows each)
     * @return a copy with the batch size set
     * @throws InvalidArgumentException naming {@code batchSize} when below 1
     */
    public RetentionSweeper withBatchSize(int value) {
        return new RetentionSweeper(settings.with(settings.interval(), value, settings.clock(), settings.metrics()));
    }

    /**
     * @param value the clock retentions are measured against (the store's clock)
     * @return a copy with the clock set
     * @throws InvalidArgumentException naming {@code clock} when null
     */
    public RetentionSweeper withClock(Clock value) {
        return new RetentionSweeper(
                settings.with(settings.interval(), settings.batchSize(), value, settings.metrics()));
    }

    /**
     * @param value receives each step that deleted rows ({@link StoreMetrics#retentionSwept}) and,
     *     after each pass, the backlog ({@link StoreMetrics#retentionBacklog}), which costs a read of
     *     every closed workflow; {@link StoreMetrics#NONE} (the default) reads no backlog
     * @return a copy with the metrics set
     * @throws InvalidArgumentException naming {@code metrics} when null
     */
    public RetentionSweeper withMetrics(StoreMetrics value) {
        return new RetentionSweeper(settings.with(settings.interval(), settings.batchSize(), settings.clock(), value));
    }

    /**
     * @param value called when a pass fails, instead of the one-line log; the sweeper keeps running
     * @return a copy with the callback set
     * @throws InvalidArgumentException naming {@code onError} when null
     */
    public RetentionSweeper withOnError(Consumer<Throwable> value) {
        Settings s = settings;
        return new RetentionSweeper(
                new Settings(s.store(), s.policy(), s.interval(), s.batchSize(), s.clock(), s.metrics(), value));
    }

    /** @return the policy this sweeper applies */
    public RetentionPolicy policy() {
        return settings.policy();
    }

    /**
     * One pass: steps of {@link OperatorStore#sweepRetention} from the first closed workflow until a
     * step reaches the last one, all measured back from one reading of the clock.
     *
     * @return the sum of the steps ({@link RetentionSweep#resumeAfter()} {@code null})
     */
    public Mono<RetentionSweep> sweepOnce() {
        return Mono.defer(() -> {
            Instant now = settings.clock().instant();
            RetentionPolicy policy = settings.policy();
            int batch = settings.batchSize();
            Mono<RetentionSweep> first = settings.store().sweepRetention(policy, now, batch, null);
            return first.expand(step -> step.more()
                            ? settings.store().sweepRetention(policy, now, batch, step.resumeAfter())
                            : Mono.empty())
                    .doOnNext(step -> {
                        if (step.rowsDeleted() > 0 || step.workflowsDeleted() > 0) {
                            settings.metrics().retentionSwept(step);
                        }
                    })
                    .reduce(new RetentionSweep(0, 0, 0, 0, 0, 0, null), RetentionSweeper::sum)
                    .flatMap(total -> settings.metrics() == StoreMetrics.NONE
                            ? Mono.just(total)
                            : settings.store()
                                    .retentionBacklog(policy, now)
                                    .doOnNext(settings.metrics()::retentionBacklog)
                                    .thenReturn(total));
        });
    }

    private static RetentionSweep sum(RetentionSweep a, RetentionSweep b) {
        return new RetentionSweep(
                a.workflowsDeleted() + b.workflowsDeleted(),
                a.eventsDeleted() + b.eventsDeleted(),
                a.timersDeleted() + b.timersDeleted(),
                a.outboxRowsDeleted() + b.outboxRowsDeleted(),
                a.settledRowsPruned() + b.settledRowsPruned(),
                a.lateAppends() + b.lateAppends(),
                null);
    }

    /**
     * Runs a pass every interval on Reactor's parallel scheduler until disposed. A failed pass is
     * reported to the {@link #withOnError(Consumer) onError} callback (by default one log line) and
     * the next one runs as planned, except once the store is closed: the
     * {@link StoreClosedException} is reported once and the sweeper stops.
     *
     * @return disposes the sweeper
     */
    public Disposable start() {
        return start(Schedulers.parallel());
    }

    /**
     * @param timer the scheduler that times the passes (a virtual-time scheduler in tests)
     * @return disposes the sweeper
     */
    public Disposable start(Scheduler timer) {
        Objects.requireNonNull(timer, "timer");
        return Periodic.every(
                settings.interval(), timer, this::sweepOnce, settings.onError(), log, "retention sweeper");
    }

    private static void logFailure(Throwable e) {
        log.warn("a retention sweep failed, the next one runs as planned: {}", String.valueOf(e));
    }
}
