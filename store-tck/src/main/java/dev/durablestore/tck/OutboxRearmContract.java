package dev.durablestore.tck;

import static dev.durablestore.tck.OutboxFixtures.keys;
import static dev.durablestore.tck.OutboxFixtures.row;
import static dev.durablestore.tck.OutboxFixtures.workflow;
import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.Payload;
import dev.durablestore.api.RunId;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.internal.Rows;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

/** Contract of {@code rearmPending}, the recovery re-stage (O12–O15, OQ-3, OQ-4). */
public abstract class OutboxRearmContract extends OutboxContractSupport {

    @Test
    void O12_an_empty_rearm_is_a_no_op() {
        // given a claimed row and a done row
        WorkflowId w = workflow(1);
        OutboxRow a = row(w, 0, now());
        OutboxRow b = row(w, 1, now());
        stage(a, b);
        claim(10);
        store.settleKeys(List.of(b.dispatchKey()), Settlement.complete()).block(TIMEOUT);

        // when an empty list is re-armed
        StepVerifier.create(store.rearmPending(List.of())).expectComplete().verify(TIMEOUT);

        // then nothing changed
        assertState(a.dispatchKey(), OutboxStatus.CLAIMED, 0, now());
        assertState(b.dispatchKey(), OutboxStatus.DONE, 0, now());
    }

    @Test
    void O13_OQ4_an_unknown_row_is_inserted_pending_with_its_own_values_and_run() {
        // given an empty outbox and a row with a run, a route, an attempt and a past visibility
        WorkflowId w = workflow(1);
        Instant visibleAfter = now().minusSeconds(30);
        RunId run = RunId.parse("00000000-0000-4000-8000-0000000000cc");
        OutboxRow fresh = Rows.stored(
                OutboxRow.dispatchKey(w, 4),
                w,
                4,
                run,
                "remote",
                "gpu",
                "box-7",
                "send",
                Payload.json("{\"a\":1}"),
                OutboxStatus.PENDING,
                3,
                visibleAfter,
                null,
                0L,
                null,
                OutboxRow.MIN_PRIORITY,
                List.of());

        // when it is re-armed
        StepVerifier.create(store.rearmPending(List.of(fresh))).expectComplete().verify(TIMEOUT);

        // then it is stored pending with every supplied value, including the run (OQ-4)
        assertState(fresh.dispatchKey(), OutboxStatus.PENDING, 3, visibleAfter);
        StepVerifier.create(store.claim(ClaimRequest.of(10)))
                .assertNext(rows -> assertThat(OutboxFixtures.withoutTokens(rows))
                        .containsExactly(fresh.withStatus(OutboxStatus.CLAIMED, now())))
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O13_an_unknown_row_supplied_as_done_is_inserted_pending() {
        // given a row that the caller built in status done
        WorkflowId w = workflow(1);
        OutboxRow done = row(w, 0, now()).withStatus(OutboxStatus.DONE, null).withAttempt(2);

        // when it is re-armed while unknown
        StepVerifier.create(store.rearmPending(List.of(done))).expectComplete().verify(TIMEOUT);

        // then it is inserted as pending, keeping its attempt
        assertState(done.dispatchKey(), OutboxStatus.PENDING, 2, now());
    }

    @Test
    void O14_a_stored_row_in_any_status_returns_to_pending_keeping_its_stored_columns() {
        // given five stored rows with attempt 4 on (remote, gpu, box-7) with a run, then brought to each status
        WorkflowId w = workflow(1);
        RunId run = RunId.parse("00000000-0000-4000-8000-0000000000dd");
        Instant staged = now().minusSeconds(60);
        OutboxRow pending = stored(w, 0, run, staged);
        OutboxRow claimed = stored(w, 1, run, staged);
        OutboxRow done = stored(w, 2, run, staged);
        OutboxRow failed = stored(w, 3, run, staged);
        OutboxRow cancelled = stored(w, 4, run, staged);
        stage(pending, claimed, done, failed, cancelled);
        store.claim(ClaimRequest.of(10).withScope(OutboxFixtures.scope("remote", "gpu", "box-7")))
                .block(TIMEOUT);
        store.settleKeys(List.of(pending.dispatchKey()), Settlement.retryAt(4, staged))
                .block(TIMEOUT);
        store.settleKeys(List.of(done.dispatchKey()), Settlement.complete()).block(TIMEOUT);
        store.settleKeys(List.of(failed.dispatchKey()), Settlement.fail()).block(TIMEOUT);
        store.settleKeys(List.of(cancelled.dispatchKey()), Settlement.cancel()).block(TIMEOUT);
        assertStatus(claimed.dispatchKey(), OutboxStatus.CLAIMED);
        clock.advance(Duration.ofMinutes(1));

        // when each is re-armed with other values (attempt 0, default route, no run, other activity and input)
        // and a visibility in the past
        Instant rearmedVisibleAfter = now().minusSeconds(1);
        List<OutboxRow> supplied = List.of(pending, claimed, done, failed, cancelled).stream()
                .map(r -> Rows.stored(
                        r.dispatchKey(),
                        r.workflowId(),
                        r.ordinal(),
                        null,
                        "default",
                        "default",
                        null,
                        "other-activity",
                        Payload.json("{\"other\":1}"),
                        OutboxStatus.PENDING,
                        0,
                        rearmedVisibleAfter,
                        null,
                        0L,
                        null,
                        OutboxRow.MIN_PRIORITY,
                        List.of()))
                .toList();
        StepVerifier.create(store.rearmPending(supplied)).expectComplete().verify(TIMEOUT);

        // then each is pending with the supplied visibility and its stored attempt
        for (OutboxRow r : List.of(pending, claimed, done, failed, cancelled)) {
            assertState(r.dispatchKey(), OutboxStatus.PENDING, 4, rearmedVisibleAfter);
        }
        // and a claim hands out all five with their stored activity, input, run and route, claim cleared then set anew
        StepVerifier.create(store.claim(ClaimRequest.of(10)))
                .assertNext(rows -> assertThat(OutboxFixtures.withoutTokens(rows))
                        .containsExactly(
                                expected(pending, rearmedVisibleAfter),
                                expected(claimed, rearmedVisibleAfter),
                                expected(done, rearmedVisibleAfter),
                                expected(failed, rearmedVisibleAfter),
                                expected(cancelled, rearmedVisibleAfter)))
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O14_a_rearmed_claimed_row_is_no_longer_stale() {
        // given a row claimed an hour ago
        WorkflowId w = workflow(1);
        OutboxRow a = row(w, 0, now());
        stage(a);
        claim(10);
        clock.advance(Duration.ofHours(1));

        // when it is re-armed
        StepVerifier.create(store.rearmPending(List.of(a.withVisibleAfter(now()))))
                .expectComplete()
                .verify(TIMEOUT);

        // then its claim is cleared: it is pending and not listed as a stale claim
        assertState(a.dispatchKey(), OutboxStatus.PENDING, 0, now());
        StepVerifier.create(store.listStaleClaimed(now().plusSeconds(1), 10).map(OutboxFixtures::withoutToken))
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O14_the_supplied_visibility_may_fence_the_row_in_the_future() {
        // given a done row
        WorkflowId w = workflow(1);
        OutboxRow a = row(w, 0, now());
        stage(a);
        claim(10);
        store.settleKeys(List.of(a.dispatchKey()), Settlement.complete()).block(TIMEOUT);

        // when it is re-armed visible one hour from now
        Instant later = now().plus(Duration.ofHours(1));
        StepVerifier.create(store.rearmPending(List.of(a.withVisibleAfter(later))))
                .expectComplete()
                .verify(TIMEOUT);

        // then it is pending but not due until then
        assertState(a.dispatchKey(), OutboxStatus.PENDING, 0, later);
        assertThat(claim(10)).isEmpty();
        clock.set(later);
        assertThat(keys(claim(10))).containsExactly(a.dispatchKey());
    }

    @Test
    void O15_C30_a_cancelled_row_is_resurrected() {
        // given a pending row cancelled through the workflow settle
        WorkflowId w = workflow(1);
        OutboxRow a = row(w, 0, now());
        stage(a);
        assertThat(store.cancelWorkflowRows(w).block(TIMEOUT)).containsExactly(a.dispatchKey());

        // when the same row is re-armed
        StepVerifier.create(store.rearmPending(List.of(a))).expectComplete().verify(TIMEOUT);

        // then a claim returns exactly that key
        StepVerifier.create(store.claim(ClaimRequest.of(10)))
                .assertNext(rows -> assertThat(keys(rows)).containsExactly(a.dispatchKey()))
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O15_C40_a_done_row_is_revived_and_a_fresh_one_inserted() {
        // given a row claimed and completed, so that a claim returns nothing
        WorkflowId w = workflow(1);
        OutboxRow a = row(w, 0, now());
        stage(a);
        claim(10);
        store.settleKeys(List.of(a.dispatchKey()), Settlement.complete()).block(TIMEOUT);
        assertThat(claim(10)).isEmpty();

        // when the done row and a new ordinal 1 are re-armed, both visible now
        OutboxRow b = row(w, 1, now());
        StepVerifier.create(store.rearmPending(List.of(a, b))).expectComplete().verify(TIMEOUT);

        // then both are pending and a claim returns exactly both keys
        assertStatus(a.dispatchKey(), OutboxStatus.PENDING);
        assertStatus(b.dispatchKey(), OutboxStatus.PENDING);
        StepVerifier.create(store.claim(ClaimRequest.of(10)))
                .assertNext(rows -> assertThat(keys(rows)).containsExactly(a.dispatchKey(), b.dispatchKey()))
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O15_a_failed_row_is_resurrected_keeping_its_attempt() {
        // given a row with attempt 2 dead-lettered
        WorkflowId w = workflow(1);
        OutboxRow a = row(w, 0, now()).withAttempt(2);
        stage(a);
        store.settleKeys(List.of(a.dispatchKey()), Settlement.fail()).block(TIMEOUT);

        // when it is re-armed
        StepVerifier.create(store.rearmPending(List.of(a.withAttempt(0))))
                .expectComplete()
                .verify(TIMEOUT);

        // then it is pending with attempt 2
        assertState(a.dispatchKey(), OutboxStatus.PENDING, 2, now());
    }

    @Test
    void O13_O14_a_key_repeated_in_one_list_applies_in_list_order() {
        // given a done row with attempt 2
        WorkflowId w = workflow(1);
        OutboxRow done = row(w, 0, now()).withAttempt(2);
        stage(done);
        store.settleKeys(List.of(done.dispatchKey()), Settlement.complete()).block(TIMEOUT);

        // when a list re-arms the done row twice and an unknown key twice, each time with its own
        // values and visibility (the unknown key's second row with another activity and attempt)
        Instant soon = now().plusSeconds(5);
        Instant later = now().plusSeconds(9);
        OutboxRow unknown = row(w, 1, soon).withAttempt(3);
        OutboxRow unknownAgain = Rows.stored(
                unknown.dispatchKey(),
                w,
                1,
                null,
                "default",
                "default",
                null,
                "different-activity",
                Payload.json("{}"),
                OutboxStatus.PENDING,
                8,
                later,
                null,
                0L,
                null,
                OutboxRow.MIN_PRIORITY,
                List.of());
        StepVerifier.create(store.rearmPending(
                        List.of(unknown, done.withVisibleAfter(soon), unknownAgain, done.withVisibleAfter(later))))
                .expectComplete()
                .verify(TIMEOUT);

        // then, as if each row were applied in list order, the first row of a key inserts or
        // re-arms it and the later one re-arms it again: both are pending with the last
        // visibility, the done row with its stored attempt, the unknown one with its first values
        assertState(done.dispatchKey(), OutboxStatus.PENDING, 2, later);
        assertState(unknown.dispatchKey(), OutboxStatus.PENDING, 3, later);
        clock.advance(Duration.ofSeconds(9));
        StepVerifier.create(store.claim(ClaimRequest.of(10)))
                .assertNext(rows -> assertThat(OutboxFixtures.withoutTokens(rows))
                        .containsExactly(
                                done.withVisibleAfter(later).withStatus(OutboxStatus.CLAIMED, now()),
                                unknown.withVisibleAfter(later).withStatus(OutboxStatus.CLAIMED, now())))
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O12_one_transaction_an_invalid_row_leaves_every_row_unchanged() {
        // given a done row
        WorkflowId w = workflow(1);
        OutboxRow a = row(w, 0, now());
        stage(a);
        store.settleKeys(List.of(a.dispatchKey()), Settlement.complete()).block(TIMEOUT);

        // when it is re-armed together with an unknown row whose visibility is out of range
        OutboxRow bad = row(w, 1, Instant.MAX);
        assertRejected(() -> store.rearmPending(List.of(a, bad)), "row");

        // then the done row is still done and the unknown row was not inserted
        assertState(a.dispatchKey(), OutboxStatus.DONE, 0, now());
        assertAbsent(bad.dispatchKey());
    }

    private static OutboxRow stored(WorkflowId w, long ordinal, RunId run, Instant visibleAfter) {
        return OutboxFixtures.routed(w, ordinal, visibleAfter, "remote", "gpu", "box-7")
                .withRunId(run)
                .withAttempt(4);
    }

    private OutboxRow expected(OutboxRow stored, Instant visibleAfter) {
        return stored.withVisibleAfter(visibleAfter).withStatus(OutboxStatus.CLAIMED, now());
    }
}
