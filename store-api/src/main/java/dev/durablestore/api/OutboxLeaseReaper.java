package dev.durablestore.api;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Recovers rows whose dispatcher died holding them: every {@code interval}, re-arms rows claimed
 * longer ago than {@code lease} (O41), so they are claimed again. A dispatcher that works on a row
 * for longer than the lease keeps it by calling {@link OutboxStore#heartbeat} for the keys it holds.
 *
 * <p>Immutable configuration, validated when built: each {@code with*} method returns a checked
 * copy and leaves this one unchanged, so its result must be used (a {@code with*} call as a
 * statement does nothing; Error Prone reports it). {@link #start()} runs it until the returned
 * {@link Disposable} is disposed.
 *
 * <pre>{@code
 * Disposable reaper = OutboxLeaseReaper.of(store)
 *         .withLease(Duration.ofMinutes(5))
 *         .withInterval(Duration.ofSeconds(30))
 *         .start();
 * }</pre>
 */
public final class OutboxLeaseReaper {

    private static final Logger log = LoggerFactory.getLogger(OutboxLeaseReaper.class);

    private final OutboxStore store;
    private final Duration lease;
    private final Duration interval;
    private final int batchSize;
    private final Clock clock;
    private final Consumer<List<OutboxRow>> onReaped;
    private final Consumer<Throwable> onError;

    private OutboxLeaseReaper(
            OutboxStore store,
            Duration lease,
            Duration interval,
            int batchSize,
            Clock clock,
            Consumer<List<OutboxRow>> onReaped,
            Consumer<Throwable> onError) {
        this.store = store;
        this.lease = lease;
        this.interval = interval;
        this.batchSize = batchSize;
        this.clock = clock;
        this.onReaped = onReaped;
        this.onError = onError;
    }

    /**
     * @param store the outbox to watch
     * @return a reaper with a 5 minute lease, a 30 s interval, batches of 500, the UTC system
     *     clock, and no callbacks
     */
    public static OutboxLeaseReaper of(OutboxStore store) {
        InvalidArgumentException.requireNonNull(store, "store");
        return new OutboxLeaseReaper(
                store, Duration.ofMinutes(5), Duration.ofSeconds(30), 500, Clock.systemUTC(), rows -> {}, e -> {});
    }

    /**
     * @param value how long a claim may go without a heartbeat before its row is re-armed; positive
     * @return a copy with the lease set
     * @throws InvalidArgumentException naming {@code lease} when null or not positive
     */
    public OutboxLeaseReaper withLease(Duration value) {
        return new OutboxLeaseReaper(store, positive(value, "lease"), interval, batchSize, clock, onReaped, onError);
    }

    /**
     * @param value time between sweeps; positive
     * @return a copy with the interval set
     * @throws InvalidArgumentException naming {@code interval} when null or not positive
     */
    public OutboxLeaseReaper withInterval(Duration value) {
        return new OutboxLeaseReaper(store, lease, positive(value, "interval"), batchSize, clock, onReaped, onError);
    }

    /**
     * @param value most rows re-armed per transaction; a sweep repeats until fewer are found
     * @return a copy with the batch size set
     * @throws InvalidArgumentException naming {@code batchSize} when below 1
     */
    public OutboxLeaseReaper withBatchSize(int value) {
        if (value < 1) {
            throw new InvalidArgumentException("batchSize", "must be at least 1, was " + value);
        }
        return new OutboxLeaseReaper(store, lease, interval, value, clock, onReaped, onError);
    }

    /**
     * @param value the clock the lease is measured against (the store's clock)
     * @return a copy with the clock set
     * @throws InvalidArgumentException naming {@code clock} when null
     */
    public OutboxLeaseReaper withClock(Clock value) {
        InvalidArgumentException.requireNonNull(value, "clock");
        return new OutboxLeaseReaper(store, lease, interval, batchSize, value, onReaped, onError);
    }

    /**
     * @param value called with each non-empty batch of re-armed rows (for logging or metrics)
     * @return a copy with the callback set
     * @throws InvalidArgumentException naming {@code onReaped} when null
     */
    public OutboxLeaseReaper withOnReaped(Consumer<List<OutboxRow>> value) {
        InvalidArgumentException.requireNonNull(value, "onReaped");
        return new OutboxLeaseReaper(store, lease, interval, batchSize, clock, value, onError);
    }

    /**
     * @param value called when a sweep fails; the reaper keeps running
     * @return a copy with the callback set
     * @throws InvalidArgumentException naming {@code onError} when null
     */
    public OutboxLeaseReaper withOnError(Consumer<Throwable> value) {
        InvalidArgumentException.requireNonNull(value, "onError");
        return new OutboxLeaseReaper(store, lease, interval, batchSize, clock, onReaped, value);
    }

    /**
     * One sweep: re-arms every row claimed before {@code now - lease}, in batches, visible now.
     *
     * @return the number of rows re-armed
     */
    public Mono<Long> reapOnce() {
        return Mono.defer(() -> {
            Instant now = clock.instant();
            Instant olderThan = now.minus(lease);
            return store.rearmStaleClaimed(olderThan, now, batchSize)
                    .doOnNext(rows -> {
                        if (!rows.isEmpty()) {
                            onReaped.accept(rows);
                        }
                    })
                    .repeat()
                    .takeUntil(rows -> rows.size() < batchSize)
                    .reduce(0L, (sum, rows) -> sum + rows.size());
        });
    }

    /**
     * Sweeps every interval on Reactor's parallel scheduler until disposed. A failed sweep is
     * reported to the {@link #withOnError(Consumer) onError} callback and the next one runs as
     * planned, except once the store is closed: the {@link StoreClosedException} is reported once
     * and the reaper stops.
     *
     * @return disposes the reaper
     */
    public Disposable start() {
        return start(Schedulers.parallel());
    }

    /**
     * @param timer the scheduler that times the sweeps (a virtual-time scheduler in tests)
     * @return disposes the reaper
     */
    public Disposable start(Scheduler timer) {
        Objects.requireNonNull(timer, "timer");
        return Flux.interval(interval, interval, timer)
                .onBackpressureDrop()
                .concatMap(
                        tick -> reapOnce().onErrorResume(e -> {
                            report(e);
                            // a closed store stays closed: report it once and stop sweeping
                            return e instanceof StoreClosedException ? Mono.error(e) : Mono.empty();
                        }),
                        1)
                .onErrorComplete(StoreClosedException.class)
                .subscribe();
    }

    /** Hands a failure to the user's callback; a callback that throws must not end the reaper. */
    private void report(Throwable e) {
        try {
            onError.accept(e);
        } catch (RuntimeException callbackFailure) {
            callbackFailure.addSuppressed(e);
            log.warn("the lease reaper's onError callback threw", callbackFailure);
        }
    }

    private static Duration positive(Duration value, String argument) {
        InvalidArgumentException.requireNonNull(value, argument);
        if (value.isNegative() || value.isZero()) {
            throw new InvalidArgumentException(argument, "must be positive, was " + value);
        }
        return value;
    }
}
