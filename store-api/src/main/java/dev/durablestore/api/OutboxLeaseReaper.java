package dev.durablestore.api;

import dev.durablestore.api.internal.Periodic;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Recovers rows whose dispatcher died holding them: every {@code interval}, re-arms rows claimed
 * longer ago than {@code lease} (O41), so they are claimed again. A dispatcher that works on a row
 * for longer than the lease keeps it by calling {@link ReactiveStore#heartbeat} for the rows it holds.
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

    /** The default {@link #withLease(Duration) lease}: 5 minutes. */
    public static final Duration DEFAULT_LEASE = Duration.ofMinutes(5);

    /** The default {@link #withInterval(Duration) interval} between sweeps: 30 s. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(30);

    /** The default {@link #withBatchSize(int) batch size}. */
    public static final int DEFAULT_BATCH_SIZE = 500;

    private final Settings settings;

    private OutboxLeaseReaper(Settings settings) {
        this.settings = settings;
    }

    /** Every setting, checked whenever a reaper is built. */
    private record Settings(
            OperatorStore store,
            Duration lease,
            Duration interval,
            int batchSize,
            Clock clock,
            Consumer<List<OutboxRow>> onReaped,
            Consumer<Throwable> onError) {

        Settings {
            InvalidArgumentException.requireNonNull(store, "store");
            InvalidArgumentException.requirePositive(lease, "lease");
            InvalidArgumentException.requirePositive(interval, "interval");
            InvalidArgumentException.requirePositive(batchSize, "batchSize");
            InvalidArgumentException.requireNonNull(clock, "clock");
            InvalidArgumentException.requireNonNull(onReaped, "onReaped");
            InvalidArgumentException.requireNonNull(onError, "onError");
        }
    }

    /**
     * The settings being changed: the one way a reaper is copied. Starts from the defaults or from
     * a reaper; {@link #build()} checks the whole.
     */
    private static final class Draft {
        private OperatorStore store;
        private Duration lease = DEFAULT_LEASE;
        private Duration interval = DEFAULT_INTERVAL;
        private int batchSize = DEFAULT_BATCH_SIZE;
        private Clock clock = Clock.systemUTC();
        private Consumer<List<OutboxRow>> onReaped = rows -> {};
        private Consumer<Throwable> onError = e -> {};

        private Draft(OperatorStore store) {
            this.store = store;
        }

        private Draft(Settings s) {
            store = s.store();
            lease = s.lease();
            interval = s.interval();
            batchSize = s.batchSize();
            clock = s.clock();
            onReaped = s.onReaped();
            onError = s.onError();
        }

        private OutboxLeaseReaper build() {
            return new OutboxLeaseReaper(new Settings(store, lease, interval, batchSize, clock, onReaped, onError));
        }
    }

    /** @return a checked copy of this reaper with {@code change} made to it */
    private OutboxLeaseReaper with(Consumer<Draft> change) {
        Draft draft = new Draft(settings);
        change.accept(draft);
        return draft.build();
    }

    /**
     * @param store the outbox to watch
     * @return a reaper with a 5 minute lease, a 30 s interval, batches of {@value #DEFAULT_BATCH_SIZE},
     *     the UTC system clock, and no callbacks
     * @throws InvalidArgumentException naming {@code store} when null
     */
    public static OutboxLeaseReaper of(OperatorStore store) {
        return new Draft(store).build();
    }

    /**
     * @param value how long a claim may go without a heartbeat before its row is re-armed; positive
     * @return a copy with the lease set
     * @throws InvalidArgumentException naming {@code lease} when null or not positive
     */
    public OutboxLeaseReaper withLease(Duration value) {
        return with(d -> d.lease = value);
    }

    /**
     * @param value time between sweeps; positive
     * @return a copy with the interval set
     * @throws InvalidArgumentException naming {@code interval} when null or not positive
     */
    public OutboxLeaseReaper withInterval(Duration value) {
        return with(d -> d.interval = value);
    }

    /**
     * @param value most rows re-armed per transaction, at least 1 (any larger value is valid: it
     *     bounds the batch, it does not size memory); a sweep repeats until fewer are found
     * @return a copy with the batch size set
     * @throws InvalidArgumentException naming {@code batchSize} when below 1
     */
    public OutboxLeaseReaper withBatchSize(int value) {
        return with(d -> d.batchSize = value);
    }

    /**
     * @param value the clock the lease is measured against (the store's clock)
     * @return a copy with the clock set
     * @throws InvalidArgumentException naming {@code clock} when null
     */
    public OutboxLeaseReaper withClock(Clock value) {
        return with(d -> d.clock = value);
    }

    /**
     * @param value called with each non-empty batch of re-armed rows (for logging or metrics)
     * @return a copy with the callback set
     * @throws InvalidArgumentException naming {@code onReaped} when null
     */
    public OutboxLeaseReaper withOnReaped(Consumer<List<OutboxRow>> value) {
        return with(d -> d.onReaped = value);
    }

    /**
     * @param value called when a sweep fails; the reaper keeps running
     * @return a copy with the callback set
     * @throws InvalidArgumentException naming {@code onError} when null
     */
    public OutboxLeaseReaper withOnError(Consumer<Throwable> value) {
        return with(d -> d.onError = value);
    }

    /**
     * One sweep: re-arms every row claimed before {@code now - lease}, in batches, visible now.
     *
     * @return the number of rows re-armed
     */
    public Mono<Long> reapOnce() {
        return Mono.defer(() -> {
            Instant now = settings.clock().instant();
            Instant olderThan = now.minus(settings.lease());
            return settings.store()
                    .rearmStaleClaimed(olderThan, now, settings.batchSize())
                    .doOnNext(rows -> {
                        if (!rows.isEmpty()) {
                            settings.onReaped().accept(rows);
                        }
                    })
                    .repeat()
                    .takeUntil(rows -> rows.size() < settings.batchSize())
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
        return Periodic.every(settings.interval(), timer, this::reapOnce, settings.onError(), log, "lease reaper");
    }
}
