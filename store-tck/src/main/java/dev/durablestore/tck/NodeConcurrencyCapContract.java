package dev.durablestore.tck;

import static dev.durablestore.tck.OutboxFixtures.keys;
import static dev.durablestore.tck.OutboxFixtures.routed;
import static dev.durablestore.tck.OutboxFixtures.workflow;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.DispatchPolicy;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.OutboxLeaseReaper;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.Settlement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * Contract of concurrency caps per route and node (O65): every claim records its scope's node as
 * the claimer of the rows it takes, and a node-capped claim takes at most the cap minus the route's
 * rows claimed as its node, counted in its transaction, across every claimer of the database that
 * claims as that node.
 */
public abstract class NodeConcurrencyCapContract extends OutboxContractSupport {

    private static final ClaimScope NODE_1 = new ClaimScope("ns", "q", "n1");
    private static final ClaimScope NODE_2 = new ClaimScope("ns", "q", "n2");

    private static DispatchPolicy nodeCap(int n) {
        return DispatchPolicy.none().withNodeConcurrencyCap(n);
    }

    private List<OutboxRow> claim(ClaimScope scope, int limit, DispatchPolicy policy) {
        return store.claim(ClaimRequest.of(limit).withScope(scope).withPolicy(policy))
                .block(TIMEOUT);
    }

    private long claimedOnRoute() {
        return store.countClaimed("ns").block(TIMEOUT);
    }

    /**
     * Stages {@code n} due rows of workflows {@code first} to {@code first + n - 1} on route ns/q,
     * pinned to {@code node}; a row of a higher workflow number comes due later.
     */
    private List<OutboxRow> stageRoute(int n, int first, String node) {
        List<OutboxRow> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            rows.add(routed(workflow(first + i), 0, now().minusSeconds(1_000).plusSeconds(first + i), "ns", "q", node));
        }
        stageAll(rows);
        return rows;
    }

    @Test
    void O65_two_nodes_capped_at_k_each_hold_at_most_k_and_2k_together() {
        // given ten due rows on the route
        stageRoute(10, 1, null);

        // when node n1 claims with a node cap of 3, twice
        List<OutboxRow> first = claim(NODE_1, 10, nodeCap(3));
        List<OutboxRow> again = claim(NODE_1, 10, nodeCap(3));

        // then it takes 3, in claim order, and then none
        assertThat(first).hasSize(3);
        assertThat(again).isEmpty();

        // and node n2 with the same cap is not held back by n1's rows: it takes 3, then none
        assertThat(claim(NODE_2, 10, nodeCap(3))).hasSize(3);
        assertThat(claim(NODE_2, 10, nodeCap(3))).isEmpty();
        // and the route holds 2k = 6 claimed rows between the two
        assertThat(claimedOnRoute()).isEqualTo(6);
        // and a larger node cap takes more, up to its own bound
        assertThat(claim(NODE_1, 10, nodeCap(4))).hasSize(1);
    }

    @Test
    void O65_a_settle_frees_a_slot_of_its_node_only() {
        // given nine due rows, three claimed by each node under a node cap of 3
        stageRoute(9, 1, null);
        List<OutboxRow> ofNode1 = claim(NODE_1, 10, nodeCap(3));
        assertThat(claim(NODE_2, 10, nodeCap(3))).hasSize(3);

        // when n1 completes one row (fenced), fails one (by key)
        store.complete(ofNode1.get(0)).block(TIMEOUT);
        store.settleKeys(List.of(ofNode1.get(1).dispatchKey()), Settlement.fail())
                .block(TIMEOUT);

        // then n2 still has no room, and n1 has two slots
        assertThat(claim(NODE_2, 10, nodeCap(3))).isEmpty();
        assertThat(claim(NODE_1, 10, nodeCap(3))).hasSize(2);
        assertThat(claim(NODE_1, 10, nodeCap(3))).isEmpty();

        // and a retry frees a slot too (its row, due again later, is not taken)
        store.settle(ofNode1.get(2), Settlement.retryAt(1, now().plusSeconds(60)))
                .block(TIMEOUT);
        assertThat(claim(NODE_1, 10, nodeCap(3))).hasSize(1);
    }

    @Test
    void O65_a_lease_re_arm_frees_slots_and_a_re_claim_counts_for_the_new_claimer() {
        // given four due rows, the first two claimed by n1 under a node cap of 2
        List<OutboxRow> rows = stageRoute(4, 1, null);
        List<OutboxRow> ofNode1 = claim(NODE_1, 10, nodeCap(2));
        assertThat(ofNode1).extracting(OutboxRow::dispatchKey).containsExactlyElementsOf(keys(rows.subList(0, 2)));
        assertThat(claim(NODE_1, 10, nodeCap(2))).isEmpty();

        // when their lease runs out and the lease reaper re-arms them (due now, after the others)
        clock.advance(Duration.ofMinutes(10));
        OutboxLeaseReaper reaper =
                OutboxLeaseReaper.of(store).withLease(Duration.ofMinutes(1)).withClock(clock);
        StepVerifier.create(reaper.reapOnce()).expectNext(2L).expectComplete().verify(TIMEOUT);

        // then n1 has both its slots again: it takes the two rows it never had
        List<OutboxRow> again = claim(NODE_1, 10, nodeCap(2));
        assertThat(again).extracting(OutboxRow::dispatchKey).containsExactlyElementsOf(keys(rows.subList(2, 4)));
        // and n2 claims the re-armed rows, which count for n2 now
        assertThat(claim(NODE_2, 10, nodeCap(2)))
                .extracting(OutboxRow::dispatchKey)
                .containsExactlyElementsOf(keys(ofNode1));
        assertThat(claim(NODE_2, 10, nodeCap(2))).isEmpty();
        // and not for n1: once n1 completes one of its two, it has room for exactly one more
        store.complete(again.get(0)).block(TIMEOUT);
        stageRoute(2, 5, null);
        assertThat(claim(NODE_1, 10, nodeCap(2))).hasSize(1);
    }

    @Test
    void O65_O7_pinned_and_unpinned_rows_count_for_the_node_that_claimed_them_not_for_their_pin() {
        // given two rows pinned to n1, then two unpinned, then one pinned to n2, due in that order
        List<OutboxRow> pinned1 = stageRoute(2, 1, "n1");
        List<OutboxRow> unpinned = stageRoute(2, 3, null);
        OutboxRow pinned2 = stageRoute(1, 5, "n2").get(0);

        // when n1 claims with a node cap of 3
        List<OutboxRow> ofNode1 = claim(NODE_1, 10, nodeCap(3));

        // then it takes its two pinned rows and one unpinned, then nothing more
        assertThat(ofNode1)
                .extracting(OutboxRow::dispatchKey)
                .containsExactly(
                        pinned1.get(0).dispatchKey(),
                        pinned1.get(1).dispatchKey(),
                        unpinned.get(0).dispatchKey());
        assertThat(claim(NODE_1, 10, nodeCap(3))).isEmpty();
        // and n2, capped at 3, takes the other unpinned row and its own pinned one
        assertThat(claim(NODE_2, 10, nodeCap(3)))
                .extracting(OutboxRow::dispatchKey)
                .containsExactly(unpinned.get(1).dispatchKey(), pinned2.dispatchKey());

        // and a row pinned to n1 but claimed by a claim of every route (no node) counts for no node:
        // once n1 completes a row, its cap of 3 has room for one again
        OutboxRow late = stageRoute(1, 6, "n1").get(0);
        assertThat(store.claim(ClaimRequest.of(1)).block(TIMEOUT))
                .extracting(OutboxRow::dispatchKey)
                .containsExactly(late.dispatchKey());
        OutboxRow next = stageRoute(1, 7, "n1").get(0);
        store.complete(ofNode1.get(0)).block(TIMEOUT);
        assertThat(claim(NODE_1, 10, nodeCap(3)))
                .extracting(OutboxRow::dispatchKey)
                .containsExactly(next.dispatchKey());
    }

    @Test
    void O65_claims_as_the_node_without_the_cap_count_against_it_but_are_not_held_back() {
        // given eight due rows, two claimed by n1 without a policy
        stageRoute(8, 1, null);
        assertThat(claim(NODE_1, 2, DispatchPolicy.none())).hasSize(2);

        // when n1 claims with a node cap of 3, then it takes one (3 minus the 2)
        assertThat(claim(NODE_1, 10, nodeCap(3))).hasSize(1);
        // and a plain claim as n1 is not held back by n1's cap
        assertThat(claim(NODE_1, 1, DispatchPolicy.none())).hasSize(1);
        // and a claim without a node (the route's unpinned rows) counts for no node: with four
        // rows claimed as n1, a node cap of 5 leaves n1 room for exactly one
        assertThat(store.claim(ClaimRequest.of(1).withScope(ClaimScope.of("ns", "q")))
                        .block(TIMEOUT))
                .hasSize(1);
        assertThat(claim(NODE_1, 10, nodeCap(5))).hasSize(1);
        assertThat(claimedOnRoute()).isEqualTo(6);
    }

    @Test
    void O65_O64_with_a_route_cap_the_smaller_room_wins() {
        // given ten due rows and a policy with a route cap of 4 and a node cap of 3
        stageRoute(10, 1, null);
        DispatchPolicy both = DispatchPolicy.none().withConcurrencyCap(4).withNodeConcurrencyCap(3);

        // when n1 claims, then the node's room (3) is the smaller
        List<OutboxRow> ofNode1 = claim(NODE_1, 10, both);
        assertThat(ofNode1).hasSize(3);
        // and when n2 claims, the route's room (4 - 3 = 1) is
        assertThat(claim(NODE_2, 10, both)).hasSize(1);
        assertThat(claim(NODE_2, 10, both)).isEmpty();

        // and once n1 completes a row, the route has room for one, which n2 may take
        store.complete(ofNode1.get(0)).block(TIMEOUT);
        assertThat(claim(NODE_2, 10, both)).hasSize(1);
        assertThat(claim(NODE_1, 10, both)).isEmpty();
        assertThat(claimedOnRoute()).isEqualTo(4);
    }

    @Test
    void O65_O63_a_serial_node_capped_claim_takes_one_row_per_workflow_within_the_cap() {
        // given four workflows with three rows each on the route
        List<OutboxRow> rows = new ArrayList<>();
        for (int w = 0; w < 4; w++) {
            for (int o = 0; o < 3; o++) {
                rows.add(routed(workflow(1 + w), o, now().minusSeconds(10 - w), "ns", "q", null));
            }
        }
        stageAll(rows);
        DispatchPolicy serialNodeCapped = nodeCap(3).withSerialPerWorkflow(true);

        // when n1 claims serially with a node cap of 3
        List<OutboxRow> ofNode1 = claim(NODE_1, 10, serialNodeCapped);

        // then it takes the first row of three workflows, and then nothing more
        assertThat(ofNode1).extracting(OutboxRow::workflowId).containsExactly(workflow(1), workflow(2), workflow(3));
        assertThat(ofNode1).extracting(OutboxRow::ordinal).containsOnly(0L);
        assertThat(claim(NODE_1, 10, serialNodeCapped)).isEmpty();
        // and n2 takes only the fourth workflow's first row: the others have a row claimed
        assertThat(claim(NODE_2, 10, serialNodeCapped))
                .extracting(OutboxRow::workflowId, OutboxRow::ordinal)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(workflow(4), 0L));

        // and once n1 completes its first workflow's row, it takes that workflow's next
        store.complete(ofNode1.get(0)).block(TIMEOUT);
        assertThat(claim(NODE_1, 10, serialNodeCapped))
                .extracting(OutboxRow::workflowId, OutboxRow::ordinal)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(workflow(1), 1L));
    }

    @Test
    void O65_X10_bad_node_caps_and_a_node_cap_without_a_node_are_refused_and_claim_nothing() {
        // given a due row
        OutboxRow r = stageRoute(1, 1, null).get(0);

        // when a node cap is 0, negative or too large, then building the policy fails naming it
        for (int bad : new int[] {0, -1, Integer.MIN_VALUE, DispatchPolicy.MAX_CONCURRENCY_CAP + 1}) {
            assertThatThrownBy(() -> DispatchPolicy.none().withNodeConcurrencyCap(bad))
                    .isInstanceOf(InvalidArgumentException.class)
                    .satisfies(e -> assertThat(((InvalidArgumentException) e).argument())
                            .isEqualTo("nodeConcurrencyCap"));
        }
        // and a node cap without a scope, or with a scope without a node, fails naming
        // policy.nodeConcurrencyCap, as a claim and as a stream
        ClaimScope noNode = ClaimScope.of("ns", "q");
        assertRejected(() -> store.claim(ClaimRequest.of(5).withPolicy(nodeCap(3))), "policy.nodeConcurrencyCap");
        assertRejected(
                () -> store.claim(ClaimRequest.of(5).withScope(noNode).withPolicy(nodeCap(3))),
                "policy.nodeConcurrencyCap");
        assertRejected(
                () -> store.claimStream(ClaimStreamOptions.defaults().withPolicy(nodeCap(3))),
                "policy.nodeConcurrencyCap");
        assertRejected(
                () -> store.claimStream(
                        ClaimStreamOptions.defaults().withScope(noNode).withPolicy(nodeCap(3))),
                "policy.nodeConcurrencyCap");
        // and a node the store cannot keep (it would record it) fails naming scope.node
        assertRejected(
                () -> store.claim(ClaimRequest.of(5)
                        .withScope(new ClaimScope("ns", "q", "n\u0000"))
                        .withPolicy(nodeCap(3))),
                "scope.node");
        // and nothing was claimed
        assertStatus(r.dispatchKey(), OutboxStatus.PENDING);
        // and the node cap can be dropped again
        assertThat(nodeCap(3).withoutNodeConcurrencyCap()).isEqualTo(DispatchPolicy.none());
    }

    @Test
    void O65_O52_a_node_capped_stream_holds_at_most_the_cap_and_a_settle_wakes_it() {
        // given five due rows on the route
        stageRoute(5, 1, null);
        List<OutboxRow> received = new CopyOnWriteArrayList<>();

        // when a stream of n1 capped at 2 with an hour-long poll is asked for everything
        // then two arrive and the route holds just those; each completion (not the poll) lets one
        // more through
        StepVerifier.create(store.claimStream(ClaimStreamOptions.defaults()
                        .withScope(NODE_1)
                        .withPolicy(nodeCap(2))
                        .withPollInterval(Duration.ofHours(1))))
                .recordWith(() -> received)
                .expectNextCount(2)
                .then(() -> assertThat(claimedOnRoute()).isEqualTo(2))
                .then(() -> store.complete(received.get(0)).block(TIMEOUT))
                .expectNextCount(1)
                .then(() -> assertThat(claimedOnRoute()).isEqualTo(2))
                .then(() -> store.complete(received.get(1)).block(TIMEOUT))
                .expectNextCount(1)
                .thenCancel()
                .verify(TIMEOUT);
        assertThat(received).hasSize(4);
        // and a stream of another node is not held back by n1's rows
        StepVerifier.create(store.claimStream(
                        ClaimStreamOptions.defaults().withScope(NODE_2).withPolicy(nodeCap(2))))
                .expectNextCount(1)
                .thenCancel()
                .verify(TIMEOUT);
    }

    @Test
    void O65_O21_node_capped_claimers_on_four_instances_never_hold_more_than_the_cap_per_node() {
        // given 120 due rows on the route, 40 pinned to n1, 40 to n2 and 40 for either (so each
        // node has rows only it can take, however the claimers are scheduled), and three more
        // instances on the database, two claiming as n1 and two as n2 (a node's claimers sharing
        // the database, on any instance)
        List<OutboxRow> rows = new ArrayList<>(stageRoute(40, 1, "n1"));
        rows.addAll(stageRoute(40, 41, "n2"));
        rows.addAll(stageRoute(40, 81, null));
        List<ReactiveStore> instances = List.of(store, harness.open(), harness.open(), harness.open());
        int cap = 2;
        AtomicIntegerArray inFlight = new AtomicIntegerArray(2);
        AtomicIntegerArray maxSeen = new AtomicIntegerArray(2);
        AtomicInteger completed = new AtomicInteger();

        // when 8 loops (2 per instance) claim up to 2 rows at a time with a node cap of 2, half of
        // each node's loops also with a route cap that never binds, and complete each row
        DispatchPolicy alsoRouteCapped = nodeCap(cap).withConcurrencyCap(1_000);
        Flux.range(0, 8)
                .flatMap(
                        i -> drain(
                                        instances.get(i % 4),
                                        i % 2,
                                        (i / 2) % 2 == 0 ? nodeCap(cap) : alsoRouteCapped,
                                        inFlight,
                                        maxSeen,
                                        completed,
                                        rows.size())
                                .subscribeOn(Schedulers.parallel()),
                        8)
                .blockLast(Duration.ofMinutes(2));

        // then every row was completed and neither node ever had more than 2 in flight
        assertThat(completed.get()).isEqualTo(rows.size());
        assertThat(maxSeen.get(0)).isBetween(1, cap);
        assertThat(maxSeen.get(1)).isBetween(1, cap);
    }

    private Mono<Void> drain(
            ReactiveStore on,
            int node,
            DispatchPolicy policy,
            AtomicIntegerArray inFlight,
            AtomicIntegerArray maxSeen,
            AtomicInteger completed,
            int total) {
        ClaimScope scope = node == 0 ? NODE_1 : NODE_2;
        return Mono.defer(() -> on.claim(ClaimRequest.of(2).withScope(scope).withPolicy(policy)))
                .flatMap(claimed -> {
                    if (claimed.isEmpty()) {
                        // the node is full: look again shortly rather than spin on the write lock
                        return Mono.delay(Duration.ofMillis(2)).thenReturn(0);
                    }
                    int now = inFlight.addAndGet(node, claimed.size());
                    maxSeen.accumulateAndGet(node, now, Math::max);
                    return Flux.fromIterable(claimed)
                            .concatMap(r -> Mono.fromRunnable(() -> inFlight.decrementAndGet(node))
                                    .then(on.complete(r))
                                    .doOnSuccess(v -> completed.incrementAndGet()))
                            .then(Mono.just(claimed.size()));
                })
                .repeat(() -> completed.get() < total)
                .then();
    }
}
