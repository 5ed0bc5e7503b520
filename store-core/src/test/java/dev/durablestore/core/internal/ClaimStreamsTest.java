package dev.durablestore.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.BackendException;
import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.Payload;
import dev.durablestore.api.StoreClosedException;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.core.storage.ClaimBatch;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * The claim stream's engine (O52) against a scripted source, on virtual time: when it claims, how
 * much, and how long it sleeps. No test waits for the wall clock.
 */
class ClaimStreamsTest {

    private static final Duration POLL = Duration.ofSeconds(1);

    private final VirtualTimeScheduler timer = VirtualTimeScheduler.create();
    /** The store's clock, following virtual time. */
    private final Clock clock = new Clock() {
        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(timer.now(TimeUnit.MILLISECONDS));
        }
    };

    private final Wakeups wakeups = new Wakeups();
    private final ScriptedSource source = new ScriptedSource();

    /** Answers claims from a script (empty when the script runs out) and records each limit. */
    private final class ScriptedSource implements ClaimStreams.Source {
        final Deque<Mono<ClaimBatch>> script = new ArrayDeque<>();
        final List<Integer> limits = new ArrayList<>();
        /** Runs as each claim is submitted, before its answer is returned. */
        Runnable onClaim = () -> {};
        /** Each release's rows, in order. */
        final List<List<OutboxRow>> released = new CopyOnWriteArrayList<>();
        /** What each release returns. */
        Mono<Void> releaseResult = Mono.empty();

        @Override
        public Mono<ClaimBatch> claimForStream(
                ClaimScope scope, IntSupplier limit, Set<WorkflowId> held, dev.durablestore.api.DispatchPolicy policy) {
            limits.add(limit.getAsInt());
            onClaim.run();
            Mono<ClaimBatch> next = script.poll();
            return next != null ? next : Mono.just(new ClaimBatch(List.of(), null, null));
        }

        @Override
        public Mono<Void> release(List<OutboxRow> claimed) {
            released.add(List.copyOf(claimed));
            return releaseResult;
        }
    }

    @AfterEach
    void dispose() {
        timer.dispose();
    }

    private static List<OutboxRow> rows(int n) {
        WorkflowId w = WorkflowId.random();
        List<OutboxRow> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            rows.add(OutboxRow.pending(w, i, "work", Payload.json("{}"), Instant.EPOCH)
                    .withStatus(dev.durablestore.api.OutboxStatus.CLAIMED, Instant.EPOCH));
        }
        return rows;
    }

    private StepVerifier.FirstStep<OutboxRow> stream(int maxBatch) {
        return StepVerifier.create(
                ClaimStreams.create(
                        source,
                        wakeups,
                        clock,
                        ClaimStreamOptions.defaults().withMaxBatch(maxBatch).withPollInterval(POLL),
                        timer),
                0);
    }

    @Test
    void O52_an_idle_stream_claims_again_at_the_poll_interval_and_not_before() {
        // given a stream with demand and nothing due
        stream(10)
                .thenRequest(5)
                // then it claimed once at once
                .then(() -> assertThat(source.limits).hasSize(1))
                // when the poll interval has not quite passed, then it has not claimed again
                .then(() -> timer.advanceTimeBy(POLL.minusMillis(1)))
                .then(() -> assertThat(source.limits).hasSize(1))
                // when it has, then it claims again
                .then(() -> timer.advanceTimeBy(Duration.ofMillis(1)))
                .then(() -> assertThat(source.limits).hasSize(2))
                .thenCancel()
                .verify();
    }

    @Test
    void O52_the_stream_sleeps_only_until_the_next_known_due_time_when_it_comes_before_the_poll() {
        // given a first claim that finds nothing, but a row due in 200 ms
        long dueNanos = TimeUnit.MILLISECONDS.toNanos(timer.now(TimeUnit.MILLISECONDS) + 200);
        source.script.add(Mono.just(new ClaimBatch(List.of(), null, dueNanos)));
        stream(10)
                .thenRequest(1)
                .then(() -> timer.advanceTimeBy(Duration.ofMillis(199)))
                .then(() -> assertThat(source.limits)
                        .as("claims before the due time")
                        .hasSize(1))
                // when the due time comes, then it claims
                .then(() -> timer.advanceTimeBy(Duration.ofMillis(1)))
                .then(() -> assertThat(source.limits).hasSize(2))
                .thenCancel()
                .verify();
    }

    @Test
    void O52_a_wake_up_ends_the_sleep_at_once() {
        // given a sleeping stream
        stream(10)
                .thenRequest(1)
                .then(() -> assertThat(source.limits).hasSize(1))
                // when the backend signals a commit that made rows claimable
                .then(wakeups)
                // then it claims without waiting for the poll
                .then(() -> assertThat(source.limits).hasSize(2))
                .thenCancel()
                .verify();
    }

    @Test
    void O52_each_claim_asks_for_the_outstanding_demand_up_to_max_batch() {
        // given a stream with max batch 4 whose first claim returns 3 rows
        source.script.add(Mono.just(new ClaimBatch(rows(3), null, null)));
        stream(4)
                // when 10 rows are requested
                .thenRequest(10)
                // then it asked for 4, received 3 (fewer than asked: nothing more was due), and sleeps
                .expectNextCount(3)
                .then(() -> assertThat(source.limits).containsExactly(4))
                // when it wakes at the poll, then it asks for 4 again (7 outstanding, max 4)
                .then(() -> timer.advanceTimeBy(POLL))
                .then(() -> assertThat(source.limits).containsExactly(4, 4))
                .thenCancel()
                .verify();
    }

    @Test
    void O52_with_less_demand_than_max_batch_the_claim_asks_for_the_demand_only() {
        // given a stream with max batch 100
        stream(100)
                // when 3 rows are requested, then the claim asks for 3
                .thenRequest(3)
                .then(() -> assertThat(source.limits).containsExactly(3))
                .thenCancel()
                .verify();
    }

    @Test
    void a_failed_claim_is_retried_after_the_poll_interval_and_the_stream_goes_on() {
        // given a first claim that fails, then one row
        source.script.add(Mono.error(new BackendException("server away")));
        source.script.add(Mono.just(new ClaimBatch(rows(1), null, null)));
        stream(10)
                .thenRequest(1)
                .then(() -> assertThat(source.limits).hasSize(1))
                .then(() -> timer.advanceTimeBy(POLL.minusMillis(1)))
                .then(() -> assertThat(source.limits)
                        .as("no retry before the poll interval")
                        .hasSize(1))
                // when the poll interval has passed, then the stream claims again and delivers
                .then(() -> timer.advanceTimeBy(Duration.ofMillis(1)))
                .expectNextCount(1)
                .thenCancel()
                .verify();
    }

    /** Subscribes to a stream of max batch 10 that asks for {@code n} rows as it subscribes; records its error. */
    private void subscribeAsking(int n, AtomicReference<Throwable> ended) {
        ClaimStreams.create(
                        source,
                        wakeups,
                        clock,
                        ClaimStreamOptions.defaults().withMaxBatch(10).withPollInterval(POLL),
                        timer)
                .subscribe(new BaseSubscriber<>() {
                    @Override
                    protected void hookOnSubscribe(org.reactivestreams.Subscription s) {
                        s.request(n); // before the stream starts: its first claim goes out as it starts
                    }

                    @Override
                    protected void hookOnError(Throwable e) {
                        ended.set(e);
                    }
                });
    }

    /** Starts {@link Wakeups#close}; the flag is set once it completes. */
    private AtomicBoolean startClose() {
        AtomicBoolean closed = new AtomicBoolean();
        wakeups.close(new StoreClosedException("store closed"), Duration.ofSeconds(10))
                .subscribe(null, e -> {}, () -> closed.set(true));
        return closed;
    }

    @Test
    void X9_a_close_that_begins_while_the_first_claim_is_in_flight_waits_for_it_and_gives_its_rows_back() {
        // given a stream whose first claim, sent as the stream starts, is held in flight, and the
        // store's close beginning right then (another thread closing the store as the stream starts)
        Sinks.One<ClaimBatch> claim = Sinks.one();
        Sinks.Empty<Void> release = Sinks.empty();
        source.script.add(claim.asMono());
        source.releaseResult = release.asMono();
        AtomicReference<AtomicBoolean> closed = new AtomicReference<>();
        source.onClaim = () -> closed.compareAndSet(null, startClose());
        AtomicReference<Throwable> ended = new AtomicReference<>();
        subscribeAsking(5, ended);

        // then the stream ended, and the close waits for the claim in flight
        assertThat(closed.get())
                .as("the close began while the claim was in flight")
                .isNotNull();
        assertThat(ended.get()).isInstanceOf(StoreClosedException.class);
        assertThat(closed.get())
                .as("close completed while a claim of a stream was in flight")
                .isFalse();

        // when the claim returns five rows
        List<OutboxRow> taken = rows(5);
        claim.tryEmitValue(new ClaimBatch(taken, null, null));

        // then none is delivered, all five are given back, and the close waits for that release
        assertThat(source.released).hasSize(1);
        assertThat(source.released.get(0)).containsExactlyInAnyOrderElementsOf(taken);
        assertThat(closed.get())
                .as("close completed before the claim's rows were given back")
                .isFalse();
        release.tryEmitEmpty();
        assertThat(closed.get())
                .as("close completed once the rows were given back")
                .isTrue();
        assertThat(source.limits).as("claims").hasSize(1);
    }

    @Test
    void X9_a_close_that_begins_after_a_stream_was_cancelled_with_a_claim_in_flight_waits_for_its_release() {
        // given a stream whose claim is held in flight
        Sinks.One<ClaimBatch> claim = Sinks.one();
        Sinks.Empty<Void> release = Sinks.empty();
        source.script.add(claim.asMono());
        source.releaseResult = release.asMono();
        AtomicReference<Throwable> ended = new AtomicReference<>();
        reactor.core.Disposable subscription = ClaimStreams.create(
                        source,
                        wakeups,
                        clock,
                        ClaimStreamOptions.defaults().withMaxBatch(10).withPollInterval(POLL),
                        timer)
                .subscribe(null, ended::set);
        assertThat(source.limits).as("claims").hasSize(1);

        // when the subscriber cancels, and then the store's close begins
        subscription.dispose();
        AtomicBoolean closed = startClose();

        // then the close waits for the claim the cancelled stream still has in flight
        assertThat(closed)
                .as("close completed while a cancelled stream's claim was in flight")
                .isFalse();

        // when the claim returns three rows
        List<OutboxRow> taken = rows(3);
        claim.tryEmitValue(new ClaimBatch(taken, null, null));

        // then all three are given back, and the close completes only once they are
        assertThat(source.released).hasSize(1);
        assertThat(source.released.get(0)).containsExactlyInAnyOrderElementsOf(taken);
        assertThat(closed)
                .as("close completed before the claim's rows were given back")
                .isFalse();
        release.tryEmitEmpty();
        assertThat(closed).as("close completed once the rows were given back").isTrue();
        assertThat(ended.get()).as("a cancelled stream signals nothing").isNull();
    }

    @Test
    void X9_a_settled_stream_is_no_longer_waited_for_by_the_close() {
        // given a stream that was cancelled with nothing in flight
        reactor.core.Disposable subscription = ClaimStreams.create(
                        source,
                        wakeups,
                        clock,
                        ClaimStreamOptions.defaults().withMaxBatch(10).withPollInterval(POLL),
                        timer)
                .subscribe();
        assertThat(source.limits).as("claims").hasSize(1);
        subscription.dispose();

        // when the store closes, then the close completes at once
        assertThat(startClose()).isTrue();
    }

    @Test
    void X9_a_stream_subscribed_while_the_store_is_closing_ends_without_claiming() {
        // given a store whose close has begun
        AtomicBoolean closed = startClose();
        assertThat(closed).isTrue();

        // when a stream with demand is subscribed
        AtomicReference<Throwable> ended = new AtomicReference<>();
        subscribeAsking(5, ended);

        // then it ends with StoreClosedException and sends no claim (whose rows the closed store
        // could no longer give back)
        assertThat(ended.get()).isInstanceOf(StoreClosedException.class);
        assertThat(source.limits).as("claims").isEmpty();
        assertThat(source.released).isEmpty();
    }
}
