package dev.durablestore.tck;

import static dev.durablestore.tck.OutboxFixtures.keys;
import static dev.durablestore.tck.OutboxFixtures.row;
import static dev.durablestore.tck.OutboxFixtures.started;
import static dev.durablestore.tck.OutboxFixtures.workflow;
import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.OutboxLeaseReaper;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.StoreClosedException;
import dev.durablestore.api.WorkflowId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import reactor.core.Disposable;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Signal;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * Contract of closing the store (X9): every operation subscribed before, during or after the close
 * terminates, with its result or with {@link StoreClosedException}; claim streams end at once and
 * give back the rows they held; a close on a non-blocking thread does not park it.
 */
public abstract class CloseContract extends OutboxContractSupport {

    /** An idle stream's poll interval: far longer than any test here may wait. */
    private static final Duration LONG_POLL = Duration.ofSeconds(30);
    /** How soon an idle stream must end once the store closes. */
    private static final Duration PROMPTLY = Duration.ofSeconds(2);
    /** How soon the close completes once its streams have ended: well under the 10 s it waits for a stream. */
    private static final Duration CLOSE_DONE = Duration.ofSeconds(5);
    /** Operations queued at once when the close runs. */
    private static final int QUEUED = 600;
    /** Events in the history the queued reads read: enough that the reads queue up behind each other. */
    private static final int HISTORY = 300;

    @Test
    void X9_every_operation_queued_when_the_store_closes_terminates() throws InterruptedException {
        // given a workflow with a long history (each read of it takes a while) and a few due rows
        WorkflowId w = workflow(1);
        List<dev.durablestore.api.event.Event> history = new ArrayList<>();
        history.add(started(w, 1, now()));
        for (int seq = 2; seq <= HISTORY; seq++) {
            history.add(OutboxFixtures.signal(w, seq, now()));
        }
        store.appendWithOutbox(w, history, 0, List.of(row(w, 0, now()), row(w, 1, now())))
                .block(TIMEOUT);
        List<Mono<?>> operations = new ArrayList<>();
        for (int i = 0; i < QUEUED; i++) {
            operations.add(
                    switch (i % 6) {
                        case 0 -> store.readHistory(w).collectList();
                        case 1 -> store.countInflight(row(w, 0, now()).namespace());
                        case 2 -> store.rowState(row(w, 0, now()).dispatchKey());
                        case 3 -> store.readHead(w);
                        case 4 -> store.claim(ClaimRequest.of(1));
                        default -> store.append(workflow(1000 + i), List.of(started(workflow(1000 + i), 1, now())), 0);
                    });
        }
        List<Signal<?>> outcomes = new CopyOnWriteArrayList<>();
        CountDownLatch terminated = new CountDownLatch(QUEUED);

        // when all of them are subscribed and the store closes while they are queued
        for (Mono<?> op : operations) {
            op.materialize().subscribe(s -> {
                outcomes.add(s);
                terminated.countDown();
            });
        }
        store.close();

        // then each one terminated: with its result or with StoreClosedException
        assertThat(terminated.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS))
                .as("operations left unanswered: %d of %d", terminated.getCount(), QUEUED)
                .isTrue();
        for (Signal<?> s : outcomes) {
            if (s.isOnError()) {
                assertThat(s.getThrowable()).isInstanceOf(StoreClosedException.class);
            }
        }
    }

    @Test
    void X9_operations_subscribed_after_close_fail_with_StoreClosedException() {
        // given a closed store
        WorkflowId w = workflow(1);
        store.close();

        // when reads, counts, writes, claims and a claim stream are subscribed
        // then each fails with StoreClosedException
        List<Flux<?>> calls = List.of(
                store.readHistory(w),
                store.countInflight(row(w, 0, now()).namespace()).flux(),
                store.rowState("k").flux(),
                store.readHead(w).flux(),
                store.append(w, List.of(started(w, 1, now())), 0).flux(),
                store.claim(ClaimRequest.of(5)).flux(),
                store.settleKeys(List.of("k"), Settlement.complete()).flux(),
                store.claimStream(ClaimStreamOptions.defaults().withPollInterval(LONG_POLL)));
        for (Flux<?> call : calls) {
            StepVerifier.create(call).expectError(StoreClosedException.class).verify(TIMEOUT);
        }
    }

    @Test
    void X9_an_idle_claim_stream_ends_promptly_when_the_store_closes() {
        // given a claim stream with demand, waiting out a 30 s poll on an empty outbox
        Flux<OutboxRow> stream = store.claimStream(ClaimStreamOptions.defaults().withPollInterval(LONG_POLL));

        // when the store closes
        // then the stream ends with StoreClosedException long before its next poll
        StepVerifier.create(stream)
                .expectSubscription()
                .then(() -> store.closeAsync().subscribe())
                .expectError(StoreClosedException.class)
                .verify(PROMPTLY);
        // and the close does not wait for the ended stream (it waits up to 10 s for streams that hold a claim)
        StepVerifier.create(store.closeAsync()).expectComplete().verify(CLOSE_DONE);
    }

    @Test
    void X9_closing_gives_back_the_rows_a_stream_claimed_and_did_not_deliver() {
        // given five due rows and a stream whose subscriber asks for all of them
        List<OutboxRow> rows = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            rows.add(row(workflow(1), i, now().minusMillis(5 - i)));
        }
        stageAll(rows);
        AtomicReference<Throwable> ended = new AtomicReference<>();
        List<OutboxRow> delivered = new CopyOnWriteArrayList<>();
        CountDownLatch done = new CountDownLatch(1);

        // when the subscriber closes the store on the first row, while the other four are in hand
        store.claimStream(ClaimStreamOptions.defaults().withPollInterval(LONG_POLL))
                .subscribe(new BaseSubscriber<>() {
                    @Override
                    protected void hookOnSubscribe(Subscription s) {
                        s.request(5);
                    }

                    @Override
                    protected void hookOnNext(OutboxRow row) {
                        delivered.add(row);
                        if (delivered.size() == 1) {
                            store.closeAsync().subscribe();
                        }
                    }

                    @Override
                    protected void hookFinally(reactor.core.publisher.SignalType type) {
                        done.countDown();
                    }

                    @Override
                    protected void hookOnError(Throwable e) {
                        ended.set(e);
                    }
                });
        assertThat(awaitQuietly(done)).as("the stream ended").isTrue();
        store.closeAsync().block(TIMEOUT);

        // then the stream ended with StoreClosedException, the delivered row stays claimed and every
        // other row is pending again, same attempt, visible at once
        assertThat(ended.get()).isInstanceOf(StoreClosedException.class);
        ReactiveStore reopened = harness.open();
        for (OutboxRow r : rows) {
            OutboxStatus expected =
                    keys(delivered).contains(r.dispatchKey()) ? OutboxStatus.CLAIMED : OutboxStatus.PENDING;
            assertThat(reopened.rowState(r.dispatchKey()).block(TIMEOUT).status())
                    .as(r.dispatchKey())
                    .isEqualTo(expected);
            assertThat(reopened.rowState(r.dispatchKey()).block(TIMEOUT).attempt())
                    .isZero();
        }
        assertThat(delivered).hasSizeGreaterThanOrEqualTo(1);
        assertThat(reopened.claim(ClaimRequest.of(10)).block(TIMEOUT)).hasSize(rows.size() - delivered.size());
    }

    private static boolean awaitQuietly(CountDownLatch latch) {
        try {
            return latch.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Test
    void X9_close_on_a_non_blocking_thread_returns_without_waiting_and_closeAsync_completes() {
        // given an open store with a queued write
        WorkflowId w = workflow(1);
        Mono<Void> write = store.append(w, List.of(started(w, 1, now())), 0);

        // when close() is called on one of Reactor's parallel threads
        // then it returns there without parking the thread, and closeAsync() completes once closed
        StepVerifier.create(write.then(Mono.fromRunnable(store::close).subscribeOn(Schedulers.parallel()))
                        .then(store.closeAsync()))
                .verifyComplete();
        assertThat(store.readHead(w)
                        .onErrorResume(StoreClosedException.class, e -> Mono.just(-1L))
                        .block(TIMEOUT))
                .isEqualTo(-1L);
        assertThat(harness.open().readHead(w).block(TIMEOUT)).isEqualTo(1L);
    }

    @Test
    void X9_close_is_idempotent_and_every_closeAsync_completes() {
        // when the store is closed three times, twice without waiting
        store.closeAsync().subscribe();
        store.close();

        // then every later close completes at once
        StepVerifier.create(store.closeAsync()).verifyComplete();
        store.close();
    }

    @Test
    void X9_the_lease_reaper_stops_after_reporting_the_close_once() {
        // given a reaper on virtual time
        VirtualTimeScheduler time = VirtualTimeScheduler.create();
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        Disposable reaper = OutboxLeaseReaper.of(store)
                .withInterval(Duration.ofSeconds(1))
                .withOnError(errors::add)
                .start(time);

        // when the store closes and many intervals pass
        store.close();
        for (int i = 0; i < 10 && !reaper.isDisposed(); i++) {
            time.advanceTimeBy(Duration.ofSeconds(1));
            awaitTrue("the sweep after close has ended", () -> Mono.just(!errors.isEmpty() || reaper.isDisposed()));
        }

        // then it reported StoreClosedException once and stopped
        assertThat(errors).hasSize(1);
        assertThat(errors.get(0)).isInstanceOf(StoreClosedException.class);
        assertThat(reaper.isDisposed()).isTrue();
    }
}
