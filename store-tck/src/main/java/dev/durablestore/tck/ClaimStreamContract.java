package dev.durablestore.tck;

import static dev.durablestore.tck.OutboxFixtures.keys;
import static dev.durablestore.tck.OutboxFixtures.routed;
import static dev.durablestore.tck.OutboxFixtures.row;
import static dev.durablestore.tck.OutboxFixtures.started;
import static dev.durablestore.tck.OutboxFixtures.workflow;
import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.WorkflowId;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

/**
 * Contract of {@code claimStream} (O52): a sequence of claims that each satisfy O16–O27 and never
 * take more rows than the subscriber asked for, woken by in-process staging and by the clock.
 */
public abstract class ClaimStreamContract extends OutboxContractSupport {

    /** Long enough that a test passing within {@link #PROMPTLY} cannot have waited for a poll. */
    private static final Duration HOUR = Duration.ofHours(1);
    /** Short enough that the clock-driven tests see the advanced clock quickly. */
    private static final Duration SHORT_POLL = Duration.ofMillis(50);
    /** The bound on a row that should arrive at once. */
    private static final Duration PROMPTLY = Duration.ofSeconds(5);
    /** How long a test watches a stream that should stay quiet. */
    private static final Duration QUIET = Duration.ofMillis(300);

    private final List<ClaimStreamProbe> probes = new ArrayList<>();

    @AfterEach
    void cancelProbes() {
        probes.forEach(ClaimStreamProbe::cancel);
    }

    // ---------------------------------------------------------------- demand (O52)

    @Test
    void O52_no_demand_claims_nothing() {
        // given five due rows
        List<OutboxRow> rows = stageDue(workflow(1), 5);

        // when a stream is subscribed without any request
        StepVerifier.create(store.claimStream(ClaimStreamOptions.defaults().withPollInterval(SHORT_POLL)), 0)
                .expectSubscription()
                .expectNoEvent(QUIET)
                .thenCancel()
                .verify(TIMEOUT);

        // then every row is still pending
        for (OutboxRow r : rows) {
            assertState(r.dispatchKey(), OutboxStatus.PENDING, 0, r.visibleAfter());
        }
    }

    @Test
    void O52_assembling_a_stream_without_subscribing_claims_nothing() {
        // given a due row
        OutboxRow a = row(workflow(1), 0, now());
        stage(a);

        // when a stream is built but never subscribed
        var unused = store.claimStream(ClaimStreamOptions.defaults());

        // then the row is still claimable by a plain claim
        assertThat(keys(claim(10))).containsExactly(a.dispatchKey());
    }

    @Test
    void O52_a_request_for_3_claims_exactly_3_in_claim_order() {
        // given ten due rows with distinct visibilities
        List<OutboxRow> rows = stageDue(workflow(1), 10);

        // when a stream is subscribed and 3 rows are requested
        // then exactly the first 3 rows arrive, claimed at now, and nothing more
        StepVerifier.create(store.claimStream(ClaimStreamOptions.defaults().withPollInterval(SHORT_POLL)), 0)
                .expectSubscription()
                .thenRequest(3)
                .recordWith(ArrayList::new)
                .expectNextCount(3)
                .consumeRecordedWith(delivered -> assertThat(OutboxFixtures.withoutTokens(new ArrayList<>(delivered)))
                        .containsExactly(
                                rows.get(0).withStatus(OutboxStatus.CLAIMED, now()),
                                rows.get(1).withStatus(OutboxStatus.CLAIMED, now()),
                                rows.get(2).withStatus(OutboxStatus.CLAIMED, now())))
                .expectNoEvent(QUIET)
                .thenCancel()
                .verify(TIMEOUT);

        // and the other seven are still pending
        StepVerifier.create(store.countClaimed("default"))
                .expectNext(3L)
                .expectComplete()
                .verify(TIMEOUT);
        for (OutboxRow r : rows.subList(3, 10)) {
            assertStatus(r.dispatchKey(), OutboxStatus.PENDING);
        }
    }

    @Test
    void O52_successive_requests_claim_successive_rows_in_order() throws Exception {
        // given ten due rows staged in scrambled order
        WorkflowId w = workflow(1);
        List<OutboxRow> rows = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            rows.add(row(w, i, now().minusSeconds(10 - i)));
        }
        List<OutboxRow> scrambled = new ArrayList<>(rows);
        java.util.Collections.reverse(scrambled);
        stageAll(scrambled);

        // when 2, then 5, then 3 rows are requested from a stream with batches of at most 3
        ClaimStreamProbe probe =
                probe(ClaimStreamOptions.defaults().withMaxBatch(3).withPollInterval(HOUR));
        probe.request(2);
        List<OutboxRow> first = probe.next(2, PROMPTLY);
        probe.expectNothingFor(QUIET);
        StepVerifier.create(store.countClaimed("default"))
                .expectNext(2L)
                .expectComplete()
                .verify(TIMEOUT);
        probe.request(5);
        List<OutboxRow> second = probe.next(5, PROMPTLY);
        probe.expectNothingFor(QUIET);
        StepVerifier.create(store.countClaimed("default"))
                .expectNext(7L)
                .expectComplete()
                .verify(TIMEOUT);
        probe.request(3);
        List<OutboxRow> third = probe.next(3, PROMPTLY);

        // then the rows arrive in claim order (O18), each exactly once
        List<OutboxRow> all = new ArrayList<>(first);
        all.addAll(second);
        all.addAll(third);
        assertThat(keys(all)).containsExactlyElementsOf(keys(rows));
        assertThat(all).allSatisfy(r -> assertThat(r.status()).isEqualTo(OutboxStatus.CLAIMED));
        probe.assertLive();
    }

    @Test
    void O52_max_batch_bounds_each_claim() throws Exception {
        // given ten due rows and a stream with batches of at most 3 whose held-workflow supplier counts its calls
        List<OutboxRow> rows = stageDue(workflow(1), 10);
        AtomicInteger claims = new AtomicInteger();
        ClaimStreamProbe probe = probe(ClaimStreamOptions.defaults()
                .withMaxBatch(3)
                .withPollInterval(HOUR)
                .withHeldWorkflows(() -> {
                    claims.incrementAndGet();
                    return Set.of();
                }));

        // when all ten are requested at once
        probe.request(10);
        List<OutboxRow> delivered = probe.next(10, PROMPTLY);

        // then all ten arrive, which took at least four claims of at most three rows
        assertThat(keys(delivered)).containsExactlyElementsOf(keys(rows));
        assertThat(claims.get()).as("claims (held-workflow supplier calls)").isGreaterThanOrEqualTo(4);
        probe.expectNothingFor(QUIET);
        StepVerifier.create(store.countClaimed("default"))
                .expectNext(10L)
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O52_max_batch_1_claims_one_row_per_claim() throws Exception {
        // given five due rows and a stream with batches of one whose held-workflow supplier counts its calls
        stageDue(workflow(1), 5);
        AtomicInteger claims = new AtomicInteger();
        ClaimStreamProbe probe = probe(ClaimStreamOptions.defaults()
                .withMaxBatch(1)
                .withPollInterval(HOUR)
                .withHeldWorkflows(() -> {
                    claims.incrementAndGet();
                    return Set.of();
                }));

        // when unbounded demand is signalled
        probe.request(Long.MAX_VALUE);

        // then all five arrive through at least five claims
        probe.next(5, PROMPTLY);
        assertThat(claims.get()).isGreaterThanOrEqualTo(5);
    }

    @Test
    void O52_a_stream_drained_with_64_completes_in_flight_claims_exactly_the_rows_asked_for() {
        // given 600 due rows
        List<OutboxRow> rows = stageDue(workflow(1), 600);

        // when a subscriber keeps 64 rows in flight, completing each and asking for one more as each
        // complete returns, until it has asked for 400 (demand comes back in bursts while a claim is in
        // flight, and the claim reads its limit when it runs)
        DrainingSubscriber drain = DrainingSubscriber.drain(
                store.claimStream(ClaimStreamOptions.defaults().withPollInterval(HOUR)), store, 64, 400, 0);
        try {
            awaitTrue(
                    "400 rows delivered and completed",
                    () -> reactor.core.publisher.Mono.just(drain.delivered().size() >= 400 && drain.allCompleted()));

            // then exactly 400 distinct rows arrived, each once, and no other row was claimed: once
            // their completes returned, none is claimed and the other 200 are pending
            assertThat(drain.error()).isNull();
            assertThat(drain.deliveredTwice()).isEmpty();
            assertThat(drain.delivered()).hasSize(400);
            StepVerifier.create(store.countClaimed("default"))
                    .expectNext(0L)
                    .expectComplete()
                    .verify(TIMEOUT);
            for (OutboxRow r : rows) {
                assertStatus(
                        r.dispatchKey(),
                        drain.delivered().contains(r.dispatchKey()) ? OutboxStatus.DONE : OutboxStatus.PENDING);
            }
        } finally {
            drain.dispose();
        }
    }

    // ---------------------------------------------------------------- wake-ups

    @Test
    void O52_a_row_staged_while_the_stream_is_idle_arrives_without_waiting_for_the_poll() throws Exception {
        // given an idle stream with outstanding demand and a one-hour poll interval
        ClaimStreamProbe probe = probe(ClaimStreamOptions.defaults().withPollInterval(HOUR));
        probe.request(2);
        probe.expectNothingFor(QUIET);

        // when a row is staged through the same store
        OutboxRow a = row(workflow(1), 0, now());
        stage(a);

        // then it arrives within seconds
        assertThat(probe.next(PROMPTLY).dispatchKey()).isEqualTo(a.dispatchKey());

        // when another row is staged with events through appendWithOutbox
        WorkflowId w = workflow(2);
        OutboxRow b = row(w, 0, now());
        store.appendWithOutbox(w, List.of(started(w, 1, now())), 0, List.of(b)).block(TIMEOUT);

        // then it arrives as well
        assertThat(probe.next(PROMPTLY).dispatchKey()).isEqualTo(b.dispatchKey());
        probe.assertLive();
    }

    @Test
    void O52_retry_rearm_and_redrive_wake_an_idle_stream() throws Exception {
        // given three rows taken out of the pending set: one claimed, one done, one dead-lettered
        WorkflowId w = workflow(1);
        OutboxRow retried = row(w, 0, now());
        OutboxRow rearmed = row(w, 1, now());
        OutboxRow redriven = row(w, 2, now());
        stage(retried, rearmed, redriven);
        claim(10);
        store.settleKeys(List.of(rearmed.dispatchKey()), Settlement.complete()).block(TIMEOUT);
        store.settleKeys(List.of(redriven.dispatchKey()), Settlement.fail()).block(TIMEOUT);

        // and an idle stream with demand and a one-hour poll interval
        ClaimStreamProbe probe = probe(ClaimStreamOptions.defaults().withPollInterval(HOUR));
        probe.request(3);
        probe.expectNothingFor(QUIET);

        // when the claimed row is retried visible now
        store.settleKeys(List.of(retried.dispatchKey()), Settlement.retryAt(1, now()))
                .block(TIMEOUT);
        // then it arrives within seconds
        assertThat(probe.next(PROMPTLY).dispatchKey()).isEqualTo(retried.dispatchKey());

        // when the done row is re-armed
        store.rearmPending(List.of(rearmed)).block(TIMEOUT);
        // then it arrives
        assertThat(probe.next(PROMPTLY).dispatchKey()).isEqualTo(rearmed.dispatchKey());

        // when the dead letter is redriven
        assertThat(store.redrive(redriven.dispatchKey(), false).block(TIMEOUT)).isTrue();
        // then it arrives
        assertThat(probe.next(PROMPTLY).dispatchKey()).isEqualTo(redriven.dispatchKey());
    }

    @Test
    void O52_O17_a_fenced_row_arrives_once_the_clock_passes_its_visibility() throws Exception {
        // given a row visible in one minute and a stream with demand and a short poll interval
        OutboxRow a = row(workflow(1), 0, now().plus(Duration.ofMinutes(1)));
        stage(a);
        ClaimStreamProbe probe = probe(ClaimStreamOptions.defaults().withPollInterval(SHORT_POLL));
        probe.request(1);

        // when the clock has not reached its visibility
        // then nothing arrives
        probe.expectNothingFor(QUIET);
        assertStatus(a.dispatchKey(), OutboxStatus.PENDING);

        // when the clock passes it
        Instant later = clock.advance(Duration.ofMinutes(2));

        // then the row arrives, claimed at the advanced clock or later
        OutboxRow delivered = probe.next(PROMPTLY);
        assertThat(delivered.dispatchKey()).isEqualTo(a.dispatchKey());
        assertThat(delivered.claimedAt()).isAfterOrEqualTo(later);
    }

    // ---------------------------------------------------------------- cancellation

    @Test
    void O52_cancellation_leaves_unrequested_rows_pending() throws Exception {
        // given ten due rows and a stream that asked for four
        List<OutboxRow> rows = stageDue(workflow(1), 10);
        ClaimStreamProbe probe = probe(ClaimStreamOptions.defaults().withPollInterval(SHORT_POLL));
        probe.request(4);
        List<OutboxRow> delivered = probe.next(4, PROMPTLY);

        // when the stream is cancelled
        probe.cancel();

        // then the four delivered rows are claimed and the six others are still pending, for good
        assertThat(keys(delivered)).containsExactlyElementsOf(keys(rows.subList(0, 4)));
        probe.expectNothingFor(QUIET);
        for (OutboxRow r : rows.subList(4, 10)) {
            assertStatus(r.dispatchKey(), OutboxStatus.PENDING);
        }
        StepVerifier.create(store.countClaimed("default"))
                .expectNext(4L)
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O52_rows_claimed_after_cancellation_return_to_pending() throws Exception {
        // given ten due rows and a stream that asks for five and is cancelled at once
        List<OutboxRow> rows = stageDue(workflow(1), 10);
        ClaimStreamProbe probe = probe(ClaimStreamOptions.defaults().withPollInterval(SHORT_POLL));
        probe.request(5);
        probe.cancel();

        // when the claim that may have been in flight has finished (watched for a window; a row
        // it delivered as the cancel came belongs to the subscriber)
        probe.watchFor(QUIET);

        // then only rows the subscriber received stay claimed; every other row is pending again
        awaitTrue(
                "only delivered rows stay claimed",
                () -> store.countClaimed("default")
                        .map(claimed -> claimed == probe.received().size()));
        Set<String> delivered = new HashSet<>(keys(probe.received()));
        for (OutboxRow r : rows) {
            OutboxStatus expected = delivered.contains(r.dispatchKey()) ? OutboxStatus.CLAIMED : OutboxStatus.PENDING;
            assertStatus(r.dispatchKey(), expected);
        }
    }

    // ---------------------------------------------------------------- concurrency

    @Test
    void O52_O21_two_concurrent_streams_receive_each_of_10000_rows_exactly_once() {
        // given 10,000 due rows over 50 workflows
        List<OutboxRow> rows = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            rows.add(row(workflow(1 + i % 50), i, now().minusMillis(i % 1000)));
        }
        for (int from = 0; from < rows.size(); from += 1_000) {
            stageAll(rows.subList(from, from + 1_000));
        }

        // when two streams claim concurrently and complete every row they receive
        ClaimStreamOptions options = ClaimStreamOptions.defaults().withPollInterval(SHORT_POLL);
        List<String> received = Flux.merge(completing(options), completing(options))
                .take(rows.size())
                .collectList()
                .block(Duration.ofMinutes(3));

        // then together they received every row exactly once
        assertThat(received).hasSize(rows.size()).doesNotHaveDuplicates();
        assertThat(new HashSet<>(received)).isEqualTo(new HashSet<>(keys(rows)));
        awaitTrue(
                "no row is left in flight", () -> store.countInflight("default").map(n -> n == 0));
    }

    // ---------------------------------------------------------------- scope and holds

    @Test
    void O52_O26_O27_the_stream_respects_scope_and_held_workflows_asked_before_every_claim() throws Exception {
        // given, on (remote, gpu), rows of held workflow H and of O, plus O rows on another queue and another node
        WorkflowId h = workflow(1);
        WorkflowId o = workflow(2);
        OutboxRow held0 = routed(h, 0, now().minusSeconds(9), "remote", "gpu", null);
        OutboxRow held1 = routed(h, 1, now().minusSeconds(9), "remote", "gpu", "box-7");
        OutboxRow free0 = routed(o, 0, now().minusSeconds(5), "remote", "gpu", null);
        OutboxRow free1 = routed(o, 1, now().minusSeconds(4), "remote", "gpu", "box-7");
        OutboxRow otherQueue = routed(o, 2, now().minusSeconds(9), "remote", "cpu", null);
        OutboxRow otherNode = routed(o, 3, now().minusSeconds(9), "remote", "gpu", "box-9");
        stage(held0, held1, free0, free1, otherQueue, otherNode);
        AtomicReference<Set<WorkflowId>> heldSet = new AtomicReference<>(Set.of(h));

        // when a stream scoped to (remote, gpu, box-7) holding H asks for ten rows
        ClaimStreamProbe probe = probe(ClaimStreamOptions.defaults()
                .withScope(new ClaimScope("remote", "gpu", "box-7"))
                .withHeldWorkflows(heldSet::get)
                .withPollInterval(SHORT_POLL));
        probe.request(10);

        // then exactly O's two admitted rows arrive; H's rows and the rows of other routes stay pending
        assertThat(keys(probe.next(2, PROMPTLY))).containsExactly(free0.dispatchKey(), free1.dispatchKey());
        probe.expectNothingFor(QUIET);
        for (OutboxRow r : List.of(held0, held1, otherQueue, otherNode)) {
            assertStatus(r.dispatchKey(), OutboxStatus.PENDING);
        }

        // when H is released
        heldSet.set(Set.of());

        // then its two rows arrive at the next claim, and the other routes' rows still do not
        assertThat(keys(probe.next(2, PROMPTLY))).containsExactly(held0.dispatchKey(), held1.dispatchKey());
        probe.expectNothingFor(QUIET);
        assertStatus(otherQueue.dispatchKey(), OutboxStatus.PENDING);
        assertStatus(otherNode.dispatchKey(), OutboxStatus.PENDING);
    }

    @Test
    void O52_O26_a_node_less_scope_streams_only_unpinned_rows() throws Exception {
        // given an unpinned and a pinned row on (default, email)
        WorkflowId w = workflow(1);
        OutboxRow unpinned = routed(w, 0, now(), "default", "email", null);
        OutboxRow pinned = routed(w, 1, now(), "default", "email", "box-1");
        stage(unpinned, pinned);

        // when a stream scoped to (default, email) asks for two rows
        ClaimStreamProbe probe = probe(ClaimStreamOptions.defaults()
                .withScope(ClaimScope.of("default", "email"))
                .withPollInterval(SHORT_POLL));
        probe.request(2);

        // then only the unpinned row arrives
        assertThat(probe.next(PROMPTLY).dispatchKey()).isEqualTo(unpinned.dispatchKey());
        probe.expectNothingFor(QUIET);
        assertStatus(pinned.dispatchKey(), OutboxStatus.PENDING);
    }

    // ---------------------------------------------------------------- undecodable rows

    @Test
    void O52_X6_a_corrupt_row_is_dead_lettered_and_does_not_stop_the_stream() throws Exception {
        // given three due rows, the oldest with an input that cannot be decoded
        WorkflowId w = workflow(1);
        OutboxRow corrupt = row(w, 0, now().minusSeconds(3));
        OutboxRow b = row(w, 1, now().minusSeconds(2));
        OutboxRow c = row(w, 2, now().minusSeconds(1));
        stage(corrupt, b, c);
        harness.corruptOutboxInput(corrupt.dispatchKey());

        // when a stream asks for ten rows
        ClaimStreamProbe probe = probe(ClaimStreamOptions.defaults().withPollInterval(SHORT_POLL));
        probe.request(10);

        // then the two good rows arrive, the stream keeps running, and the corrupt row ends dead-lettered
        assertThat(keys(probe.next(2, PROMPTLY))).containsExactly(b.dispatchKey(), c.dispatchKey());
        awaitStatus(corrupt.dispatchKey(), OutboxStatus.FAILED);
        probe.expectNothingFor(QUIET);
        probe.assertLive();

        // and a row staged afterwards still arrives
        OutboxRow d = row(w, 3, now());
        stage(d);
        assertThat(probe.next(PROMPTLY).dispatchKey()).isEqualTo(d.dispatchKey());
    }

    // ---------------------------------------------------------------- helpers

    private ClaimStreamProbe probe(ClaimStreamOptions options) {
        ClaimStreamProbe probe = ClaimStreamProbe.subscribe(store.claimStream(options));
        probes.add(probe);
        return probe;
    }

    /** Stages {@code count} due rows of {@code w}, one millisecond apart; returns them in claim order. */
    private List<OutboxRow> stageDue(WorkflowId w, int count) {
        List<OutboxRow> rows = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            rows.add(row(w, i, now().minusMillis(count - i)));
        }
        stageAll(rows);
        return rows;
    }

    private Flux<String> completing(ClaimStreamOptions options) {
        return store.claimStream(options)
                .flatMap(
                        r -> store.settleKeys(List.of(r.dispatchKey()), Settlement.complete())
                                .thenReturn(r.dispatchKey()),
                        64);
    }
}
