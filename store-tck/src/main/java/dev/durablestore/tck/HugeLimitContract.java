package dev.durablestore.tck;

import static dev.durablestore.tck.OutboxFixtures.inState;
import static dev.durablestore.tck.OutboxFixtures.keys;
import static dev.durablestore.tck.OutboxFixtures.routed;
import static dev.durablestore.tck.OutboxFixtures.row;
import static dev.durablestore.tck.OutboxFixtures.signal;
import static dev.durablestore.tck.OutboxFixtures.started;
import static dev.durablestore.tck.OutboxFixtures.workflow;
import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.OutboxLeaseReaper;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.WorkflowId;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

/**
 * Every operation that takes a limit or a batch size, called with the largest value its type holds
 * (O16–O27, O39, O41, O52, the prune, the lease reaper, R3): any non-negative limit is valid, so
 * the call must take what is due, not fail because the limit was used to size memory up front or
 * overflowed on the way to the database.
 */
public abstract class HugeLimitContract extends OutboxContractSupport {

    private static final int MAX = Integer.MAX_VALUE;

    /** The route of the scoped claims here, and a route they must not take. */
    private static final ClaimScope GPU = ClaimScope.of("remote", "gpu");

    // ---------------------------------------------------------------- claims (O19, O24, O26, O27)

    @Test
    void O19_a_claim_with_the_largest_int_limit_takes_every_due_row_in_order() {
        // given three due rows and one visible in an hour
        WorkflowId w = workflow(1);
        List<OutboxRow> due =
                List.of(row(w, 0, now().minusSeconds(3)), row(w, 1, now().minusSeconds(2)), row(w, 2, now()));
        OutboxRow later = row(w, 3, now().plus(Duration.ofHours(1)));
        stageAll(due);
        stage(later);

        // when claiming Integer.MAX_VALUE
        // then the three due rows are returned claimed, in claim order, and the later one stays pending
        StepVerifier.create(store.claim(ClaimRequest.of(MAX)))
                .assertNext(rows -> assertThat(OutboxFixtures.withoutTokens(rows))
                        .containsExactly(claimedNow(due.get(0)), claimedNow(due.get(1)), claimedNow(due.get(2))))
                .expectComplete()
                .verify(TIMEOUT);
        assertState(later.dispatchKey(), OutboxStatus.PENDING, 0, later.visibleAfter());
    }

    @Test
    void O24_an_excluding_claim_with_the_largest_int_limit_takes_every_due_row_not_held() {
        // given three due rows of w1 and two of a held w2
        WorkflowId free = workflow(1);
        WorkflowId held = workflow(2);
        List<OutboxRow> due = List.of(row(free, 0, now()), row(free, 1, now()), row(free, 2, now()));
        OutboxRow heldA = row(held, 0, now().minusSeconds(1));
        OutboxRow heldB = row(held, 1, now().minusSeconds(1));
        stageAll(due);
        stage(heldA, heldB);

        // when claiming Integer.MAX_VALUE excluding w2
        // then w1's three rows are returned and w2's rows stay pending
        StepVerifier.create(store.claim(ClaimRequest.of(MAX).withHeldWorkflows(Set.of(held))))
                .assertNext(rows -> assertThat(keys(rows)).containsExactlyElementsOf(keys(due)))
                .expectComplete()
                .verify(TIMEOUT);
        assertStatus(heldA.dispatchKey(), OutboxStatus.PENDING);
        assertStatus(heldB.dispatchKey(), OutboxStatus.PENDING);
    }

    @Test
    void O26_a_scoped_claim_with_the_largest_int_limit_takes_every_due_row_of_the_route() {
        // given three due rows on (remote, gpu) and one on the default route
        WorkflowId w = workflow(1);
        List<OutboxRow> due = List.of(gpu(w, 0), gpu(w, 1), gpu(w, 2));
        OutboxRow elsewhere = row(w, 3, now());
        stageAll(due);
        stage(elsewhere);

        // when claiming Integer.MAX_VALUE on (remote, gpu)
        // then the three gpu rows are returned and the other row stays pending
        StepVerifier.create(store.claim(ClaimRequest.of(MAX).withScope(GPU)))
                .assertNext(rows -> assertThat(keys(rows)).containsExactlyElementsOf(keys(due)))
                .expectComplete()
                .verify(TIMEOUT);
        assertStatus(elsewhere.dispatchKey(), OutboxStatus.PENDING);
    }

    @Test
    void O27_a_scoped_excluding_claim_with_the_largest_int_limit_takes_every_due_row_of_the_route_not_held() {
        // given three due gpu rows of w1, one due gpu row of a held w2, and one due row elsewhere
        WorkflowId free = workflow(1);
        WorkflowId held = workflow(2);
        List<OutboxRow> due = List.of(gpu(free, 0), gpu(free, 1), gpu(free, 2));
        OutboxRow heldRow = gpu(held, 0);
        OutboxRow elsewhere = row(free, 3, now());
        stageAll(due);
        stage(heldRow, elsewhere);

        // when claiming Integer.MAX_VALUE on (remote, gpu) excluding w2
        // then w1's three gpu rows are returned; the held and the unrouted rows stay pending
        StepVerifier.create(store.claim(ClaimRequest.of(MAX).withScope(GPU).withHeldWorkflows(Set.of(held))))
                .assertNext(rows -> assertThat(keys(rows)).containsExactlyElementsOf(keys(due)))
                .expectComplete()
                .verify(TIMEOUT);
        assertStatus(heldRow.dispatchKey(), OutboxStatus.PENDING);
        assertStatus(elsewhere.dispatchKey(), OutboxStatus.PENDING);
    }

    @Test
    void O52_a_claim_stream_with_unbounded_demand_and_the_largest_batch_delivers_every_due_row() {
        // given three due rows
        WorkflowId w = workflow(1);
        List<OutboxRow> due = List.of(row(w, 0, now()), row(w, 1, now()), row(w, 2, now()));
        stageAll(due);

        // when a stream with the largest batch it accepts is requested Long.MAX_VALUE rows
        ClaimStreamOptions options = ClaimStreamOptions.defaults().withMaxBatch(10_000);

        // then it delivers the three rows, claimed (StepVerifier requests Long.MAX_VALUE up front)
        StepVerifier.create(store.claimStream(options).map(OutboxRow::dispatchKey))
                .recordWith(ArrayList::new)
                .expectNextCount(3)
                .consumeRecordedWith(claimed -> assertThat(claimed).containsExactlyInAnyOrderElementsOf(keys(due)))
                .thenCancel()
                .verify(TIMEOUT);
        for (OutboxRow r : due) {
            assertStatus(r.dispatchKey(), OutboxStatus.CLAIMED);
        }
    }

    // ---------------------------------------------------------------- stale claims (O39, O41) and the reaper

    @Test
    void O39_listing_stale_claims_with_the_largest_int_limit_lists_every_stale_row() {
        // given three rows claimed at e10, e20, e30 and one claimed just now
        List<OutboxRow> stale = stageStaleClaims();
        OutboxRow fresh = inState(row(workflow(2), 0, Instant.ofEpochSecond(1)), OutboxStatus.CLAIMED, now(), 0);
        stage(fresh);

        // when listing claims older than e100 with limit Integer.MAX_VALUE
        // then the three stale rows are listed in claim order
        StepVerifier.create(
                        store.listStaleClaimed(Instant.ofEpochSecond(100), MAX).map(OutboxFixtures::withoutToken))
                .expectNextSequence(stale)
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O41_rearming_stale_claims_with_the_largest_int_limit_rearms_every_stale_row() {
        // given three rows claimed at e10, e20, e30
        List<OutboxRow> stale = stageStaleClaims();

        // when re-arming claims older than e100, visible now, limit Integer.MAX_VALUE
        // then the three rows are returned pending, and nothing is stale any more
        StepVerifier.create(store.rearmStaleClaimed(Instant.ofEpochSecond(100), now(), MAX))
                .assertNext(rows -> assertThat(rows)
                        .containsExactlyElementsOf(stale.stream()
                                .map(r ->
                                        r.withStatus(OutboxStatus.PENDING, null).withVisibleAfter(now()))
                                .toList()))
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(
                        store.listStaleClaimed(Instant.ofEpochSecond(100), MAX).map(OutboxFixtures::withoutToken))
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O41_a_lease_reaper_with_the_largest_int_batch_size_rearms_every_stale_row() {
        // given three rows claimed at e10, e20, e30 and a reaper with a one-minute lease and batches of
        // Integer.MAX_VALUE
        List<OutboxRow> stale = stageStaleClaims();
        OutboxLeaseReaper reaper = OutboxLeaseReaper.of(store)
                .withLease(Duration.ofMinutes(1))
                .withBatchSize(MAX)
                .withClock(clock);

        // when it sweeps once
        // then it re-arms the three rows
        StepVerifier.create(reaper.reapOnce()).expectNext(3L).expectComplete().verify(TIMEOUT);
        for (OutboxRow r : stale) {
            assertStatus(r.dispatchKey(), OutboxStatus.PENDING);
        }
    }

    // ---------------------------------------------------------------- prune

    @Test
    void O4_pruning_with_the_largest_int_batch_size_deletes_every_settled_row() {
        // given three rows completed and one still pending
        WorkflowId w = workflow(1);
        List<OutboxRow> settled = List.of(row(w, 0, now()), row(w, 1, now()), row(w, 2, now()));
        stageAll(settled);
        claim(10);
        for (OutboxRow r : settled) {
            store.settleKeys(List.of(r.dispatchKey()), Settlement.complete()).block(TIMEOUT);
        }
        OutboxRow live = row(w, 3, now());
        stage(live);
        clock.advance(Duration.ofMinutes(1));

        // when pruning rows settled before now in batches of Integer.MAX_VALUE
        // then the three settled rows are deleted and counted, and the live row remains
        StepVerifier.create(store.pruneSettled(now(), MAX))
                .expectNext(3L)
                .expectComplete()
                .verify(TIMEOUT);
        for (OutboxRow r : settled) {
            assertAbsent(r.dispatchKey());
        }
        assertStatus(live.dispatchKey(), OutboxStatus.PENDING);
    }

    // ---------------------------------------------------------------- history range read (R3)

    @Test
    void R3_a_range_read_from_the_largest_long_sequence_is_empty_and_from_one_reads_everything() {
        // given a workflow with three events
        WorkflowId w = workflow(1);
        StepVerifier.create(store.append(w, List.of(started(w, 1, now()), signal(w, 2, now()), signal(w, 3, now())), 0))
                .expectComplete()
                .verify(TIMEOUT);

        // when reading from Long.MAX_VALUE
        // then nothing is returned
        StepVerifier.create(store.readHistoryFrom(w, Long.MAX_VALUE))
                .expectComplete()
                .verify(TIMEOUT);
        // and reading from 1 returns the three events
        StepVerifier.create(store.readHistoryFrom(w, 1).map(e -> e.seq()))
                .expectNext(1L, 2L, 3L)
                .expectComplete()
                .verify(TIMEOUT);
    }

    // ---------------------------------------------------------------- fixtures

    private OutboxRow claimedNow(OutboxRow row) {
        return row.withStatus(OutboxStatus.CLAIMED, now());
    }

    private OutboxRow gpu(WorkflowId w, long ordinal) {
        return routed(w, ordinal, now(), GPU.namespace(), GPU.taskQueue(), null);
    }

    /** @return three rows of workflow 1 staged claimed at e10, e20 and e30, in that (O39) order */
    private List<OutboxRow> stageStaleClaims() {
        WorkflowId w = workflow(1);
        Instant visible = Instant.ofEpochSecond(1);
        List<OutboxRow> stale = List.of(
                inState(row(w, 0, visible), OutboxStatus.CLAIMED, Instant.ofEpochSecond(10), 0),
                inState(row(w, 1, visible), OutboxStatus.CLAIMED, Instant.ofEpochSecond(20), 0),
                inState(row(w, 2, visible), OutboxStatus.CLAIMED, Instant.ofEpochSecond(30), 0));
        stageAll(stale);
        return stale;
    }
}
