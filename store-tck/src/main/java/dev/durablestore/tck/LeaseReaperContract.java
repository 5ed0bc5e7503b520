package dev.durablestore.tck;

import static dev.durablestore.tck.OutboxFixtures.row;
import static dev.durablestore.tck.OutboxFixtures.workflow;
import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.BackendException;
import dev.durablestore.api.OperatorStore;
import dev.durablestore.api.OutboxLeaseReaper;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * The lease reaper started on a store (O41, O42): it sweeps at each interval of a virtual-time
 * scheduler, re-arms exactly the rows whose lease ran out by the store's clock, in batches, goes on
 * after a failed sweep, and stops when disposed. No test waits for the wall clock: the scheduler
 * and the store's clock are moved by hand, and a sweep's end is awaited through the store calls it
 * makes.
 */
public abstract class LeaseReaperContract extends OutboxContractSupport {

    private static final Duration LEASE = Duration.ofMinutes(5);
    private static final Duration INTERVAL = Duration.ofSeconds(30);

    private final VirtualTimeScheduler timer = VirtualTimeScheduler.create();
    /**
     * {@code rearmStaleClaimed} batches the reaper ran so far, counted when subscribed (the reaper
     * subscribes again to one call's {@code Mono} for each further batch), on the timer's thread.
     */
    private final AtomicInteger calls = new AtomicInteger();
    /** How many rows each finished call re-armed, -1 for a failed call. */
    private final BlockingQueue<Integer> finished = new LinkedBlockingQueue<>();
    /** Calls to fail before the store answers again. */
    private final AtomicInteger failNext = new AtomicInteger();

    private final List<List<OutboxRow>> reaped = new CopyOnWriteArrayList<>();
    private final List<Throwable> reported = new CopyOnWriteArrayList<>();
    private Disposable running;

    @AfterEach
    void stopReaper() {
        if (running != null) {
            running.dispose();
        }
        timer.dispose();
    }

    /** The store as the reaper sees it: every {@code rearmStaleClaimed} call counted and observed. */
    @SuppressWarnings("unchecked")
    private OperatorStore observed() {
        return (OperatorStore) Proxy.newProxyInstance(
                OperatorStore.class.getClassLoader(), new Class<?>[] {OperatorStore.class}, (proxy, method, args) -> {
                    if (!method.getName().equals("rearmStaleClaimed")) {
                        try {
                            return method.invoke(store, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    }
                    Mono<List<OutboxRow>> real = (Mono<List<OutboxRow>>) method.invoke(store, args);
                    return Mono.defer(() -> failNext.getAndUpdate(n -> Math.max(0, n - 1)) > 0
                                    ? Mono.<List<OutboxRow>>error(new BackendException("injected sweep failure"))
                                    : real)
                            .doOnSubscribe(s -> calls.incrementAndGet())
                            .doOnSuccess(rows -> finished.add(rows == null ? 0 : rows.size()))
                            .doOnError(e -> finished.add(-1));
                });
    }

    private OutboxLeaseReaper reaper(int batchSize) {
        return OutboxLeaseReaper.of(observed())
                .withLease(LEASE)
                .withInterval(INTERVAL)
                .withBatchSize(batchSize)
                .withClock(clock)
                .withOnReaped(reaped::add)
                .withOnError(reported::add);
    }

    /** @return what the next finished {@code rearmStaleClaimed} call re-armed (-1: it failed) */
    private int nextCall() throws InterruptedException {
        Integer n = finished.poll(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(n).as("a rearmStaleClaimed call finished within " + TIMEOUT).isNotNull();
        return n;
    }

    /**
     * Waits until {@code onReaped} has had {@code batches} batches, and checks there are no more.
     * The reaper hands a batch on after the store call that re-armed it finished, so a test that
     * has seen the call finish ({@link #nextCall}) may not see the batch yet.
     */
    private void awaitReaped(int batches) {
        awaitTrue(batches + " batches handed to onReaped", () -> Mono.just(reaped.size() >= batches));
        assertThat(reaped).hasSize(batches);
    }

    private List<String> claimedKeys(int rows) {
        OutboxRow[] staged = new OutboxRow[rows];
        for (int i = 0; i < rows; i++) {
            staged[i] = row(workflow(1), i, now());
        }
        stage(staged);
        List<String> keys = OutboxFixtures.keys(claim(rows));
        assertThat(keys).hasSize(rows);
        return keys;
    }

    @Test
    void O41_the_started_reaper_rearms_rows_at_the_first_interval_after_their_lease_ran_out() throws Exception {
        // given three rows claimed now, and a reaper started with a 5 min lease every 30 s
        List<String> keys = claimedKeys(3);
        running = reaper(500).start(timer);

        // when 30 s pass and the claims are 4 min old
        clock.advance(Duration.ofMinutes(4));
        timer.advanceTimeBy(INTERVAL);

        // then the sweep re-arms nothing: the lease has not run out
        assertThat(nextCall()).isZero();
        keys.forEach(k -> assertStatus(k, OutboxStatus.CLAIMED));
        assertThat(reaped).isEmpty();

        // when the next interval comes with the claims 6 min old
        clock.advance(Duration.ofMinutes(2));
        timer.advanceTimeBy(INTERVAL);

        // then the three rows are pending again, handed to onReaped, same attempt
        assertThat(nextCall()).isEqualTo(3);
        keys.forEach(k -> assertState(k, OutboxStatus.PENDING, 0, now()));
        awaitReaped(1);
        assertThat(OutboxFixtures.keys(reaped.get(0))).containsExactlyInAnyOrderElementsOf(keys);
        assertThat(reported).isEmpty();
    }

    @Test
    void O42_one_sweep_rearms_every_stale_row_in_batches_of_the_batch_size() throws Exception {
        // given five rows claimed, then left 10 min, and a reaper with batches of 2
        List<String> keys = claimedKeys(5);
        clock.advance(Duration.ofMinutes(10));
        running = reaper(2).start(timer);

        // when one interval passes
        timer.advanceTimeBy(INTERVAL);

        // then one sweep re-arms 2, 2 and 1 rows, and stops at the short batch
        assertThat(List.of(nextCall(), nextCall(), nextCall())).containsExactly(2, 2, 1);
        assertThat(calls.get()).isEqualTo(3);
        keys.forEach(k -> assertStatus(k, OutboxStatus.PENDING));
        awaitReaped(3);
    }

    @Test
    void a_failed_sweep_is_reported_and_the_next_interval_sweeps_again() throws Exception {
        // given two stale claimed rows, and a store whose next answer to the reaper is a failure
        List<String> keys = claimedKeys(2);
        clock.advance(Duration.ofMinutes(10));
        failNext.set(1);
        running = reaper(500).start(timer);

        // when an interval passes
        timer.advanceTimeBy(INTERVAL);

        // then the failure is reported, and the rows stay claimed
        assertThat(nextCall()).isEqualTo(-1);
        assertThat(reported).singleElement().satisfies(e -> assertThat(e).hasMessage("injected sweep failure"));
        keys.forEach(k -> assertStatus(k, OutboxStatus.CLAIMED));

        // when the next interval passes, then that sweep re-arms them
        timer.advanceTimeBy(INTERVAL);
        assertThat(nextCall()).isEqualTo(2);
        keys.forEach(k -> assertStatus(k, OutboxStatus.PENDING));
    }

    @Test
    void a_disposed_reaper_sweeps_no_more() throws Exception {
        // given a started reaper that has swept once
        running = reaper(500).start(timer);
        timer.advanceTimeBy(INTERVAL);
        assertThat(nextCall()).isZero();

        // when it is disposed, and a claimed row's lease runs out over ten intervals
        running.dispose();
        List<String> keys = claimedKeys(1);
        clock.advance(Duration.ofMinutes(10));
        timer.advanceTimeBy(INTERVAL.multipliedBy(10));

        // then no sweep ran (the timer runs due tasks as it advances, on this thread), and the row is still claimed
        assertThat(calls.get()).isEqualTo(1);
        assertStatus(keys.get(0), OutboxStatus.CLAIMED);
    }
}
