package dev.durablestore.tck;

import static dev.durablestore.tck.OutboxFixtures.keys;
import static dev.durablestore.tck.OutboxFixtures.routed;
import static dev.durablestore.tck.OutboxFixtures.row;
import static dev.durablestore.tck.OutboxFixtures.scope;
import static dev.durablestore.tck.OutboxFixtures.started;
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
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.WorkflowStep;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * Contract of serial dispatch per workflow (O63): a serial claim takes a row only when no row of its
 * workflow is claimed and no pending row of it comes before it, so a workflow's rows are handed out
 * one at a time, in ordinal order, across every claimer of the database.
 */
public abstract class SerialDispatchContract extends OutboxContractSupport {

    private static final DispatchPolicy SERIAL = DispatchPolicy.none().withSerialPerWorkflow(true);

    private List<OutboxRow> serial(ClaimScope scope, int limit, Set<WorkflowId> held) {
        return store.claim(ClaimRequest.of(limit)
                        .withScope(scope)
                        .withHeldWorkflows(held)
                        .withPolicy(SERIAL))
                .block(TIMEOUT);
    }

    private List<OutboxRow> serial(int limit) {
        return serial(null, limit, Set.of());
    }

    /** Three rows for each of {@code workflows} workflows, ordinals 0..2, all due. */
    private List<OutboxRow> stageWorkflows(int workflows, int first) {
        List<OutboxRow> rows = new ArrayList<>();
        for (int w = 0; w < workflows; w++) {
            for (int o = 0; o < 3; o++) {
                rows.add(row(workflow(first + w), o, now().minusSeconds(30 - o - w)));
            }
        }
        stageAll(rows);
        return rows;
    }

    @Test
    void O63_a_serial_claim_takes_one_row_per_workflow_and_the_first_by_ordinal() {
        // given three workflows with three due rows each
        stageWorkflows(3, 1);

        // when a serial claim asks for ten
        List<OutboxRow> claimed = serial(10);

        // then it takes ordinal 0 of each workflow, one each, and a second serial claim takes nothing
        assertThat(claimed).extracting(OutboxRow::ordinal).containsOnly(0L);
        assertThat(claimed)
                .extracting(OutboxRow::workflowId)
                .doesNotHaveDuplicates()
                .hasSize(3);
        assertThat(serial(10)).isEmpty();

        // and once a workflow's row completes, its next row (and only that) becomes claimable
        OutboxRow done = claimed.get(1);
        store.complete(done).block(TIMEOUT);
        assertThat(serial(10))
                .extracting(OutboxRow::workflowId, OutboxRow::ordinal)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(done.workflowId(), 1L));
    }

    @Test
    void O63_a_plain_claim_ignores_the_policy_and_its_claims_block_serial_claims_of_the_workflow() {
        // given two workflows with three rows each, and a plain claim of one row of the first
        stageWorkflows(2, 1);
        List<OutboxRow> plain = store.claim(ClaimRequest.of(1).withHeldWorkflows(Set.of(workflow(2))))
                .block(TIMEOUT);
        assertThat(plain).hasSize(1);

        // when a serial claim runs
        List<OutboxRow> claimed = serial(10);

        // then the first workflow is busy: only the second workflow's first row comes
        assertThat(claimed)
                .extracting(OutboxRow::workflowId, OutboxRow::ordinal)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(workflow(2), 0L));
        // and a plain claim still takes every remaining row
        assertThat(claim(10)).hasSize(4);
    }

    @Test
    void O63_retry_cancel_fail_and_re_arm_free_the_workflow_and_ordinal_order_holds_across_a_retry() {
        // given a workflow with four due rows, its first claimed serially
        WorkflowId w = workflow(1);
        List<OutboxRow> rows = new ArrayList<>();
        for (int o = 0; o < 4; o++) {
            rows.add(row(w, o, now().minusSeconds(10)));
        }
        stageAll(rows);
        OutboxRow first = single(serial(10), 0);

        // when it is retried later, the next rows wait for it (it is still first by ordinal)
        store.settle(first, Settlement.retryAt(1, now().plusSeconds(60))).block(TIMEOUT);
        assertThat(serial(10)).isEmpty();
        clock.advance(Duration.ofSeconds(60));
        OutboxRow again = single(serial(10), 0);

        // then cancelling it frees the next, failing that frees the next, and a lease re-arm
        // returns a claimed row to first place
        store.settle(again, Settlement.cancel()).block(TIMEOUT);
        OutboxRow second = single(serial(10), 1);
        store.settle(second, Settlement.fail()).block(TIMEOUT);
        OutboxRow third = single(serial(10), 2);
        clock.advance(Duration.ofMinutes(10));
        assertThat(store.rearmStaleClaimed(now(), now(), 10).block(TIMEOUT)).hasSize(1);
        assertThat(single(serial(10), 2).dispatchKey()).isEqualTo(third.dispatchKey());
        assertThat(serial(10)).isEmpty();
    }

    private static OutboxRow single(List<OutboxRow> claimed, long ordinal) {
        assertThat(claimed).extracting(OutboxRow::ordinal).containsExactly(ordinal);
        return claimed.get(0);
    }

    @Test
    void O63_O62_ordinal_order_comes_before_visibility_and_priority() {
        // given a workflow whose first row is fenced in the future and whose second is due and urgent
        WorkflowId w = workflow(1);
        OutboxRow first = row(w, 0, now().plusSeconds(30));
        OutboxRow urgent = row(w, 1, now().minusSeconds(30)).withPriority(9);
        OutboxRow other = row(workflow(2), 0, now());
        stage(first, urgent, other);

        // when claimed serially, the urgent row waits for the first; a plain claim would take it
        assertThat(keys(serial(10))).containsExactly(other.dispatchKey());

        // and once the first is due it comes, then, after it completes, the urgent one
        clock.advance(Duration.ofSeconds(30));
        OutboxRow taken = single(serial(10), 0);
        store.complete(taken).block(TIMEOUT);
        assertThat(keys(serial(10))).containsExactly(urgent.dispatchKey());
    }

    @Test
    void O63_O26_O27_composes_with_scope_node_pins_and_held_workflows() {
        // given a held workflow, a workflow whose first row is on another route, and pinned rows
        WorkflowId held = workflow(1);
        WorkflowId crossRoute = workflow(2);
        WorkflowId pinned = workflow(3);
        WorkflowId plain = workflow(4);
        stage(
                routed(held, 0, now(), "ns", "q", null),
                routed(crossRoute, 0, now(), "ns", "elsewhere", null),
                routed(crossRoute, 1, now(), "ns", "q", null),
                routed(pinned, 0, now(), "ns", "q", "node-b"),
                routed(pinned, 1, now(), "ns", "q", "node-a"),
                routed(plain, 0, now(), "ns", "q", "node-a"),
                routed(plain, 1, now(), "ns", "q", null));

        // when node-a claims serially on ns/q, holding the first workflow
        List<OutboxRow> claimed = serial(scope("ns", "q", "node-a"), 10, Set.of(held));

        // then only the plain workflow's first row comes: the held one stays, the cross-route and
        // pinned workflows wait for their first rows, which other scopes own
        assertThat(claimed)
                .extracting(OutboxRow::workflowId, OutboxRow::ordinal)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(plain, 0L));
        assertStatus(OutboxRow.dispatchKey(held, 0), OutboxStatus.PENDING);
        assertStatus(OutboxRow.dispatchKey(crossRoute, 1), OutboxStatus.PENDING);
        assertStatus(OutboxRow.dispatchKey(pinned, 1), OutboxStatus.PENDING);

        // and once the other route's first row is claimed and completed there, the next comes here
        OutboxRow away = single(serial(scope("ns", "elsewhere", null), 10, Set.of()), 0);
        store.complete(away).block(TIMEOUT);
        assertThat(serial(scope("ns", "q", "node-a"), 10, Set.of(held)))
                .extracting(OutboxRow::workflowId, OutboxRow::ordinal)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(crossRoute, 1L));
    }

    @Test
    void O63_W1_a_step_that_completes_the_claimed_row_and_stages_the_next_makes_the_next_claimable() {
        // given a started workflow with one staged row, claimed serially
        WorkflowId w = workflow(1);
        store.appendWithOutbox(w, List.of(started(w, 1, now())), 0, List.of(row(w, 0, now())))
                .block(TIMEOUT);
        OutboxRow first = single(serial(10), 0);

        // when a step completes it and stages the next row in one transaction
        store.commitStep(WorkflowStep.builder(w, 1)
                        .append(OutboxFixtures.signal(w, 2, now()))
                        .complete(first)
                        .stage(row(w, 1, now()))
                        .build())
                .block(TIMEOUT);

        // then the next row is claimable serially at once
        single(serial(10), 1);
    }

    @Test
    void O63_O52_a_serial_stream_hands_out_one_row_per_workflow_and_a_settle_wakes_it() {
        // given two workflows with two rows each
        WorkflowId a = workflow(1);
        WorkflowId b = workflow(2);
        stage(row(a, 0, now()), row(a, 1, now()), row(b, 0, now()), row(b, 1, now()));
        List<OutboxRow> received = new CopyOnWriteArrayList<>();

        // when a serial stream with an hour-long poll interval is asked for everything
        // then it delivers the first row of each workflow and waits; completing a row (not the
        // poll) brings that workflow's next row
        StepVerifier.create(store.claimStream(
                        ClaimStreamOptions.defaults().withPolicy(SERIAL).withPollInterval(Duration.ofHours(1))))
                .recordWith(() -> received)
                .expectNextCount(2)
                .then(() -> assertThat(received).extracting(OutboxRow::ordinal).containsOnly(0L))
                .expectNoEvent(Duration.ofMillis(300))
                .then(() -> store.complete(received.get(0)).block(TIMEOUT))
                .assertNext(r ->
                        assertThat(r.workflowId()).isEqualTo(received.get(0).workflowId()))
                .then(() -> store.complete(received.get(1)).block(TIMEOUT))
                .assertNext(r ->
                        assertThat(r.workflowId()).isEqualTo(received.get(1).workflowId()))
                .thenCancel()
                .verify(TIMEOUT);
    }

    @Test
    void O63_X10_bad_arguments_are_refused_naming_them_and_claim_nothing() {
        // given a due row
        OutboxRow r = row(workflow(1), 0, now());
        stage(r);

        // when a serial claim is built with a negative limit, a null policy or a null hold, or a stream with a
        // null policy
        // then building it throws naming the argument, and the row stays pending
        buildRefused(() -> ClaimRequest.of(-1).withPolicy(SERIAL), "limit");
        buildRefused(() -> ClaimRequest.of(1).withPolicy(null), "policy");
        buildRefused(() -> ClaimRequest.of(1).withPolicy(SERIAL).withHeldWorkflows(null), "heldWorkflows");
        assertThatThrownBy(() -> ClaimStreamOptions.defaults().withPolicy(null))
                .isInstanceOf(InvalidArgumentException.class)
                .satisfies(e ->
                        assertThat(((InvalidArgumentException) e).argument()).isEqualTo("policy"));
        assertStatus(r.dispatchKey(), OutboxStatus.PENDING);
        // and a claim of limit 0 takes nothing, and the policy without constraint claims like no policy
        assertThat(store.claim(ClaimRequest.of(0).withPolicy(SERIAL)).block(TIMEOUT))
                .isEmpty();
        assertThat(keys(store.claim(ClaimRequest.of(5).withPolicy(DispatchPolicy.none()))
                        .block(TIMEOUT)))
                .containsExactly(r.dispatchKey());
    }

    @Test
    void O63_O21_concurrent_serial_claimers_on_four_instances_never_hold_two_rows_of_a_workflow() {
        // given 40 workflows with 4 due rows each, and three more store instances on the same
        // database (nodes, on PostgreSQL)
        int workflows = 40;
        int perWorkflow = 4;
        List<OutboxRow> rows = new ArrayList<>();
        for (int w = 0; w < workflows; w++) {
            for (int o = 0; o < perWorkflow; o++) {
                rows.add(row(workflow(100 + w), o, now().minusSeconds(o)));
            }
        }
        stageAll(rows);
        List<ReactiveStore> nodes = List.of(store, harness.open(), harness.open(), harness.open());
        Map<WorkflowId, String> inFlight = new ConcurrentHashMap<>();
        Map<WorkflowId, List<Long>> order = new ConcurrentHashMap<>();
        List<String> violations = new CopyOnWriteArrayList<>();
        AtomicInteger completed = new AtomicInteger();

        // when 8 serial claim loops (2 per instance) drain it, completing each row fenced
        Flux.range(0, 8)
                .flatMap(
                        i -> drain(nodes.get(i % 4), inFlight, order, violations, completed, rows.size())
                                .subscribeOn(Schedulers.parallel()),
                        8)
                .blockLast(Duration.ofMinutes(2));

        // then no workflow ever had two rows in flight, and each was handed out in ordinal order
        assertThat(violations).isEmpty();
        assertThat(completed.get()).isEqualTo(rows.size());
        assertThat(order).hasSize(workflows);
        for (List<Long> ordinals : order.values()) {
            assertThat(ordinals).containsExactly(0L, 1L, 2L, 3L);
        }
    }

    private Mono<Void> drain(
            ReactiveStore on,
            Map<WorkflowId, String> inFlight,
            Map<WorkflowId, List<Long>> order,
            List<String> violations,
            AtomicInteger completed,
            int total) {
        return Mono.defer(() -> on.claim(ClaimRequest.of(3).withPolicy(SERIAL)))
                .flatMap(claimed -> {
                    if (claimed.isEmpty()) {
                        // every workflow left is busy: look again shortly rather than spin on the
                        // write lock (four SQLite instances on one file would starve each other)
                        return Mono.delay(Duration.ofMillis(2)).thenReturn(0);
                    }
                    for (OutboxRow r : claimed) {
                        String before = inFlight.putIfAbsent(r.workflowId(), r.dispatchKey());
                        if (before != null) {
                            violations.add(r.dispatchKey() + " claimed while " + before + " was in flight");
                        }
                        order.computeIfAbsent(r.workflowId(), k -> new CopyOnWriteArrayList<>())
                                .add(r.ordinal());
                    }
                    return Flux.fromIterable(claimed)
                            .concatMap(r -> Mono.fromRunnable(() -> inFlight.remove(r.workflowId(), r.dispatchKey()))
                                    .then(on.complete(r))
                                    .doOnSuccess(v -> completed.incrementAndGet()))
                            .then(Mono.just(claimed.size()));
                })
                .repeat(() -> completed.get() < total)
                .then();
    }
}
