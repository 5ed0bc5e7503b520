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
import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.WorkflowStep;
import dev.durablestore.core.internal.Claims;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

/** Contract of row priorities (O62): higher first, then O19; rows without one keep O19 exactly. */
public abstract class PriorityContract extends OutboxContractSupport {

    @Test
    void O62_a_claim_takes_higher_priorities_first_then_visibility_then_key() {
        // given rows of mixed priorities and visibilities, staged in scrambled order
        WorkflowId w = workflow(1);
        Instant t = now();
        OutboxRow p0Old = row(w, 1, t.minusSeconds(30));
        OutboxRow p0New = row(w, 2, t.minusSeconds(1));
        OutboxRow p3Old = row(w, 3, t.minusSeconds(20)).withPriority(3);
        OutboxRow p3New = row(w, 4, t.minusSeconds(2)).withPriority(3);
        OutboxRow p9 = row(w, 5, t).withPriority(9);
        OutboxRow p1a = row(w, 10, t.minusSeconds(5)).withPriority(1);
        OutboxRow p1b = row(w, 6, t.minusSeconds(5)).withPriority(1);
        stage(p0New, p3New, p1a, p0Old, p9, p1b, p3Old);

        // when four rows are claimed, then the rest
        List<OutboxRow> first = claim(4);
        List<OutboxRow> rest = claim(10);

        // then the first claim holds the highest priorities, in claim order (…:10 before …:6 by key)
        assertThat(keys(first))
                .containsExactly(p9.dispatchKey(), p3Old.dispatchKey(), p3New.dispatchKey(), p1a.dispatchKey());
        // and the second crosses from the last prioritized row to the rows without a priority
        assertThat(keys(rest)).containsExactly(p1b.dispatchKey(), p0Old.dispatchKey(), p0New.dispatchKey());
        assertThat(first).extracting(OutboxRow::priority).containsExactly(9, 3, 3, 1);
        assertThat(rest).extracting(OutboxRow::priority).containsExactly(1, 0, 0);
    }

    @Test
    void O62_O19_rows_without_a_priority_keep_the_claim_order_exactly() {
        // given rows without a priority, same visibility, keys that sort …:10 before …:2
        WorkflowId w = workflow(2);
        List<OutboxRow> rows = new ArrayList<>();
        for (int i = 12; i >= 0; i--) {
            rows.add(row(w, i, now().minusSeconds(i % 3)));
        }
        stageAll(rows);
        List<OutboxRow> expected = new ArrayList<>(rows);
        expected.sort(Claims.CLAIM_ORDER);

        // when they are claimed five at a time
        List<OutboxRow> claimed = new ArrayList<>(claim(5));
        claimed.addAll(claim(5));
        claimed.addAll(claim(5));

        // then they come in O19 order: visibility, then key in code-point order
        assertThat(keys(claimed)).containsExactlyElementsOf(keys(expected));
        assertThat(claimed).extracting(OutboxRow::priority).containsOnly(OutboxRow.MIN_PRIORITY);
    }

    @Test
    void O62_O17_a_prioritized_row_waits_for_its_visibility() {
        // given a prioritized row fenced in the future and a due row without priority
        WorkflowId w = workflow(3);
        OutboxRow later = row(w, 1, now().plusSeconds(60)).withPriority(9);
        OutboxRow due = row(w, 2, now());
        stage(later, due);

        // when claimed now, then only the due row comes
        assertThat(keys(claim(10))).containsExactly(due.dispatchKey());

        // and once the clock passes the fence the prioritized row comes
        clock.advance(Duration.ofSeconds(60));
        assertThat(keys(claim(10))).containsExactly(later.dispatchKey());
    }

    @Test
    void O62_O26_O27_scope_and_held_workflows_apply_to_prioritized_rows_and_held_ones_use_no_limit() {
        // given prioritized rows of a held workflow, of another route and of a node, and plain rows
        WorkflowId held = workflow(4);
        WorkflowId other = workflow(5);
        List<OutboxRow> heldRows = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            heldRows.add(routed(held, i, now(), "ns", "q", null).withPriority(9));
        }
        stageAll(heldRows);
        OutboxRow elsewhere = routed(other, 1, now(), "ns", "other", null).withPriority(9);
        OutboxRow pinnedAway = routed(other, 2, now(), "ns", "q", "node-b").withPriority(9);
        OutboxRow pinnedHere = routed(other, 3, now(), "ns", "q", "node-a").withPriority(2);
        OutboxRow plain = routed(other, 4, now().minusSeconds(10), "ns", "q", null);
        stage(elsewhere, pinnedAway, pinnedHere, plain);

        // when node-a claims two on ns/q holding the first workflow
        List<OutboxRow> claimed = store.claim(
                        ClaimRequest.of(2).withScope(scope("ns", "q", "node-a")).withHeldWorkflows(Set.of(held)))
                .block(TIMEOUT);

        // then it takes its prioritized row, then the plain one: held rows used up no limit
        assertThat(keys(claimed)).containsExactly(pinnedHere.dispatchKey(), plain.dispatchKey());
        for (OutboxRow r : heldRows) {
            assertStatus(r.dispatchKey(), OutboxStatus.PENDING);
        }
        assertStatus(elsewhere.dispatchKey(), OutboxStatus.PENDING);
        assertStatus(pinnedAway.dispatchKey(), OutboxStatus.PENDING);
    }

    @Test
    void O62_every_staging_path_stores_the_priority_and_retries_and_re_arms_keep_it() {
        // given rows staged by appendWithOutbox (several workflows at once: grouped where the
        // backend groups), by a step, and by a re-arm of an unknown row
        List<WorkflowId> workflows = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            workflows.add(workflow(20 + i));
        }
        StepVerifier.create(reactor.core.publisher.Flux.fromIterable(workflows)
                        .flatMap(
                                w -> store.appendWithOutbox(
                                        w,
                                        List.of(started(w, 1, now())),
                                        0,
                                        List.of(row(w, 0, now()).withPriority(7), row(w, 1, now()))),
                                6))
                .expectComplete()
                .verify(TIMEOUT);
        WorkflowId first = workflows.get(0);
        StepVerifier.create(store.commitStep(WorkflowStep.builder(first, 1)
                        .append(OutboxFixtures.signal(first, 2, now()))
                        .stage(row(first, 2, now()).withPriority(5))
                        .build()))
                .expectComplete()
                .verify(TIMEOUT);
        WorkflowId rearmed = workflow(30);
        store.rearmPending(List.of(row(rearmed, 0, now()).withPriority(4))).block(TIMEOUT);

        // when everything is claimed
        List<OutboxRow> claimed = claim(100);

        // then the priorities come back, highest first
        assertThat(claimed).hasSize(14);
        assertThat(claimed.subList(0, 8)).extracting(OutboxRow::priority).containsExactly(7, 7, 7, 7, 7, 7, 5, 4);
        assertThat(claimed.subList(8, 14)).extracting(OutboxRow::priority).containsOnly(0);

        // and a retried row keeps its priority and goes first again
        OutboxRow retried = claimed.get(7);
        store.settle(retried, Settlement.retryAt(1, now())).block(TIMEOUT);
        store.appendOutboxBatch(List.of(row(workflow(31), 0, now().minusSeconds(100))))
                .block(TIMEOUT);
        List<OutboxRow> again = claim(1);
        assertThat(again)
                .extracting(OutboxRow::dispatchKey, OutboxRow::priority)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(retried.dispatchKey(), 4));
    }

    @Test
    void O62_O52_a_claim_stream_delivers_higher_priorities_first() {
        // given plain rows, then prioritized rows staged after them
        WorkflowId w = workflow(6);
        List<OutboxRow> plain = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            plain.add(row(w, i, now().minusSeconds(10 - i)));
        }
        stageAll(plain);
        OutboxRow urgent = row(w, 10, now()).withPriority(9);
        OutboxRow soon = row(w, 11, now()).withPriority(1);
        stage(soon, urgent);

        // when a stream is asked for three rows
        // then the prioritized rows come first, then the oldest plain row
        StepVerifier.create(store.claimStream(ClaimStreamOptions.defaults().withPollInterval(Duration.ofMillis(50))), 0)
                .thenRequest(3)
                .assertNext(r -> assertThat(r.dispatchKey()).isEqualTo(urgent.dispatchKey()))
                .assertNext(r -> assertThat(r.dispatchKey()).isEqualTo(soon.dispatchKey()))
                .assertNext(
                        r -> assertThat(r.dispatchKey()).isEqualTo(plain.get(0).dispatchKey()))
                .thenCancel()
                .verify(TIMEOUT);
    }

    @Test
    void O62_X10_a_priority_out_of_range_is_refused_naming_it_and_nothing_is_staged() {
        // given a row
        OutboxRow r = row(workflow(7), 1, now());

        // when it is given a priority below 0 or above 9, then the row is refused naming row.priority
        for (int bad : new int[] {-1, OutboxRow.MAX_PRIORITY + 1, Integer.MIN_VALUE, Integer.MAX_VALUE}) {
            assertThatThrownBy(() -> r.withPriority(bad))
                    .isInstanceOf(InvalidArgumentException.class)
                    .satisfies(e -> assertThat(((InvalidArgumentException) e).argument())
                            .isEqualTo("row.priority"));
        }
        // and the bounds themselves are accepted, and nothing was stored meanwhile
        assertThat(r.withPriority(OutboxRow.MIN_PRIORITY).priority()).isZero();
        assertThat(r.withPriority(OutboxRow.MAX_PRIORITY).priority()).isEqualTo(9);
        assertAbsent(r.dispatchKey());
    }
}
