package dev.durablestore.tck;

import static dev.durablestore.tck.OutboxFixtures.keys;
import static dev.durablestore.tck.OutboxFixtures.routed;
import static dev.durablestore.tck.OutboxFixtures.row;
import static dev.durablestore.tck.OutboxFixtures.scope;
import static dev.durablestore.tck.OutboxFixtures.workflow;
import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.DispatchPolicy;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.SerializationException;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.WorkflowId;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * Contract of {@code claim(ClaimRequest)}, plain, scoped, holding workflows or both (O7, O16–O28),
 * and of claims meeting an undecodable row (X6).
 */
public abstract class ClaimContract extends OutboxContractSupport {

    // ---------------------------------------------------------------- scope predicate (O7)

    @Test
    void O7_C95_a_pinned_scope_admits_rows_pinned_to_its_node_and_unpinned_rows() {
        // given scope (remote, gpu, box-7)
        ClaimScope scope = scope("remote", "gpu", "box-7");
        WorkflowId w = workflow(1);

        // when checking (remote, gpu, box-7) and (remote, gpu, none)
        // then both are admitted
        assertThat(scope.admits(routed(w, 0, now(), "remote", "gpu", "box-7"))).isTrue();
        assertThat(scope.admits(routed(w, 1, now(), "remote", "gpu", null))).isTrue();
    }

    @Test
    void O7_C96_a_scope_rejects_other_namespaces_task_queues_and_nodes() {
        // given scope (remote, gpu, box-7)
        ClaimScope scope = scope("remote", "gpu", "box-7");
        WorkflowId w = workflow(1);

        // when checking (default, gpu, none), (remote, cpu, none), (remote, gpu, box-9)
        // then none is admitted
        assertThat(scope.admits(routed(w, 0, now(), "default", "gpu", null))).isFalse();
        assertThat(scope.admits(routed(w, 1, now(), "remote", "cpu", null))).isFalse();
        assertThat(scope.admits(routed(w, 2, now(), "remote", "gpu", "box-9"))).isFalse();
    }

    @Test
    void O7_C97_a_node_less_scope_admits_only_unpinned_rows() {
        // given scope (remote, gpu, no node)
        ClaimScope scope = ClaimScope.of("remote", "gpu");
        WorkflowId w = workflow(1);

        // then (remote, gpu, none) is admitted and (remote, gpu, box-7) is not
        assertThat(scope.admits(routed(w, 0, now(), "remote", "gpu", null))).isTrue();
        assertThat(scope.admits(routed(w, 1, now(), "remote", "gpu", "box-7"))).isFalse();
    }

    // ---------------------------------------------------------------- due rows, order, limit (O16–O21)

    @Test
    void O16_a_zero_limit_claims_nothing_with_and_without_scope_hold_and_policy() {
        // given two due rows
        WorkflowId w = workflow(1);
        OutboxRow a = row(w, 0, now());
        OutboxRow b = row(w, 1, now());
        stage(a, b);

        // when claims with limit 0 run plain, scoped, holding another workflow, and with all three and a policy
        ClaimScope any = ClaimScope.of("default", "default");
        Set<WorkflowId> other = Set.of(workflow(2));
        for (ClaimRequest request : List.of(
                ClaimRequest.of(0),
                ClaimRequest.of(0).withScope(any),
                ClaimRequest.of(0).withHeldWorkflows(other),
                ClaimRequest.of(0)
                        .withScope(any)
                        .withHeldWorkflows(other)
                        .withPolicy(DispatchPolicy.none().withSerialPerWorkflow(true)))) {
            // then each returns nothing
            StepVerifier.create(store.claim(request))
                    .expectNext(List.of())
                    .expectComplete()
                    .verify(TIMEOUT);
        }

        // and both rows are still pending
        assertState(a.dispatchKey(), OutboxStatus.PENDING, 0, now());
        assertState(b.dispatchKey(), OutboxStatus.PENDING, 0, now());
    }

    @Test
    void O17_a_row_is_due_at_its_visibility_inclusive_and_not_a_nanosecond_earlier() {
        // given a row visible exactly now and one visible a nanosecond from now
        WorkflowId w = workflow(1);
        OutboxRow atNow = row(w, 0, now());
        OutboxRow justLater = row(w, 1, now().plusNanos(1));
        stage(atNow, justLater);

        // when claiming
        // then only the row visible now is taken
        StepVerifier.create(store.claim(ClaimRequest.of(10)))
                .assertNext(rows -> assertThat(keys(rows)).containsExactly(atNow.dispatchKey()))
                .expectComplete()
                .verify(TIMEOUT);
        assertState(justLater.dispatchKey(), OutboxStatus.PENDING, 0, now().plusNanos(1));

        // when the clock moves one nanosecond
        clock.advance(Duration.ofNanos(1));

        // then the second row is due
        assertThat(keys(claim(10))).containsExactly(justLater.dispatchKey());
    }

    @Test
    void O17_a_row_fenced_in_the_future_becomes_due_when_the_clock_passes_it() {
        // given a row visible in one hour
        WorkflowId w = workflow(1);
        OutboxRow a = row(w, 0, now().plus(Duration.ofHours(1)));
        stage(a);

        // when claiming now
        // then nothing is taken
        assertThat(claim(10)).isEmpty();

        // when the clock passes its visibility
        clock.advance(Duration.ofHours(2));

        // then it is taken
        assertThat(keys(claim(10))).containsExactly(a.dispatchKey());
    }

    @Test
    void O18_C37_rows_are_taken_oldest_visibility_first() {
        // given b (ordinal 1, visible e2) staged before a (ordinal 0, visible e1)
        WorkflowId w = workflow(1);
        OutboxRow a = row(w, 0, Instant.ofEpochSecond(1));
        OutboxRow b = row(w, 1, Instant.ofEpochSecond(2));
        stage(b, a);

        // when claiming 10
        // then a comes before b, both claimed at now; a second claim is empty
        StepVerifier.create(store.claim(ClaimRequest.of(10)))
                .assertNext(rows -> assertThat(OutboxFixtures.withoutTokens(rows))
                        .containsExactly(
                                a.withStatus(OutboxStatus.CLAIMED, now()), b.withStatus(OutboxStatus.CLAIMED, now())))
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.claim(ClaimRequest.of(10)))
                .expectNext(List.of())
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O18_equal_visibility_orders_by_key_text_so_10_precedes_2() {
        // given ordinals 2, 10 and 1 of one workflow, all visible at the same instant
        WorkflowId w = workflow(1);
        OutboxRow two = row(w, 2, now());
        OutboxRow ten = row(w, 10, now());
        OutboxRow one = row(w, 1, now());
        stage(two, ten, one);

        // when claiming
        // then keys come in plain text order: ":1", ":10", ":2"
        StepVerifier.create(store.claim(ClaimRequest.of(10)))
                .assertNext(rows ->
                        assertThat(keys(rows)).containsExactly(one.dispatchKey(), ten.dispatchKey(), two.dispatchKey()))
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O18_S11_time_order_holds_across_fraction_digits() {
        // given a row visible at a whole second (key "…:1") and one visible half a second later (key "…:0"),
        // whose variable-precision texts would sort the other way
        WorkflowId w = workflow(1);
        Instant whole = now().minusSeconds(1);
        OutboxRow early = row(w, 1, whole);
        OutboxRow late = row(w, 0, whole.plusMillis(500));
        OutboxRow latest = row(w, 2, whole.plusNanos(999_999_999));
        stage(late, latest, early);

        // when claiming
        // then they come in time order
        StepVerifier.create(store.claim(ClaimRequest.of(10)))
                .assertNext(rows -> assertThat(keys(rows))
                        .containsExactly(early.dispatchKey(), late.dispatchKey(), latest.dispatchKey()))
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O19_C41_a_claim_takes_at_most_its_limit() {
        // given five due rows visible e1…e5
        WorkflowId w = workflow(1);
        List<OutboxRow> rows = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            rows.add(row(w, i, Instant.ofEpochSecond(i + 1)));
        }
        stageAll(rows);

        // when claiming 2 and then 10
        // then the claims return the first 2 and the remaining 3, in order
        StepVerifier.create(store.claim(ClaimRequest.of(2)))
                .assertNext(claimed -> assertThat(keys(claimed)).containsExactlyElementsOf(keys(rows.subList(0, 2))))
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.claim(ClaimRequest.of(10)))
                .assertNext(claimed -> assertThat(keys(claimed)).containsExactlyElementsOf(keys(rows.subList(2, 5))))
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O20_claiming_sets_claimed_at_now_and_keeps_the_attempt() {
        // given a row with attempt 3
        WorkflowId w = workflow(1);
        OutboxRow a = row(w, 0, now().minusSeconds(5)).withAttempt(3);
        stage(a);
        clock.advance(Duration.ofMillis(1234));
        Instant claimTime = now();

        // when it is claimed
        // then it is returned claimed at the clock's instant, attempt not incremented
        StepVerifier.create(store.claim(ClaimRequest.of(1)))
                .assertNext(rows -> assertThat(OutboxFixtures.withoutTokens(rows))
                        .containsExactly(a.withStatus(OutboxStatus.CLAIMED, claimTime)))
                .expectComplete()
                .verify(TIMEOUT);
        // and the stored row agrees
        assertState(
                a.dispatchKey(),
                OutboxStatus.CLAIMED,
                3,
                now().minusMillis(1234).minusSeconds(5));
        StepVerifier.create(store.listStaleClaimed(claimTime.plusNanos(1), 10).map(OutboxFixtures::withoutToken))
                .expectNext(a.withStatus(OutboxStatus.CLAIMED, claimTime))
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O21_a_claimed_row_is_not_claimed_again_until_returned_to_pending() {
        // given a claimed row
        WorkflowId w = workflow(1);
        OutboxRow a = row(w, 0, now());
        stage(a);
        assertThat(keys(claim(10))).containsExactly(a.dispatchKey());

        // when claims plain, holding nothing and scoped to its route claim again
        // then none returns it
        assertThat(claim(10)).isEmpty();
        assertThat(store.claim(ClaimRequest.of(10).withHeldWorkflows(Set.of())).block(TIMEOUT))
                .isEmpty();
        assertThat(store.claim(ClaimRequest.of(10).withScope(ClaimScope.of("default", "default")))
                        .block(TIMEOUT))
                .isEmpty();

        // when it is retried
        store.settleKeys(List.of(a.dispatchKey()), Settlement.retryAt(1, now())).block(TIMEOUT);

        // then it can be claimed once more
        assertThat(keys(claim(10))).containsExactly(a.dispatchKey());
    }

    @Test
    void O21_eight_concurrent_claim_loops_claim_each_of_2000_rows_once() {
        // given 2,000 due rows over 20 workflows
        List<String> all = stageMany(2_000, 20);

        // when 8 claim loops with limits 1…8 run in parallel until the outbox is drained
        List<String> claimed = Flux.range(1, 8)
                .flatMap(limit -> claimUntilEmpty(store, limit).subscribeOn(Schedulers.parallel()), 8)
                .collectList()
                .block(Duration.ofMinutes(2));

        // then every row was claimed exactly once
        assertThat(claimed).hasSize(all.size()).doesNotHaveDuplicates();
        assertThat(new HashSet<>(claimed)).isEqualTo(new HashSet<>(all));
        StepVerifier.create(store.countClaimed("default"))
                .expectNext(2_000L)
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O21_claimers_on_two_store_instances_claim_each_row_once() {
        // given 1,000 due rows and a second store instance on the same database
        List<String> all = stageMany(1_000, 10);
        ReactiveStore second = harness.open();

        // when 4 claim loops on each instance run in parallel until the outbox is drained
        List<String> claimed = Flux.range(1, 8)
                .flatMap(
                        i -> claimUntilEmpty(i % 2 == 0 ? store : second, 1 + i / 2)
                                .subscribeOn(Schedulers.parallel()),
                        8)
                .collectList()
                .block(Duration.ofMinutes(2));

        // then every row was claimed exactly once
        assertThat(claimed).hasSize(all.size()).doesNotHaveDuplicates();
        assertThat(new HashSet<>(claimed)).isEqualTo(new HashSet<>(all));
    }

    // ---------------------------------------------------------------- routing and holds (O22–O28)

    @Test
    void O22_C47_a_plain_claim_ignores_namespace_task_queue_and_node() {
        // given rows on (remote, gpu, box-7), (default, cpu, none) and (default, default, box-9)
        WorkflowId w = workflow(1);
        OutboxRow a = routed(w, 0, now(), "remote", "gpu", "box-7");
        OutboxRow b = routed(w, 1, now(), "default", "cpu", null);
        OutboxRow c = routed(w, 2, now(), "default", "default", "box-9");
        stage(a, b, c);

        // when claiming 100 unscoped
        // then all three are claimed
        StepVerifier.create(store.claim(ClaimRequest.of(100)))
                .assertNext(rows ->
                        assertThat(keys(rows)).containsExactly(a.dispatchKey(), b.dispatchKey(), c.dispatchKey()))
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O22_a_null_scope_claims_every_route() {
        // given rows on (remote, gpu, box-7), (default, cpu, none) and (default, default, box-9)
        WorkflowId w = workflow(1);
        OutboxRow a = routed(w, 0, now(), "remote", "gpu", "box-7");
        OutboxRow b = routed(w, 1, now(), "default", "cpu", null);
        OutboxRow c = routed(w, 2, now(), "default", "default", "box-9");
        stage(a, b, c);

        // when claiming 2 with a null scope, then 10 with a null scope and another workflow held
        // then the first claim takes the first two rows and the second the third, whatever their routes
        StepVerifier.create(store.claim(ClaimRequest.of(2).withScope(null)))
                .assertNext(rows -> assertThat(keys(rows)).containsExactly(a.dispatchKey(), b.dispatchKey()))
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.claim(ClaimRequest.of(10).withScope(null).withHeldWorkflows(Set.of(workflow(2)))))
                .assertNext(rows -> assertThat(keys(rows)).containsExactly(c.dispatchKey()))
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O23_O24_C78_held_rows_never_use_up_the_limit() {
        // given 20 rows of held workflow P visible now-60s and one row of workflow O visible now-5s
        WorkflowId p = workflow(1);
        WorkflowId o = workflow(2);
        List<OutboxRow> held = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            held.add(row(p, i, now().minusSeconds(60)));
        }
        OutboxRow other = row(o, 0, now().minusSeconds(5));
        stageAll(held);
        stage(other);

        // when claiming 16 excluding P
        // then exactly O's row is claimed and P's rows are left exactly as they were
        StepVerifier.create(store.claim(ClaimRequest.of(16).withHeldWorkflows(Set.of(p))))
                .assertNext(rows -> assertThat(keys(rows)).containsExactly(other.dispatchKey()))
                .expectComplete()
                .verify(TIMEOUT);
        for (OutboxRow r : held) {
            assertState(r.dispatchKey(), OutboxStatus.PENDING, 0, now().minusSeconds(60));
        }
        StepVerifier.create(store.listStaleClaimed(now().plusSeconds(1), 100).map(OutboxFixtures::withoutToken))
                .assertNext(r -> assertThat(r.dispatchKey()).isEqualTo(other.dispatchKey()))
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O25_C78_excluding_nothing_behaves_like_a_plain_claim() {
        // given the same 20 rows of P and one row of O
        WorkflowId p = workflow(1);
        WorkflowId o = workflow(2);
        List<OutboxRow> rows = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            rows.add(row(p, i, now().minusSeconds(60)));
        }
        stageAll(rows);
        stage(row(o, 0, now().minusSeconds(5)));
        List<String> expected = new ArrayList<>(keys(rows));
        expected.sort(null);

        // when claiming 16 excluding nothing
        // then the first 16 of P's rows in key order are claimed, as a plain claim would take them
        StepVerifier.create(store.claim(ClaimRequest.of(16).withHeldWorkflows(Set.of())))
                .assertNext(claimed -> assertThat(keys(claimed)).containsExactlyElementsOf(expected.subList(0, 16)))
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O23_holding_several_workflows_and_an_unknown_one() {
        // given rows of workflows 1, 2 and 3
        WorkflowId w1 = workflow(1);
        WorkflowId w2 = workflow(2);
        WorkflowId w3 = workflow(3);
        stage(row(w1, 0, now()), row(w2, 0, now()), row(w3, 0, now()));

        // when claiming excluding 1, 3 and a workflow with no rows
        // then only workflow 2's row is claimed
        StepVerifier.create(store.claim(ClaimRequest.of(10).withHeldWorkflows(Set.of(w1, w3, workflow(99)))))
                .assertNext(rows ->
                        assertThat(rows).extracting(OutboxRow::workflowId).containsExactly(w2))
                .expectComplete()
                .verify(TIMEOUT);
        assertStatus(OutboxRow.dispatchKey(w1, 0), OutboxStatus.PENDING);
        assertStatus(OutboxRow.dispatchKey(w3, 0), OutboxStatus.PENDING);
    }

    @Test
    void O26_C45_a_scoped_claim_matches_namespace_task_queue_and_node() {
        // given rows (remote,gpu,box-7), (remote,gpu,none), (default,gpu,none), (remote,cpu,none), (remote,gpu,box-9)
        WorkflowId w = workflow(1);
        OutboxRow pinned = routed(w, 0, now(), "remote", "gpu", "box-7");
        OutboxRow unpinned = routed(w, 1, now(), "remote", "gpu", null);
        OutboxRow otherNamespace = routed(w, 2, now(), "default", "gpu", null);
        OutboxRow otherQueue = routed(w, 3, now(), "remote", "cpu", null);
        OutboxRow otherNode = routed(w, 4, now(), "remote", "gpu", "box-9");
        stage(pinned, unpinned, otherNamespace, otherQueue, otherNode);

        // when claiming 100 with scope (remote, gpu, box-7)
        // then exactly the first two are claimed; the others stay pending
        StepVerifier.create(store.claim(ClaimRequest.of(100).withScope(scope("remote", "gpu", "box-7"))))
                .assertNext(
                        rows -> assertThat(keys(rows)).containsExactly(pinned.dispatchKey(), unpinned.dispatchKey()))
                .expectComplete()
                .verify(TIMEOUT);
        for (OutboxRow r : List.of(otherNamespace, otherQueue, otherNode)) {
            assertStatus(r.dispatchKey(), OutboxStatus.PENDING);
        }
    }

    @Test
    void O26_C46_a_node_less_scoped_claim_excludes_pinned_rows() {
        // given rows (remote, gpu, none) and (remote, gpu, box-7)
        WorkflowId w = workflow(1);
        OutboxRow unpinned = routed(w, 0, now(), "remote", "gpu", null);
        OutboxRow pinned = routed(w, 1, now(), "remote", "gpu", "box-7");
        stage(unpinned, pinned);

        // when claiming 100 with scope (remote, gpu, no node)
        // then only the unpinned row is claimed
        StepVerifier.create(store.claim(ClaimRequest.of(100).withScope(ClaimScope.of("remote", "gpu"))))
                .assertNext(rows -> assertThat(keys(rows)).containsExactly(unpinned.dispatchKey()))
                .expectComplete()
                .verify(TIMEOUT);
        assertStatus(pinned.dispatchKey(), OutboxStatus.PENDING);
    }

    @Test
    void O26_a_scoped_claim_orders_and_limits_like_a_plain_claim() {
        // given four admitted rows with distinct visibilities interleaved with rows of another route
        WorkflowId w = workflow(1);
        ClaimScope gpu = ClaimScope.of("remote", "gpu");
        List<OutboxRow> admitted = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            admitted.add(routed(w, i, now().minusSeconds(10 - i), "remote", "gpu", null));
            stage(routed(w, 100 + i, now().minusSeconds(20), "remote", "cpu", null));
        }
        stageAll(List.of(admitted.get(3), admitted.get(1), admitted.get(0), admitted.get(2)));

        // when claiming 3 with the scope
        // then the oldest three admitted rows are claimed, oldest first, and only the fourth is left
        StepVerifier.create(store.claim(ClaimRequest.of(3).withScope(gpu)))
                .assertNext(rows -> assertThat(keys(rows)).containsExactlyElementsOf(keys(admitted.subList(0, 3))))
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.claim(ClaimRequest.of(3).withScope(gpu)))
                .assertNext(rows ->
                        assertThat(keys(rows)).containsExactly(admitted.get(3).dispatchKey()))
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O27_C79_a_scoped_claim_survives_a_held_backlog_wider_than_its_window() {
        // given 20 rows of held workflow P visible now-60s and one row of O visible now-5s, all on (default, default)
        WorkflowId p = workflow(1);
        WorkflowId o = workflow(2);
        List<OutboxRow> held = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            held.add(row(p, i, now().minusSeconds(60)));
        }
        OutboxRow other = row(o, 0, now().minusSeconds(5));
        stageAll(held);
        stage(other);

        // when claiming 16 with scope (default, default) excluding P
        // then exactly O's row is claimed
        StepVerifier.create(store.claim(ClaimRequest.of(16)
                        .withScope(ClaimScope.of("default", "default"))
                        .withHeldWorkflows(Set.of(p))))
                .assertNext(rows -> assertThat(keys(rows)).containsExactly(other.dispatchKey()))
                .expectComplete()
                .verify(TIMEOUT);
        for (OutboxRow r : held) {
            assertStatus(r.dispatchKey(), OutboxStatus.PENDING);
        }
    }

    @Test
    void O27_scope_and_hold_apply_together() {
        // given, on (remote, gpu), held rows of P pinned to box-7, and rows of O pinned to box-7, unpinned, pinned
        // to box-9 and on another queue
        WorkflowId p = workflow(1);
        WorkflowId o = workflow(2);
        OutboxRow heldPinned = routed(p, 0, now().minusSeconds(9), "remote", "gpu", "box-7");
        OutboxRow heldUnpinned = routed(p, 1, now().minusSeconds(9), "remote", "gpu", null);
        OutboxRow pinned = routed(o, 0, now(), "remote", "gpu", "box-7");
        OutboxRow unpinned = routed(o, 1, now(), "remote", "gpu", null);
        OutboxRow otherNode = routed(o, 2, now().minusSeconds(9), "remote", "gpu", "box-9");
        OutboxRow otherQueue = routed(o, 3, now().minusSeconds(9), "remote", "cpu", null);
        stage(heldPinned, heldUnpinned, pinned, unpinned, otherNode, otherQueue);

        // when claiming 2 with scope (remote, gpu, box-7) excluding P
        // then exactly O's two admitted rows are claimed
        StepVerifier.create(store.claim(ClaimRequest.of(2)
                        .withScope(scope("remote", "gpu", "box-7"))
                        .withHeldWorkflows(Set.of(p))))
                .assertNext(
                        rows -> assertThat(keys(rows)).containsExactly(pinned.dispatchKey(), unpinned.dispatchKey()))
                .expectComplete()
                .verify(TIMEOUT);
        for (OutboxRow r : List.of(heldPinned, heldUnpinned, otherNode, otherQueue)) {
            assertStatus(r.dispatchKey(), OutboxStatus.PENDING);
        }
    }

    @Test
    void O28_a_claim_honours_the_hold_on_every_call() {
        // given two rows of a held workflow
        WorkflowId p = workflow(1);
        stage(row(p, 0, now()), row(p, 1, now()));

        // when claims holding P, with and without a scope, run repeatedly
        // then none ever returns P's rows
        ClaimRequest holding = ClaimRequest.of(10).withHeldWorkflows(Set.of(p));
        for (int i = 0; i < 3; i++) {
            assertThat(store.claim(holding).block(TIMEOUT)).isEmpty();
            assertThat(store.claim(holding.withScope(ClaimScope.of("default", "default")))
                            .block(TIMEOUT))
                    .isEmpty();
        }
        assertThat(claim(10)).hasSize(2);
    }

    // ---------------------------------------------------------------- undecodable rows (X6)

    @Test
    void X6_a_claim_meeting_an_undecodable_row_fails_naming_its_key_and_dead_letters_it() {
        // given three due rows, the middle one with an input that cannot be decoded
        WorkflowId w = workflow(1);
        OutboxRow a = row(w, 0, now().minusSeconds(3));
        OutboxRow corrupt = row(w, 1, now().minusSeconds(2));
        OutboxRow c = row(w, 2, now().minusSeconds(1));
        stage(a, corrupt, c);
        harness.corruptOutboxInput(corrupt.dispatchKey());

        // when claiming 10
        // then the claim fails with a serialization error naming the corrupt row's key
        StepVerifier.create(store.claim(ClaimRequest.of(10)))
                .expectErrorSatisfies(e -> assertThat(e)
                        .isInstanceOf(SerializationException.class)
                        .hasMessageContaining(corrupt.dispatchKey()))
                .verify(TIMEOUT);

        // and the corrupt row is dead-lettered while the others are still pending
        assertStatus(corrupt.dispatchKey(), OutboxStatus.FAILED);
        assertState(a.dispatchKey(), OutboxStatus.PENDING, 0, now().minusSeconds(3));
        assertState(c.dispatchKey(), OutboxStatus.PENDING, 0, now().minusSeconds(1));

        // and the next claim returns the other rows
        StepVerifier.create(store.claim(ClaimRequest.of(10)))
                .assertNext(rows -> assertThat(keys(rows)).containsExactly(a.dispatchKey(), c.dispatchKey()))
                .expectComplete()
                .verify(TIMEOUT);
    }

    // ---------------------------------------------------------------- helpers

    private List<String> stageMany(int count, int workflows) {
        List<OutboxRow> rows = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            rows.add(row(workflow(1 + i % workflows), i, now().minusMillis(i % 97)));
        }
        for (int from = 0; from < count; from += 500) {
            stageAll(rows.subList(from, Math.min(count, from + 500)));
        }
        return keys(rows);
    }

    private static Flux<String> claimUntilEmpty(ReactiveStore target, int limit) {
        return Mono.defer(() -> target.claim(ClaimRequest.of(limit)))
                .repeat()
                .takeUntil(List::isEmpty)
                .flatMapIterable(OutboxFixtures::keys);
    }
}
