package dev.durablestore.tck;

import static dev.durablestore.tck.OutboxFixtures.routed;
import static dev.durablestore.tck.OutboxFixtures.scope;
import static dev.durablestore.tck.OutboxFixtures.workflow;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.DispatchPolicy;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.Settlement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * Contract of concurrency caps per route (O64): a capped claim takes at most the cap minus the
 * route's claimed rows, counted in its transaction, across every claimer of the database.
 */
public abstract class ConcurrencyCapContract extends OutboxContractSupport {

    private static final ClaimScope ROUTE = ClaimScope.of("ns", "q");

    private static DispatchPolicy cap(int n) {
        return DispatchPolicy.none().withConcurrencyCap(n);
    }

    private List<OutboxRow> claim(ClaimScope scope, int limit, DispatchPolicy policy) {
        return store.claim(ClaimRequest.of(limit).withScope(scope).withPolicy(policy))
                .block(TIMEOUT);
    }

    private List<OutboxRow> stageRoute(int n, String taskQueue) {
        List<OutboxRow> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            rows.add(routed(workflow(1 + i), 0, now().minusSeconds(n - i), "ns", taskQueue, null));
        }
        stageAll(rows);
        return rows;
    }

    @Test
    void O64_a_capped_claim_takes_what_the_cap_leaves_and_a_settle_frees_a_slot() {
        // given ten due rows on the route
        stageRoute(10, "q");

        // when claims with a cap of 3 run
        List<OutboxRow> first = claim(ROUTE, 10, cap(3));

        // then the first takes 3 (in claim order), the next none
        assertThat(first).hasSize(3);
        assertThat(claim(ROUTE, 10, cap(3))).isEmpty();

        // and completing one, retrying one, frees two slots: the next claim takes two
        store.complete(first.get(0)).block(TIMEOUT);
        store.settle(first.get(1), Settlement.retryAt(1, now().plusSeconds(60))).block(TIMEOUT);
        assertThat(claim(ROUTE, 10, cap(3))).hasSize(2);
        assertThat(claim(ROUTE, 10, cap(3))).isEmpty();
        // and a larger cap takes more, up to its own bound
        assertThat(claim(ROUTE, 10, cap(5))).hasSize(2);
    }

    @Test
    void O64_the_cap_counts_every_claim_of_the_route_and_no_claim_of_other_routes() {
        // given rows on the route and on another task queue, two of the route's claimed plainly
        // and four of the other route's claimed
        stageRoute(6, "q");
        List<OutboxRow> other = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            other.add(routed(workflow(50 + i), 0, now(), "ns", "other", null));
        }
        stageAll(other);
        assertThat(store.claim(ClaimRequest.of(2).withScope(ROUTE)).block(TIMEOUT))
                .hasSize(2);
        assertThat(store.claim(ClaimRequest.of(4).withScope(ClaimScope.of("ns", "other")))
                        .block(TIMEOUT))
                .hasSize(4);

        // when a claim with a cap of 3 runs on the route, then it takes one (3 minus the 2)
        assertThat(claim(ROUTE, 10, cap(3))).hasSize(1);
        // and a node's scope counts the route's claimed rows of every node
        assertThat(claim(new ClaimScope("ns", "q", "node-a"), 10, cap(4))).hasSize(1);
        // and a plain claim is not held back by anyone's cap
        assertThat(store.claim(ClaimRequest.of(10).withScope(ROUTE)).block(TIMEOUT))
                .hasSize(2);
    }

    @Test
    void O64_O63_a_re_arm_frees_slots_and_the_cap_composes_with_serial_dispatch() {
        // given two workflows with three rows each on the route
        List<OutboxRow> rows = new ArrayList<>();
        for (int w = 0; w < 2; w++) {
            for (int o = 0; o < 3; o++) {
                rows.add(routed(workflow(1 + w), o, now().minusSeconds(10), "ns", "q", null));
            }
        }
        stageAll(rows);
        DispatchPolicy serialCapped = cap(5).withSerialPerWorkflow(true);

        // when a serial claim capped at 5 runs, then it takes one row per workflow only
        List<OutboxRow> first = claim(ROUTE, 10, serialCapped);
        assertThat(first).extracting(OutboxRow::ordinal).containsExactly(0L, 0L);

        // and a plain cap of 2 now has no room; once the lease reaper re-arms both, it has
        assertThat(claim(ROUTE, 10, cap(2))).isEmpty();
        clock.advance(Duration.ofMinutes(10));
        assertThat(store.rearmStaleClaimed(now(), now(), 10).block(TIMEOUT)).hasSize(2);
        assertThat(claim(ROUTE, 10, cap(2))).hasSize(2);
    }

    @Test
    void O64_X10_bad_caps_and_a_cap_without_a_scope_are_refused_and_claim_nothing() {
        // given a due row
        OutboxRow r = stageRoute(1, "q").get(0);

        // when a cap is 0, negative or too large, then building the policy fails naming it
        for (int bad : new int[] {0, -1, Integer.MIN_VALUE, DispatchPolicy.MAX_CONCURRENCY_CAP + 1}) {
            assertThatThrownBy(() -> DispatchPolicy.none().withConcurrencyCap(bad))
                    .isInstanceOf(InvalidArgumentException.class)
                    .satisfies(e -> assertThat(((InvalidArgumentException) e).argument())
                            .isEqualTo("concurrencyCap"));
        }
        // and a cap without a scope fails naming policy.concurrencyCap, as a claim and as a stream
        assertRejected(() -> store.claim(ClaimRequest.of(5).withPolicy(cap(3))), "policy.concurrencyCap");
        assertRejected(
                () -> store.claimStream(ClaimStreamOptions.defaults().withPolicy(cap(3))), "policy.concurrencyCap");
        assertStatus(r.dispatchKey(), OutboxStatus.PENDING);
        // and the cap can be dropped again
        assertThat(cap(3).withoutConcurrencyCap()).isEqualTo(DispatchPolicy.none());
    }

    @Test
    void O64_O52_a_capped_stream_holds_at_most_the_cap_and_a_settle_wakes_it() {
        // given five due rows on the route
        stageRoute(5, "q");
        List<OutboxRow> received = new CopyOnWriteArrayList<>();

        // when a stream capped at 2 with an hour-long poll is asked for everything
        // then two arrive and it waits; each completion (not the poll) lets one more through
        StepVerifier.create(store.claimStream(ClaimStreamOptions.defaults()
                        .withScope(ROUTE)
                        .withPolicy(cap(2))
                        .withPollInterval(Duration.ofHours(1))))
                .recordWith(() -> received)
                .expectNextCount(2)
                .expectNoEvent(Duration.ofMillis(300))
                .then(() -> store.complete(received.get(0)).block(TIMEOUT))
                .expectNextCount(1)
                .expectNoEvent(Duration.ofMillis(200))
                .then(() -> store.complete(received.get(1)).block(TIMEOUT))
                .expectNextCount(1)
                .thenCancel()
                .verify(TIMEOUT);
        assertThat(received).hasSize(4);
    }

    @Test
    void O64_O21_capped_claimers_on_four_instances_never_hold_more_than_the_cap() {
        // given 120 due rows on the route and three more instances on the database (nodes)
        List<OutboxRow> rows = stageRoute(120, "q");
        List<ReactiveStore> nodes = List.of(store, harness.open(), harness.open(), harness.open());
        int cap = 3;
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger maxSeen = new AtomicInteger();
        AtomicInteger completed = new AtomicInteger();

        // when 8 loops (2 per instance) claim up to 2 rows at a time with a cap of 3, complete each
        Flux.range(0, 8)
                .flatMap(
                        i -> drain(nodes.get(i % 4), cap, inFlight, maxSeen, completed, rows.size())
                                .subscribeOn(Schedulers.parallel()),
                        8)
                .blockLast(Duration.ofMinutes(2));

        // then every row was completed and the route never had more than 3 in flight
        assertThat(completed.get()).isEqualTo(rows.size());
        assertThat(maxSeen.get()).isBetween(1, cap);
    }

    private Mono<Void> drain(
            ReactiveStore on,
            int cap,
            AtomicInteger inFlight,
            AtomicInteger maxSeen,
            AtomicInteger completed,
            int total) {
        return Mono.defer(() -> on.claim(
                        ClaimRequest.of(2).withScope(scope("ns", "q", null)).withPolicy(cap(cap))))
                .flatMap(claimed -> {
                    if (claimed.isEmpty()) {
                        // the route is full: look again shortly rather than spin on the write lock
                        return Mono.delay(Duration.ofMillis(2)).thenReturn(0);
                    }
                    int now = inFlight.addAndGet(claimed.size());
                    maxSeen.accumulateAndGet(now, Math::max);
                    return Flux.fromIterable(claimed)
                            .concatMap(r -> Mono.fromRunnable(inFlight::decrementAndGet)
                                    .then(on.complete(r))
                                    .doOnSuccess(v -> completed.incrementAndGet()))
                            .then(Mono.just(claimed.size()));
                })
                .repeat(() -> completed.get() < total)
                .then();
    }
}
