package dev.durablestore.tck;

import static dev.durablestore.tck.OutboxFixtures.routed;
import static dev.durablestore.tck.OutboxFixtures.row;
import static dev.durablestore.tck.OutboxFixtures.workflow;
import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxRowState;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.RunId;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.WorkflowId;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

/** Contract of the outbox enumerations, counts, routes and row state (O43–O51). */
public abstract class OutboxQueryContract extends OutboxContractSupport {

    private static final Instant FAR_FUTURE = Instant.parse("2036-06-03T00:00:00Z");

    // ---------------------------------------------------------------- unsettled workflows (O43)

    @Test
    void O43_unsettled_workflows_are_listed_once_in_id_text_order() {
        // given workflows whose ids sort differently as text and as UUID.compareTo, each with several live rows,
        // and a workflow whose only row is done
        WorkflowId high = WorkflowId.parse("80000000-0000-4000-8000-000000000001");
        WorkflowId low = WorkflowId.parse("10000000-0000-4000-8000-000000000001");
        WorkflowId settled = WorkflowId.parse("20000000-0000-4000-8000-000000000001");
        stage(
                row(high, 0, now()),
                row(high, 1, FAR_FUTURE),
                row(low, 0, now()),
                row(low, 1, now()),
                row(settled, 0, now()));
        claim(1);
        store.settleKeys(List.of(OutboxRow.dispatchKey(settled, 0)), Settlement.complete())
                .block(TIMEOUT);

        // when listing unsettled workflows
        // then each live workflow appears once, ascending by text: "1000…" before "8000…"
        StepVerifier.create(store.listUnsettledWorkflowIds())
                .expectNext(low, high)
                .expectComplete()
                .verify(TIMEOUT);

        // and listing changed nothing
        StepVerifier.create(store.countInflight("default"))
                .expectNext(4L)
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O43_a_workflow_with_only_terminal_rows_is_not_unsettled() {
        // given a workflow whose rows are done, failed and cancelled
        WorkflowId w = workflow(1);
        stage(row(w, 0, now()), row(w, 1, now()), row(w, 2, now()));
        store.settleKeys(List.of(OutboxRow.dispatchKey(w, 0)), Settlement.complete())
                .block(TIMEOUT);
        store.settleKeys(List.of(OutboxRow.dispatchKey(w, 1)), Settlement.fail())
                .block(TIMEOUT);
        store.settleKeys(List.of(OutboxRow.dispatchKey(w, 2)), Settlement.cancel())
                .block(TIMEOUT);

        // when listing unsettled workflows
        // then it is empty
        StepVerifier.create(store.listUnsettledWorkflowIds()).expectComplete().verify(TIMEOUT);
    }

    // ---------------------------------------------------------------- counts (O44–O47)

    @Test
    void O44_O46_C48_inflight_counts_pending_and_claimed_per_namespace() {
        // given namespace alpha with four rows and beta with one, all claimed, then one alpha row completed and one
        // failed
        WorkflowId w = workflow(1);
        List<OutboxRow> alpha = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            alpha.add(routed(w, i, now(), "alpha", "default", null));
        }
        stageAll(alpha);
        stage(routed(w, 10, now(), "beta", "default", null));
        claim(10);
        store.settleKeys(List.of(alpha.get(0).dispatchKey()), Settlement.complete())
                .block(TIMEOUT);
        store.settleKeys(List.of(alpha.get(1).dispatchKey()), Settlement.fail()).block(TIMEOUT);

        // when counting in-flight rows
        // then alpha counts 2, beta 1 and gamma 0
        StepVerifier.create(store.countInflight("alpha"))
                .expectNext(2L)
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.countInflight("beta"))
                .expectNext(1L)
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.countInflight("gamma"))
                .expectNext(0L)
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O44_C49_a_namespace_whose_rows_are_all_terminal_counts_zero() {
        // given a namespace whose only two rows were claimed then completed and failed
        WorkflowId w = workflow(1);
        OutboxRow a = routed(w, 0, now(), "solo", "default", null);
        OutboxRow b = routed(w, 1, now(), "solo", "default", null);
        stage(a, b);
        claim(10);
        store.settleKeys(List.of(a.dispatchKey()), Settlement.complete()).block(TIMEOUT);
        store.settleKeys(List.of(b.dispatchKey()), Settlement.fail()).block(TIMEOUT);

        // when counting in-flight rows
        // then it counts 0
        StepVerifier.create(store.countInflight("solo"))
                .expectNext(0L)
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O44_O45_O17_C50_claimed_counts_only_claimed_rows_not_the_pending_backlog() {
        // given alpha with two due rows and five rows fenced far in the future
        WorkflowId w = workflow(1);
        OutboxRow d0 = routed(w, 0, now(), "alpha", "default", null);
        OutboxRow d1 = routed(w, 1, now(), "alpha", "default", null);
        stage(d0, d1);
        for (int i = 0; i < 5; i++) {
            stage(routed(w, 10 + i, FAR_FUTURE, "alpha", "default", null));
        }

        // when claiming 100
        // then two are claimed, in-flight(alpha) is 7 and claimed(alpha) is 2
        assertThat(claim(100)).hasSize(2);
        StepVerifier.create(store.countInflight("alpha"))
                .expectNext(7L)
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.countClaimed("alpha"))
                .expectNext(2L)
                .expectComplete()
                .verify(TIMEOUT);

        // when one claimed row is completed
        store.settleKeys(List.of(d0.dispatchKey()), Settlement.complete()).block(TIMEOUT);

        // then claimed(alpha) is 1 and claimed(beta) is 0
        StepVerifier.create(store.countClaimed("alpha"))
                .expectNext(1L)
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.countClaimed("beta"))
                .expectNext(0L)
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O46_counts_compare_namespaces_exactly() {
        // given rows in "alpha", "Alpha" and "alpha2", claimed
        WorkflowId w = workflow(1);
        stage(
                routed(w, 0, now(), "alpha", "default", null),
                routed(w, 1, now(), "Alpha", "default", null),
                routed(w, 2, now(), "alpha2", "default", null),
                routed(w, 3, now(), "alpha2", "default", null));
        claim(10);

        // when counting "alpha"
        // then only its own row counts
        StepVerifier.create(store.countInflight("alpha"))
                .expectNext(1L)
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.countClaimed("alpha"))
                .expectNext(1L)
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.countClaimed("alpha2"))
                .expectNext(2L)
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.countClaimed("alph"))
                .expectNext(0L)
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O47_C51_claimed_counts_by_namespace_match_the_scalar_counts() {
        // given alpha with two due rows, beta with one, gamma with one far-future row, all due rows claimed
        WorkflowId w = workflow(1);
        stage(
                routed(w, 0, now(), "alpha", "default", null),
                routed(w, 1, now(), "alpha", "default", null),
                routed(w, 2, now(), "beta", "default", null),
                routed(w, 3, FAR_FUTURE, "gamma", "default", null));
        assertThat(claim(100)).hasSize(3);

        // when counting claimed rows for alpha, beta, gamma and delta
        List<String> namespaces = List.of("alpha", "beta", "gamma", "delta");
        Map<String, Long> counts = store.countClaimedByNamespace(namespaces).block(TIMEOUT);

        // then the map is exactly alpha 2, beta 1, gamma 0, delta 0, and each entry equals the scalar count
        assertThat(counts).isEqualTo(Map.of("alpha", 2L, "beta", 1L, "gamma", 0L, "delta", 0L));
        for (String ns : namespaces) {
            assertThat(counts.get(ns)).as(ns).isEqualTo(store.countClaimed(ns).block(TIMEOUT));
        }
    }

    @Test
    void O47_repeated_namespaces_give_one_entry_and_an_empty_request_an_empty_map() {
        // given one claimed row in alpha
        stage(routed(workflow(1), 0, now(), "alpha", "default", null));
        claim(10);

        // when alpha is requested twice with beta, and when nothing is requested
        // then the map has one entry per distinct namespace, and the empty request gives an empty map
        StepVerifier.create(store.countClaimedByNamespace(List.of("alpha", "beta", "alpha")))
                .expectNext(Map.of("alpha", 1L, "beta", 0L))
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.countClaimedByNamespace(List.of()))
                .expectNext(Map.of())
                .expectComplete()
                .verify(TIMEOUT);
    }

    // ---------------------------------------------------------------- routes (O48, O49)

    @Test
    void O48_C52_pending_routes_enumerate_distinct_claimable_routes() {
        // given due rows on (alpha, default) twice and (beta, gpu) once, and a far-future row on (gamma, default)
        WorkflowId w = workflow(1);
        stage(
                routed(w, 0, now(), "alpha", "default", null),
                routed(w, 1, now(), "alpha", "default", null),
                routed(w, 2, now(), "beta", "gpu", null),
                routed(w, 3, FAR_FUTURE, "gamma", "default", null));

        // when enumerating pending routes
        // then exactly (alpha, default) and (beta, gpu) are returned, in order, and no gamma route
        StepVerifier.create(store.pendingRoutes())
                .expectNext(ClaimScope.of("alpha", "default"), ClaimScope.of("beta", "gpu"))
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O48_OQ12_routes_are_ordered_by_namespace_task_queue_then_node_with_unpinned_first() {
        // given due rows on several routes, staged in scrambled order, plus claimed, done and fenced rows on other
        // routes
        WorkflowId w = workflow(1);
        stage(
                routed(w, 0, now(), "b", "q", "n2"),
                routed(w, 1, now(), "b", "q", null),
                routed(w, 2, now(), "a", "z", null),
                routed(w, 3, now(), "b", "q", "n1"),
                routed(w, 4, now(), "a", "q", "n1"),
                routed(w, 5, now(), "b", "q", "n1"));
        stage(routed(w, 10, now().minusSeconds(60), "c", "claimed", null));
        claim(1);
        OutboxRow done = routed(w, 11, now(), "c", "done", null);
        stage(done);
        store.settleKeys(List.of(done.dispatchKey()), Settlement.complete()).block(TIMEOUT);
        stage(routed(w, 12, now().plusNanos(1), "c", "fenced", null));

        // when enumerating pending routes
        // then each due route appears once: by namespace, task queue, then node with the unpinned route first
        StepVerifier.create(store.pendingRoutes())
                .expectNext(
                        new ClaimScope("a", "q", "n1"),
                        ClaimScope.of("a", "z"),
                        ClaimScope.of("b", "q"),
                        new ClaimScope("b", "q", "n1"),
                        new ClaimScope("b", "q", "n2"))
                .expectComplete()
                .verify(TIMEOUT);

        // and enumerating is read-only
        StepVerifier.create(store.countInflight("b"))
                .expectNext(4L)
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.countClaimed("b"))
                .expectNext(0L)
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O49_OQ11_every_pending_route_claims_at_least_one_row_when_used_as_a_scope() {
        // given due rows on unpinned and pinned routes, default and named
        WorkflowId w = workflow(1);
        stage(
                row(w, 0, now()),
                routed(w, 1, now(), "default", "default", "box-1"),
                routed(w, 2, now(), "remote", "gpu", "box-7"),
                routed(w, 3, now(), "remote", "gpu", null),
                routed(w, 4, now(), "remote", "cpu", "box-9"));

        // when each route is used unchanged as the scope of a claim
        List<ClaimScope> routes = store.pendingRoutes().collectList().block(TIMEOUT);
        assertThat(routes).hasSize(5);
        for (ClaimScope route : routes) {
            List<OutboxRow> rows =
                    store.claim(ClaimRequest.of(1).withScope(route)).block(TIMEOUT);

            // then it claims at least one row, which the route admits
            assertThat(rows).as("claim on route %s", route).hasSize(1);
            assertThat(route.admits(rows.get(0)))
                    .as("%s admits %s", route, rows.get(0))
                    .isTrue();

            // (put the row back, so that the next route sees the outbox unchanged)
            store.rearmPending(rows).block(TIMEOUT);
        }
        assertThat(store.countClaimed("default").block(TIMEOUT)
                        + store.countClaimed("remote").block(TIMEOUT))
                .isZero();
    }

    // ---------------------------------------------------------------- row state and durability (O50, O51)

    @Test
    void O50_row_state_reports_status_attempt_and_visibility_or_empty() {
        // given a row with attempt 2 visible at a nanosecond instant
        WorkflowId w = workflow(1);
        Instant visibleAfter = Instant.parse("2026-06-02T12:00:00.000000001Z");
        OutboxRow a = row(w, 0, visibleAfter).withAttempt(2);
        stage(a);

        // when reading its state and the state of an unknown key
        // then the row reports (pending, 2, visibility) and the unknown key is empty
        StepVerifier.create(store.rowState(a.dispatchKey()))
                .expectNext(new OutboxRowState(OutboxStatus.PENDING, 2, visibleAfter))
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.rowState(OutboxRow.dispatchKey(w, 1)))
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O51_rows_survive_closing_and_reopening() {
        // given a pending row with every field set, a claimed row, a done row and a failed retried row
        WorkflowId w = workflow(1);
        Instant visibleAfter = Instant.parse("2026-06-02T23:00:00.123456789Z");
        OutboxRow full = routed(w, 0, visibleAfter.plusSeconds(1), "remote", "gpu", "box-7")
                .withRunId(RunId.parse("00000000-0000-4000-8000-0000000000ee"))
                .withAttempt(5);
        OutboxRow claimed = row(w, 1, visibleAfter).withAttempt(1);
        OutboxRow done = row(w, 2, visibleAfter.plusSeconds(2));
        OutboxRow retried = row(w, 3, visibleAfter.plusSeconds(3));
        stage(claimed);
        Instant claimedAt = now();
        claim(1);
        stage(full, done, retried);
        store.settleKeys(List.of(done.dispatchKey()), Settlement.complete()).block(TIMEOUT);
        Instant retryAt = now().plus(Duration.ofMinutes(30));
        store.settleKeys(List.of(retried.dispatchKey()), Settlement.retryAt(4, retryAt))
                .block(TIMEOUT);

        // when the store is closed and reopened on the same database
        store.close();
        store = harness.open();

        // then status, attempt, visibility and claim instant are preserved
        assertState(claimed.dispatchKey(), OutboxStatus.CLAIMED, 1, visibleAfter);
        assertState(done.dispatchKey(), OutboxStatus.DONE, 0, visibleAfter.plusSeconds(2));
        assertState(retried.dispatchKey(), OutboxStatus.PENDING, 4, retryAt);
        assertState(full.dispatchKey(), OutboxStatus.PENDING, 5, visibleAfter.plusSeconds(1));
        StepVerifier.create(store.listStaleClaimed(claimedAt.plusNanos(1), 10).map(OutboxFixtures::withoutToken))
                .expectNext(claimed.withStatus(OutboxStatus.CLAIMED, claimedAt))
                .expectComplete()
                .verify(TIMEOUT);

        // and the pending row claims back with every field
        clock.advance(Duration.ofSeconds(1));
        StepVerifier.create(store.claim(ClaimRequest.of(1)))
                .assertNext(rows -> assertThat(OutboxFixtures.withoutTokens(rows))
                        .containsExactly(full.withStatus(OutboxStatus.CLAIMED, now())))
                .expectComplete()
                .verify(TIMEOUT);
    }
}
