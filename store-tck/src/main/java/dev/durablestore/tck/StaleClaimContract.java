package dev.durablestore.tck;

import static dev.durablestore.tck.OutboxFixtures.inState;
import static dev.durablestore.tck.OutboxFixtures.keys;
import static dev.durablestore.tck.OutboxFixtures.row;
import static dev.durablestore.tck.OutboxFixtures.workflow;
import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.WorkflowId;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

/** Contract of stale-claim listing and re-arm (O39–O42) and of the claim heartbeat. */
public abstract class StaleClaimContract extends OutboxContractSupport {

    @Test
    void O39_O41_C28_the_stale_probe_is_read_only_and_matches_the_rearm_selection() {
        // given two rows of one workflow claimed just now
        WorkflowId w = workflow(1);
        OutboxRow a = row(w, 0, now());
        OutboxRow b = row(w, 1, now());
        stage(a, b);
        claim(10);
        Instant bound = now().plus(Duration.ofHours(1));

        // when listing stale claims older than now + 1h twice
        // then both lists hold exactly the two rows, and they are still claimed
        StepVerifier.create(store.listStaleClaimed(bound, 16).map(OutboxRow::dispatchKey))
                .expectNext(a.dispatchKey(), b.dispatchKey())
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.listStaleClaimed(bound, 16).map(OutboxRow::dispatchKey))
                .expectNext(a.dispatchKey(), b.dispatchKey())
                .expectComplete()
                .verify(TIMEOUT);
        assertStatus(a.dispatchKey(), OutboxStatus.CLAIMED);
        assertStatus(b.dispatchKey(), OutboxStatus.CLAIMED);

        // when re-arming stale claims older than now + 1h, visible now, limit 16
        // then exactly those two rows are re-armed, and the stale list is then empty
        StepVerifier.create(store.rearmStaleClaimed(bound, now(), 16))
                .assertNext(rows -> assertThat(keys(rows)).containsExactly(a.dispatchKey(), b.dispatchKey()))
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.listStaleClaimed(bound, 16).map(OutboxFixtures::withoutToken))
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O39_stale_means_strictly_earlier_than_the_bound() {
        // given a row claimed at t
        WorkflowId w = workflow(1);
        OutboxRow a = row(w, 0, now());
        stage(a);
        Instant t = now();
        claim(10);

        // when listing with bound t
        // then it is not stale
        StepVerifier.create(store.listStaleClaimed(t, 10).map(OutboxFixtures::withoutToken))
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.rearmStaleClaimed(t, t, 10))
                .expectNext(List.of())
                .expectComplete()
                .verify(TIMEOUT);
        assertStatus(a.dispatchKey(), OutboxStatus.CLAIMED);

        // when listing with bound t + 1 ns
        // then it is stale, carrying its claim instant
        StepVerifier.create(store.listStaleClaimed(t.plusNanos(1), 10).map(OutboxFixtures::withoutToken))
                .expectNext(a.withStatus(OutboxStatus.CLAIMED, t))
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O39_stale_rows_are_ordered_by_claim_instant_then_key_and_limited() {
        // given claimed rows with claimedAt e20 (":1"), e10 (":2"), e15 (":3") and e15 (":10")
        WorkflowId w = workflow(1);
        Instant visible = Instant.ofEpochSecond(1);
        OutboxRow k1 = inState(row(w, 1, visible), OutboxStatus.CLAIMED, Instant.ofEpochSecond(20), 0);
        OutboxRow k2 = inState(row(w, 2, visible), OutboxStatus.CLAIMED, Instant.ofEpochSecond(10), 0);
        OutboxRow k3 = inState(row(w, 3, visible), OutboxStatus.CLAIMED, Instant.ofEpochSecond(15), 0);
        OutboxRow k10 = inState(row(w, 10, visible), OutboxStatus.CLAIMED, Instant.ofEpochSecond(15), 0);
        stage(k1, k2, k3, k10);

        // when listing all, listing 2, and listing 0
        // then the order is e10, then the two e15 rows by key text (":10" before ":3"), then e20
        StepVerifier.create(store.listStaleClaimed(now(), 10).map(OutboxFixtures::withoutToken))
                .expectNext(k2, k10, k3, k1)
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.listStaleClaimed(now(), 2).map(OutboxFixtures::withoutToken))
                .expectNext(k2, k10)
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.listStaleClaimed(now(), 0).map(OutboxFixtures::withoutToken))
                .expectComplete()
                .verify(TIMEOUT);
        // and a bound between e10 and e15 lists only the e10 row
        StepVerifier.create(
                        store.listStaleClaimed(Instant.ofEpochSecond(12), 10).map(OutboxFixtures::withoutToken))
                .expectNext(k2)
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O41_O42_C38_the_stale_rearm_touches_only_old_claimed_rows_and_keeps_the_attempt() {
        // given stale = claimed/attempt 7/claimedAt e10, fresh = claimed/attempt 3/claimedAt e150,
        // done = done/attempt 5, failed = failed/attempt 6
        WorkflowId w = workflow(1);
        Instant visible = Instant.ofEpochSecond(1);
        OutboxRow stale = inState(row(w, 0, visible), OutboxStatus.CLAIMED, Instant.ofEpochSecond(10), 7);
        OutboxRow fresh = inState(row(w, 1, visible), OutboxStatus.CLAIMED, Instant.ofEpochSecond(150), 3);
        OutboxRow done = inState(row(w, 2, visible), OutboxStatus.DONE, null, 5);
        OutboxRow failed = inState(row(w, 3, visible), OutboxStatus.FAILED, null, 6);
        stage(stale, fresh, done, failed);

        // when re-arming claims older than e100, visible e200, limit 10
        // then only the stale row is returned: pending, attempt 7, visible e200, no claim
        Instant e200 = Instant.ofEpochSecond(200);
        StepVerifier.create(store.rearmStaleClaimed(Instant.ofEpochSecond(100), e200, 10))
                .assertNext(rows -> assertThat(OutboxFixtures.withoutTokens(rows))
                        .containsExactly(stale.withVisibleAfter(e200).withStatus(OutboxStatus.PENDING, null)))
                .expectComplete()
                .verify(TIMEOUT);

        // and the stored rows agree: fresh still claimed, done still done, failed still failed
        assertState(stale.dispatchKey(), OutboxStatus.PENDING, 7, e200);
        assertState(fresh.dispatchKey(), OutboxStatus.CLAIMED, 3, visible);
        assertState(done.dispatchKey(), OutboxStatus.DONE, 5, visible);
        assertState(failed.dispatchKey(), OutboxStatus.FAILED, 6, visible);
        StepVerifier.create(
                        store.listStaleClaimed(Instant.ofEpochSecond(1000), 10).map(OutboxFixtures::withoutToken))
                .expectNext(fresh)
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O41_the_rearm_respects_its_limit_and_order() {
        // given three rows claimed at e10, e20, e30
        WorkflowId w = workflow(1);
        Instant visible = Instant.ofEpochSecond(1);
        OutboxRow r30 = inState(row(w, 0, visible), OutboxStatus.CLAIMED, Instant.ofEpochSecond(30), 1);
        OutboxRow r10 = inState(row(w, 1, visible), OutboxStatus.CLAIMED, Instant.ofEpochSecond(10), 1);
        OutboxRow r20 = inState(row(w, 2, visible), OutboxStatus.CLAIMED, Instant.ofEpochSecond(20), 1);
        stage(r30, r10, r20);

        // when re-arming with limit 0
        // then nothing is returned and nothing changes
        StepVerifier.create(store.rearmStaleClaimed(now(), now(), 0))
                .expectNext(List.of())
                .expectComplete()
                .verify(TIMEOUT);
        assertStatus(r10.dispatchKey(), OutboxStatus.CLAIMED);

        // when re-arming with limit 2
        // then the two oldest claims are re-armed in claim order; the third is still claimed
        StepVerifier.create(store.rearmStaleClaimed(now(), now(), 2))
                .assertNext(rows -> assertThat(keys(rows)).containsExactly(r10.dispatchKey(), r20.dispatchKey()))
                .expectComplete()
                .verify(TIMEOUT);
        assertStatus(r30.dispatchKey(), OutboxStatus.CLAIMED);

        // and the re-armed rows are claimable again
        assertThat(keys(claim(10))).containsExactly(r10.dispatchKey(), r20.dispatchKey());
    }

    @Test
    void O41_rearmed_rows_keep_their_route_input_and_run() {
        // given a claimed row on (remote, gpu, box-7) with a run and attempt 2, claimed an hour ago
        WorkflowId w = workflow(1);
        OutboxRow a = OutboxFixtures.routed(w, 0, now(), "remote", "gpu", "box-7")
                .withRunId(OutboxFixtures.RUN)
                .withAttempt(2);
        stage(a);
        claim(10);
        clock.advance(Duration.ofHours(1));

        // when stale claims are re-armed
        // then the returned row carries every stored value with the new state
        StepVerifier.create(store.rearmStaleClaimed(now(), now(), 10))
                .assertNext(rows -> assertThat(OutboxFixtures.withoutTokens(rows))
                        .containsExactly(a.withVisibleAfter(now()).withStatus(OutboxStatus.PENDING, null)))
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O42_C29_cancelled_rows_are_never_stale_rearmed() {
        // given a claimed row whose workflow's rows are then cancelled
        WorkflowId w = workflow(1);
        OutboxRow a = row(w, 0, now());
        stage(a);
        claim(10);
        assertThat(store.cancelWorkflowRows(w).block(TIMEOUT)).containsExactly(a.dispatchKey());

        // when re-arming stale claims older than now + 1h and then claiming
        // then both return nothing
        StepVerifier.create(store.rearmStaleClaimed(now().plus(Duration.ofHours(1)), now(), 16))
                .expectNext(List.of())
                .expectComplete()
                .verify(TIMEOUT);
        assertThat(claim(16)).isEmpty();
        assertStatus(a.dispatchKey(), OutboxStatus.CANCELLED);
    }

    // ------------------------------------------------ heartbeat ([J]: keeps a claim out of O39's stale set)

    @Test
    void O39_heartbeat_refreshes_claimed_at_so_the_row_is_no_longer_stale() {
        // given rows a, b and c claimed at t0
        WorkflowId w = workflow(1);
        OutboxRow a = row(w, 0, now());
        OutboxRow b = row(w, 1, now());
        OutboxRow c = row(w, 2, now());
        stage(a, b, c);
        Instant t0 = now();
        List<OutboxRow> claimed = claim(10);
        clock.advance(Duration.ofMinutes(10));
        Instant t1 = now();

        // when the dispatcher heartbeats c and a (in that order), as their claim returned them
        // then both keys come back, in ascending order
        StepVerifier.create(store.heartbeat(List.of(claimed.get(2), claimed.get(0))))
                .expectNext(List.of(a.dispatchKey(), c.dispatchKey()))
                .expectComplete()
                .verify(TIMEOUT);

        // and only b is stale against a bound after t0; a and c carry claimedAt t1
        StepVerifier.create(store.listStaleClaimed(t0.plusSeconds(60), 10).map(OutboxRow::dispatchKey))
                .expectNext(b.dispatchKey())
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.listStaleClaimed(t1.plusNanos(1), 10).map(OutboxFixtures::withoutToken))
                .expectNext(
                        b.withStatus(OutboxStatus.CLAIMED, t0),
                        a.withStatus(OutboxStatus.CLAIMED, t1),
                        c.withStatus(OutboxStatus.CLAIMED, t1))
                .expectComplete()
                .verify(TIMEOUT);

        // and the stale re-arm takes only b
        StepVerifier.create(store.rearmStaleClaimed(t0.plusSeconds(60), now(), 10))
                .assertNext(rows -> assertThat(keys(rows)).containsExactly(b.dispatchKey()))
                .expectComplete()
                .verify(TIMEOUT);
        assertState(a.dispatchKey(), OutboxStatus.CLAIMED, 0, t0);
        assertState(c.dispatchKey(), OutboxStatus.CLAIMED, 0, t0);
    }

    @Test
    void O39_W13_heartbeat_leaves_out_rows_whose_claim_moved_on_and_changes_nothing() {
        // given four claimed rows: one re-armed by the reaper, one completed, one re-armed and
        // claimed again by another dispatcher, and one still held by its claim
        WorkflowId w = workflow(1);
        OutboxRow reaped = row(w, 0, now());
        OutboxRow done = row(w, 1, now());
        OutboxRow retaken = row(w, 2, now());
        OutboxRow stillClaimed = row(w, 3, now());
        stage(reaped, done, retaken, stillClaimed);
        List<OutboxRow> claimed = claim(10);
        store.complete(claimed.get(1)).block(TIMEOUT);
        store.rearmPending(List.of(retaken)).block(TIMEOUT);
        OutboxRow retakenByOther = claim(10).get(0);
        clock.advance(Duration.ofMinutes(5));
        store.rearmStaleClaimed(now(), now().plusSeconds(3600), 1).block(TIMEOUT);
        assertStatus(reaped.dispatchKey(), OutboxStatus.PENDING);
        Instant before = now();
        clock.advance(Duration.ofMinutes(1));

        // when the first dispatcher heartbeats all four rows as its claim returned them
        // then only the row still held by that claim comes back
        StepVerifier.create(store.heartbeat(claimed))
                .expectNext(List.of(stillClaimed.dispatchKey()))
                .expectComplete()
                .verify(TIMEOUT);

        // and the others are unchanged: the re-armed row stays pending, the done row done, and the
        // row the other dispatcher holds keeps its claim instant and token
        assertState(reaped.dispatchKey(), OutboxStatus.PENDING, 0, before.plusSeconds(3600));
        assertStatus(done.dispatchKey(), OutboxStatus.DONE);
        StepVerifier.create(store.listStaleClaimed(before, 10))
                .assertNext(row -> {
                    assertThat(row.dispatchKey()).isEqualTo(retaken.dispatchKey());
                    assertThat(row.claimToken()).isEqualTo(retakenByOther.claimToken());
                    assertThat(row.claimedAt()).isEqualTo(retakenByOther.claimedAt());
                })
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O39_W13_a_heartbeat_of_more_rows_than_one_statement_binds_refreshes_them_all() {
        // given 2,500 claimed rows: more than one statement of the heartbeat binds on PostgreSQL
        WorkflowId w = workflow(1);
        List<OutboxRow> staged =
                IntStream.range(0, 2_500).mapToObj(i -> row(w, i, now())).toList();
        stageAll(staged);
        List<OutboxRow> claimed = claim(3_000);
        assertThat(claimed).hasSize(2_500);
        clock.advance(Duration.ofMinutes(10));

        // when the dispatcher heartbeats every one of them
        List<String> refreshed = store.heartbeat(claimed).block(TIMEOUT);

        // then every key comes back, in ascending order, and none is stale any more
        assertThat(refreshed)
                .containsExactlyElementsOf(keys(claimed).stream().sorted().toList()); // ASCII keys
        assertThat(store.listStaleClaimed(now(), 10).collectList().block(TIMEOUT))
                .isEmpty();
    }

    @Test
    void O39_heartbeat_of_no_keys_returns_an_empty_list() {
        // given a claimed row
        OutboxRow a = row(workflow(1), 0, now());
        stage(a);
        claim(10);

        // when heartbeating no keys
        // then the result is empty and the row is untouched
        StepVerifier.create(store.heartbeat(List.of()))
                .expectNext(List.of())
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.listStaleClaimed(now().plusNanos(1), 10).map(OutboxFixtures::withoutToken))
                .expectNext(a.withStatus(OutboxStatus.CLAIMED, now()))
                .expectComplete()
                .verify(TIMEOUT);
    }
}
