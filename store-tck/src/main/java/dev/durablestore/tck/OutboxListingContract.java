package dev.durablestore.tck;

import static dev.durablestore.tck.OutboxFixtures.routed;
import static dev.durablestore.tck.OutboxFixtures.row;
import static dev.durablestore.tck.OutboxFixtures.workflow;
import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.OutboxCounts;
import dev.durablestore.api.OutboxQuery;
import dev.durablestore.api.OutboxRouteActivity;
import dev.durablestore.api.OutboxRouteCounts;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.WorkflowId;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Contract of the operator reads: the filtered, paged listing (O60), the capped counts per route (O61)
 * and the activity per route (O68).
 */
public abstract class OutboxListingContract extends OutboxContractSupport {

    private List<OutboxRow> list(OutboxQuery query) {
        return store.listOutbox(query).collectList().block(TIMEOUT);
    }

    private static List<String> keys(List<OutboxRow> rows) {
        return rows.stream().map(OutboxRow::dispatchKey).toList();
    }

    @Test
    void O60_the_listing_filters_by_status_route_activity_workflow_key_and_age_and_changes_nothing() {
        // given two workflows on two routes, one row failed, two claimed, the rest pending
        WorkflowId a = workflow(1);
        WorkflowId b = workflow(2);
        stage(
                routed(a, 0, now(), "alpha", "q", null),
                routed(a, 1, now(), "alpha", "q", "n1"),
                routed(b, 0, now(), "beta", "q", null),
                routed(b, 1, now().plusSeconds(60), "beta", "q", null));
        store.settleKeys(List.of(OutboxRow.dispatchKey(a, 0)), Settlement.fail())
                .block(TIMEOUT);
        List<OutboxRow> claimed = claim(10);
        assertThat(claimed).hasSize(2);
        clock.advance(Duration.ofMinutes(5));

        // then each filter narrows the listing, in key order
        assertThat(keys(list(OutboxQuery.all(100))))
                .containsExactly(
                        OutboxRow.dispatchKey(a, 0),
                        OutboxRow.dispatchKey(a, 1),
                        OutboxRow.dispatchKey(b, 0),
                        OutboxRow.dispatchKey(b, 1));
        assertThat(keys(list(OutboxQuery.all(100).withStatus(OutboxStatus.FAILED))))
                .containsExactly(OutboxRow.dispatchKey(a, 0));
        assertThat(keys(list(
                        OutboxQuery.all(100).withStatus(OutboxStatus.CLAIMED).withRoute("alpha", null, null))))
                .containsExactly(OutboxRow.dispatchKey(a, 1));
        assertThat(keys(list(OutboxQuery.all(100).withRoute(null, null, "n1"))))
                .containsExactly(OutboxRow.dispatchKey(a, 1));
        assertThat(keys(list(OutboxQuery.all(100).withWorkflowId(b))))
                .containsExactly(OutboxRow.dispatchKey(b, 0), OutboxRow.dispatchKey(b, 1));
        assertThat(keys(list(OutboxQuery.all(100).withDispatchKey(OutboxRow.dispatchKey(b, 1)))))
                .containsExactly(OutboxRow.dispatchKey(b, 1));
        assertThat(list(OutboxQuery.all(100).withActivityType("nope"))).isEmpty();
        assertThat(list(OutboxQuery.all(100).withActivityType(OutboxFixtures.ACTIVITY)))
                .hasSize(4);
        // claimed five minutes ago: older than four minutes, not older than six
        assertThat(list(OutboxQuery.all(100)
                        .withStatus(OutboxStatus.CLAIMED)
                        .withOlderThan(now().minus(Duration.ofMinutes(4)))))
                .hasSize(2);
        assertThat(list(OutboxQuery.all(100)
                        .withStatus(OutboxStatus.CLAIMED)
                        .withOlderThan(now().minus(Duration.ofMinutes(6)))))
                .isEmpty();
        // the pending row is visible in the future relative to its staging: older than now, not than its visibility
        assertThat(keys(list(
                        OutboxQuery.all(100).withStatus(OutboxStatus.PENDING).withOlderThan(now()))))
                .containsExactly(OutboxRow.dispatchKey(b, 1));

        // and the listed claimed rows carry their claim tokens
        assertThat(list(OutboxQuery.all(100).withStatus(OutboxStatus.CLAIMED)))
                .allSatisfy(r -> assertThat(r.claimToken()).isNotZero());
        // and listing changed nothing
        assertStatus(OutboxRow.dispatchKey(a, 0), OutboxStatus.FAILED);
        assertStatus(OutboxRow.dispatchKey(b, 1), OutboxStatus.PENDING);
    }

    @Test
    void O60_pages_continue_after_the_last_key_and_unstorable_filters_match_nothing() {
        WorkflowId w = workflow(3);
        for (int i = 0; i < 7; i++) {
            stage(row(w, i, now()));
        }
        List<OutboxRow> first = list(OutboxQuery.all(3));
        List<OutboxRow> second =
                list(OutboxQuery.all(3).withAfterKey(first.get(2).dispatchKey()));
        List<OutboxRow> third =
                list(OutboxQuery.all(3).withAfterKey(second.get(2).dispatchKey()));
        assertThat(first).hasSize(3);
        assertThat(second).hasSize(3);
        assertThat(third).hasSize(1);
        assertThat(keys(first)).doesNotContainAnyElementsOf(keys(second));
        assertThat(list(OutboxQuery.all(0))).isEmpty();
        assertThat(list(OutboxQuery.all(10).withRoute("bad\u0000ns", null, null)))
                .isEmpty();
        assertRejected(() -> store.listOutbox(null), "query");
    }

    @Test
    void O61_counts_per_route_and_status_with_due_and_stale_rows() {
        // given route alpha: 2 pending (1 due), 1 claimed long ago, 1 done; route beta/n1: 1 failed, 1 cancelled
        WorkflowId w = workflow(4);
        stage(routed(w, 0, now(), "alpha", "q", null), routed(w, 1, now(), "alpha", "q", null));
        assertThat(store.claim(ClaimRequest.of(2).withScope(ClaimScope.of("alpha", "q")))
                        .block(TIMEOUT))
                .hasSize(2);
        store.settleKeys(List.of(OutboxRow.dispatchKey(w, 1)), Settlement.complete())
                .block(TIMEOUT);
        clock.advance(Duration.ofMinutes(10));
        stage(
                routed(w, 2, now(), "alpha", "q", null),
                routed(w, 3, now().plusSeconds(30), "alpha", "q", null),
                routed(w, 4, now(), "beta", "q", "n1"),
                routed(w, 5, now(), "beta", "q", "n1"));
        store.settleKeys(List.of(OutboxRow.dispatchKey(w, 4)), Settlement.fail())
                .block(TIMEOUT);
        store.settleKeys(List.of(OutboxRow.dispatchKey(w, 5)), Settlement.cancel())
                .block(TIMEOUT);

        // when counting with a lease of five minutes
        OutboxCounts counts = store.countByRoute(now(), now().minus(Duration.ofMinutes(5)), 1000)
                .block(TIMEOUT);

        // then each route has its counts, ordered by route, nothing capped
        assertThat(counts.capped()).isEmpty();
        assertThat(counts.cap()).isEqualTo(1000);
        assertThat(counts.routes())
                .containsExactly(
                        new OutboxRouteCounts(ClaimScope.of("alpha", "q"), 2, 1, 1, 1, 1, 0, 0),
                        new OutboxRouteCounts(new ClaimScope("beta", "q", "n1"), 0, 0, 0, 0, 0, 1, 1));
    }

    @Test
    void O61_a_status_with_more_rows_than_the_cap_is_reported_capped() {
        WorkflowId w = workflow(5);
        for (int i = 0; i < 5; i++) {
            stage(row(w, i, now()));
        }
        OutboxCounts counts = store.countByRoute(now(), now(), 3).block(TIMEOUT);
        assertThat(counts.capped()).isEqualTo(Set.of(OutboxStatus.PENDING));
        assertThat(counts.routes()).hasSize(1);
        assertThat(counts.routes().get(0).pending()).isEqualTo(3);
        assertThat(store.countByRoute(now(), now(), 0)).isNotNull();
        assertRejected(() -> store.countByRoute(now(), now(), 0), "cap");
        assertRejected(() -> store.countByRoute(null, now(), 5), "dueBy");
        Instant far = Instant.parse("2030-01-01T00:00:00Z");
        assertThat(store.countByRoute(far, far, 10)
                        .block(TIMEOUT)
                        .routes()
                        .get(0)
                        .due())
                .isEqualTo(5);
    }

    @Test
    void O68_route_activity_reports_each_routes_oldest_due_row_latest_claim_and_latest_done_or_failed_settle() {
        // given alpha with a due row done and another due; beta with a claim; gamma with a cancel only;
        // delta with a row not yet due; epsilon with a due row newer than alpha's
        Instant t0 = now();
        WorkflowId a = workflow(1);
        WorkflowId b = workflow(2);
        WorkflowId c = workflow(3);
        stage(routed(a, 0, t0, "alpha", "q", null), routed(a, 1, t0.plusSeconds(10), "alpha", "q", null));
        clock.advance(Duration.ofSeconds(30));
        Instant t1 = now();
        stage(
                routed(b, 0, t1, "beta", "q", null),
                routed(b, 1, t1.plusSeconds(5), "epsilon", "q", null),
                routed(c, 0, t1, "gamma", "q", null),
                routed(c, 1, t1.plus(Duration.ofHours(1)), "delta", "q", null));
        assertThat(store.claim(ClaimRequest.of(1).withScope(ClaimScope.of("beta", "q")))
                        .block(TIMEOUT))
                .hasSize(1);
        clock.advance(Duration.ofSeconds(10));
        Instant t2 = now();
        store.settleKeys(List.of(OutboxRow.dispatchKey(a, 0)), Settlement.complete())
                .block(TIMEOUT);
        clock.advance(Duration.ofSeconds(1));
        store.settleKeys(List.of(OutboxRow.dispatchKey(c, 0)), Settlement.cancel())
                .block(TIMEOUT);

        // when the activity is read with room for every row; then each route has what it shows, and
        // a route with none of the three (gamma: a cancel; delta: nothing due) is not listed
        assertThat(store.routeActivity(now(), 100).collectList().block(TIMEOUT))
                .containsExactly(
                        new OutboxRouteActivity(ClaimScope.of("alpha", "q"), t0.plusSeconds(10), null, t2),
                        new OutboxRouteActivity(ClaimScope.of("beta", "q"), null, t1, null),
                        new OutboxRouteActivity(ClaimScope.of("epsilon", "q"), t1.plusSeconds(5), null, null));
        // and each read takes only the cap rows at the outbox's edge: the oldest due row, the newest claim
        // and the newest settle (here gamma's cancel, which does not count); a route with no row among
        // them has that instant null
        assertThat(store.routeActivity(now(), 1).collectList().block(TIMEOUT))
                .containsExactly(
                        new OutboxRouteActivity(ClaimScope.of("alpha", "q"), t0.plusSeconds(10), null, null),
                        new OutboxRouteActivity(ClaimScope.of("beta", "q"), null, t1, null));
        // and a due bound before every row finds no due row
        assertThat(store.routeActivity(t0.minusSeconds(1), 100).collectList().block(TIMEOUT))
                .extracting(OutboxRouteActivity::oldestDue)
                .containsOnlyNulls();
    }

    @Test
    void O68_route_activity_refuses_a_null_due_bound_and_a_cap_out_of_range() {
        assertRejected(() -> store.routeActivity(null, 10), "dueBy");
        assertRejected(() -> store.routeActivity(now(), 0), "cap");
        assertRejected(() -> store.routeActivity(now(), OutboxQuery.MAX_COUNT_CAP + 1), "cap");
    }
}
