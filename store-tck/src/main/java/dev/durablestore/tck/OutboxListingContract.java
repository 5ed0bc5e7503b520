package dev.durablestore.tck;

import static dev.durablestore.tck.OutboxFixtures.routed;
import static dev.durablestore.tck.OutboxFixtures.row;
import static dev.durablestore.tck.OutboxFixtures.workflow;
import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.OutboxCounts;
import dev.durablestore.api.OutboxQuery;
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

/** Contract of the operator reads: the filtered, paged listing (O60) and the capped counts per route (O61). */
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
}
