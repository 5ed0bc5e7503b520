package dev.durablestore.tck;

import static dev.durablestore.tck.OutboxFixtures.keys;
import static dev.durablestore.tck.OutboxFixtures.row;
import static dev.durablestore.tck.OutboxFixtures.workflow;
import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.WorkflowId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * Contract of ending a claim stream (O52): a row claimed for the stream belongs to the subscriber
 * once handed to its {@code onNext}; every row claimed and not handed over is pending again (same
 * attempt, visible at once) as soon as the stream is cancelled, however the cancel comes. A row is
 * never handed to two live subscribers.
 */
public abstract class ClaimStreamReleaseContract extends OutboxContractSupport {

    /** Long enough that a row pending again cannot have been re-armed by a poll or a reaper. */
    private static final Duration LONG_POLL = Duration.ofSeconds(30);

    private static final int ROWS = 20;

    private ClaimStreamOptions options() {
        return ClaimStreamOptions.defaults().withPollInterval(LONG_POLL);
    }

    private List<OutboxRow> stageDue(int count) {
        return stageDue(count, 0);
    }

    /** Stages {@code count} due rows over three workflows, ordinals from {@code firstOrdinal}, in claim order. */
    private List<OutboxRow> stageDue(int count, int firstOrdinal) {
        List<OutboxRow> rows = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            rows.add(row(workflow(1 + i % 3), firstOrdinal + i, now().minusMillis(count - i)));
        }
        stageAll(rows);
        return rows;
    }

    /** Waits until exactly the delivered rows are claimed and every other staged row is pending at attempt 0. */
    private void assertOnlyDeliveredStayClaimed(List<OutboxRow> staged, Set<String> delivered) {
        awaitTrue(
                "only the delivered rows are still claimed",
                () -> Flux.fromIterable(staged)
                        .concatMap(r -> store.rowState(r.dispatchKey())
                                .map(st -> st.status() == OutboxStatus.CLAIMED
                                        ? delivered.contains(r.dispatchKey())
                                        : st.status() == OutboxStatus.PENDING
                                                && !delivered.contains(r.dispatchKey())
                                                && st.attempt() == 0))
                        .all(ok -> ok));
        // visible at once: a plain claim takes every row the stream gave back
        assertThat(claim(staged.size())).hasSize(staged.size() - delivered.size());
    }

    @Test
    void O52_blockFirst_gives_back_every_row_but_the_first() {
        // given twenty due rows
        List<OutboxRow> staged = stageDue(ROWS);

        // when a stream is read with blockFirst (unbounded demand, cancelled in the first onNext)
        OutboxRow first = store.claimStream(options()).blockFirst(TIMEOUT);

        // then only that row stays claimed; the rest of its claim is pending again
        assertOnlyDeliveredStayClaimed(staged, Set.of(first.dispatchKey()));
    }

    @Test
    void O52_next_gives_back_every_row_but_the_first() {
        // given twenty due rows
        List<OutboxRow> staged = stageDue(ROWS);

        // when the stream's first row is taken with next()
        OutboxRow first = store.claimStream(options()).next().block(TIMEOUT);

        // then only that row stays claimed
        assertOnlyDeliveredStayClaimed(staged, Set.of(first.dispatchKey()));
    }

    @Test
    void O52_take_3_keeps_exactly_the_3_taken() {
        // given twenty due rows
        List<OutboxRow> staged = stageDue(ROWS);

        // when three rows are taken
        List<OutboxRow> taken =
                store.claimStream(options()).take(3).collectList().block(TIMEOUT);

        // then those three stay claimed and no other row does
        assertThat(taken).hasSize(3);
        assertOnlyDeliveredStayClaimed(staged, new HashSet<>(keys(taken)));
    }

    @Test
    void O52_a_cancel_inside_onNext_gives_back_the_rest_of_the_batch() throws InterruptedException {
        // given twenty due rows and a subscriber asking for all of them at once
        List<OutboxRow> staged = stageDue(ROWS);
        Set<String> delivered = ConcurrentHashMap.newKeySet();
        CountDownLatch ended = new CountDownLatch(1);

        // when it cancels in its fourth onNext
        store.claimStream(options()).subscribe(new BaseSubscriber<>() {
            @Override
            protected void hookOnSubscribe(Subscription s) {
                s.request(ROWS);
            }

            @Override
            protected void hookOnNext(OutboxRow row) {
                delivered.add(row.dispatchKey());
                if (delivered.size() == 4) {
                    cancel();
                }
            }

            @Override
            protected void hookFinally(reactor.core.publisher.SignalType type) {
                ended.countDown();
            }
        });
        assertThat(ended.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();

        // then the four delivered rows stay claimed, the other sixteen are pending again
        assertThat(delivered).hasSize(4);
        assertOnlyDeliveredStayClaimed(staged, delivered);
    }

    @Test
    void O52_a_dispose_from_another_thread_while_a_batch_is_emitted_strands_nothing() throws InterruptedException {
        for (int trial = 0; trial < 5; trial++) {
            // given due rows and a subscriber asking for all of them
            List<OutboxRow> staged = stageDue(ROWS, trial * ROWS);
            Set<String> delivered = ConcurrentHashMap.newKeySet();
            CountDownLatch firstRow = new CountDownLatch(1);
            BaseSubscriber<OutboxRow> subscriber = new BaseSubscriber<>() {
                @Override
                protected void hookOnSubscribe(Subscription s) {
                    s.request(ROWS);
                }

                @Override
                protected void hookOnNext(OutboxRow row) {
                    delivered.add(row.dispatchKey());
                    firstRow.countDown();
                }
            };
            store.claimStream(options()).subscribe(subscriber);

            // when the test thread disposes it as soon as the first row arrives
            assertThat(firstRow.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
            subscriber.dispose();

            // then every row it saw stays claimed and every other is pending again
            assertOnlyDeliveredStayClaimed(staged, delivered);
            // (every row of this trial is settled, so the next trial starts from an empty outbox: the
            // check above claimed the given-back ones)
            Flux.fromIterable(staged)
                    .concatMap(r -> store.settleKeys(List.of(r.dispatchKey()), Settlement.complete()))
                    .blockLast(TIMEOUT);
        }
    }

    @Test
    void O52_two_streams_cancelled_at_random_never_share_a_row() {
        // given many due rows
        List<OutboxRow> staged = stageDue(200);
        Set<String> seen = ConcurrentHashMap.newKeySet();
        List<String> twice = Collections.synchronizedList(new ArrayList<>());

        // when streams are opened one after another, each taking a few rows and cancelled, in pairs
        for (int round = 0; round < 20; round++) {
            Mono<List<OutboxRow>> a =
                    store.claimStream(options()).take(1 + round % 4).collectList();
            Mono<List<OutboxRow>> b = store.claimStream(options()).next().map(List::of);
            for (List<OutboxRow> got : Flux.merge(a, b).collectList().block(TIMEOUT)) {
                for (OutboxRow r : got) {
                    if (!seen.add(r.dispatchKey())) {
                        twice.add(r.dispatchKey());
                    }
                }
            }
        }

        // then no row reached two subscribers, and exactly the rows handed out are claimed
        assertThat(twice).isEmpty();
        assertOnlyDeliveredStayClaimed(staged, seen);
    }

    @Test
    void O52_a_stream_cancelled_while_drained_with_64_in_flight_gives_back_every_row_it_did_not_hand_over() {
        // given 600 due rows
        List<OutboxRow> staged = stageDue(600);

        // when a subscriber keeping 64 rows in flight (completing each, asking for one more as each
        // complete returns, so demand grows while a claim is in flight) cancels in its 150th onNext
        DrainingSubscriber drain = DrainingSubscriber.drain(store.claimStream(options()), store, 64, 600, 150);
        awaitTrue(
                "150 rows delivered and completed",
                () -> Mono.just(drain.delivered().size() >= 150 && drain.allCompleted()));

        // then the 150 rows it received are done, and every other row is pending again at attempt 0
        assertThat(drain.error()).isNull();
        assertThat(drain.deliveredTwice()).isEmpty();
        assertThat(drain.delivered()).hasSize(150);
        awaitTrue(
                "only the delivered rows are done, every other row is pending at attempt 0",
                () -> Flux.fromIterable(staged)
                        .concatMap(r -> store.rowState(r.dispatchKey())
                                .map(st -> drain.delivered().contains(r.dispatchKey())
                                        ? st.status() == OutboxStatus.DONE
                                        : st.status() == OutboxStatus.PENDING && st.attempt() == 0))
                        .all(ok -> ok));
    }

    @Test
    void O52_a_held_workflows_supplier_returning_null_fails_the_stream() {
        // given a due row
        stageDue(1);

        // when the stream's held-workflows supplier returns null
        // then the stream fails with InvalidArgumentException naming it, instead of retrying forever
        StepVerifier.create(store.claimStream(options().withHeldWorkflows(() -> null)))
                .expectErrorSatisfies(e -> assertThat(e)
                        .isInstanceOf(InvalidArgumentException.class)
                        .hasMessageContaining("heldWorkflows"))
                .verify(TIMEOUT);
    }

    @Test
    void O52_a_held_workflows_set_holding_null_fails_the_stream() {
        // given a due row
        List<OutboxRow> staged = stageDue(1);
        Set<WorkflowId> withNull = new HashSet<>();
        withNull.add(null);

        // when the supplier's set holds null
        // then the stream fails with InvalidArgumentException naming it, and the row is untouched
        StepVerifier.create(store.claimStream(options().withHeldWorkflows(() -> withNull)))
                .expectErrorSatisfies(e -> assertThat(e)
                        .isInstanceOf(InvalidArgumentException.class)
                        .hasMessageContaining("heldWorkflows"))
                .verify(TIMEOUT);
        assertStatus(staged.get(0).dispatchKey(), OutboxStatus.PENDING);
    }
}
