package dev.durablestore.tck;

import static dev.durablestore.tck.OutboxFixtures.keys;
import static dev.durablestore.tck.OutboxFixtures.row;
import static dev.durablestore.tck.OutboxFixtures.workflow;
import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.ClaimScope;
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
 * Contract of settling rows (O29–O38, with the Java guard O34), of redriving dead letters, and of
 * pruning settled rows.
 */
public abstract class SettleContract extends OutboxContractSupport {

    // ---------------------------------------------------------------- single-row transitions (O29–O34)

    @Test
    void O29_O30_O31_C37_claim_complete_retry_fail_round_trip() {
        // given rows a (ordinal 0, visible e1) and b (ordinal 1, visible e2), both claimed
        WorkflowId w = workflow(1);
        OutboxRow a = row(w, 0, Instant.ofEpochSecond(1));
        OutboxRow b = row(w, 1, Instant.ofEpochSecond(2));
        stage(a, b);
        assertThat(keys(claim(10))).containsExactly(a.dispatchKey(), b.dispatchKey());
        assertThat(claim(10)).isEmpty();

        // when a is completed
        StepVerifier.create(store.settleKeys(List.of(a.dispatchKey()), Settlement.complete()))
                .expectComplete()
                .verify(TIMEOUT);
        // then it is done, attempt and visibility unchanged
        assertState(a.dispatchKey(), OutboxStatus.DONE, 0, Instant.ofEpochSecond(1));

        // when b is retried with attempt 1, visible in one hour
        Instant inAnHour = now().plus(Duration.ofHours(1));
        StepVerifier.create(store.settleKeys(List.of(b.dispatchKey()), Settlement.retryAt(1, inAnHour)))
                .expectComplete()
                .verify(TIMEOUT);
        // then it is pending, attempt 1, fenced, and a claim returns nothing
        assertState(b.dispatchKey(), OutboxStatus.PENDING, 1, inAnHour);
        assertThat(claim(10)).isEmpty();

        // when b is retried with attempt 2, visible e1
        StepVerifier.create(store.settleKeys(List.of(b.dispatchKey()), Settlement.retryAt(2, Instant.ofEpochSecond(1))))
                .expectComplete()
                .verify(TIMEOUT);
        // then a claim returns b with attempt 2
        StepVerifier.create(store.claim(ClaimRequest.of(10)))
                .assertNext(rows -> assertThat(OutboxFixtures.withoutTokens(rows))
                        .containsExactly(b.withAttempt(2)
                                .withVisibleAfter(Instant.ofEpochSecond(1))
                                .withStatus(OutboxStatus.CLAIMED, now())))
                .expectComplete()
                .verify(TIMEOUT);

        // when b is failed
        StepVerifier.create(store.settleKeys(List.of(b.dispatchKey()), Settlement.fail()))
                .expectComplete()
                .verify(TIMEOUT);
        // then it is failed and a claim returns nothing
        assertState(b.dispatchKey(), OutboxStatus.FAILED, 2, Instant.ofEpochSecond(1));
        assertThat(claim(10)).isEmpty();
    }

    @Test
    void O29_O31_pending_rows_can_be_completed_and_failed() {
        // given two pending (unclaimed) rows with attempt 3
        WorkflowId w = workflow(1);
        OutboxRow a = row(w, 0, now()).withAttempt(3);
        OutboxRow b = row(w, 1, now()).withAttempt(3);
        stage(a, b);

        // when one is completed and the other failed
        StepVerifier.create(store.settleKeys(List.of(a.dispatchKey()), Settlement.complete()))
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.settleKeys(List.of(b.dispatchKey()), Settlement.fail()))
                .expectComplete()
                .verify(TIMEOUT);

        // then they are done and failed with their other columns unchanged, and cannot be claimed
        assertState(a.dispatchKey(), OutboxStatus.DONE, 3, now());
        assertState(b.dispatchKey(), OutboxStatus.FAILED, 3, now());
        assertThat(claim(10)).isEmpty();
    }

    @Test
    void O30_a_pending_row_can_be_retried() {
        // given a pending row
        WorkflowId w = workflow(1);
        OutboxRow a = row(w, 0, now());
        stage(a);

        // when it is retried with attempt 5, visible in a minute
        Instant later = now().plusSeconds(60);
        StepVerifier.create(store.settleKeys(List.of(a.dispatchKey()), Settlement.retryAt(5, later)))
                .expectComplete()
                .verify(TIMEOUT);

        // then it is pending with the new attempt and visibility
        assertState(a.dispatchKey(), OutboxStatus.PENDING, 5, later);
    }

    @Test
    void O6_settled_and_retried_rows_lose_their_claim() {
        // given three rows claimed long ago
        WorkflowId w = workflow(1);
        OutboxRow a = row(w, 0, now());
        OutboxRow b = row(w, 1, now());
        OutboxRow c = row(w, 2, now());
        stage(a, b, c);
        claim(10);
        clock.advance(Duration.ofHours(1));

        // when they are completed, retried and failed
        store.settleKeys(List.of(a.dispatchKey()), Settlement.complete()).block(TIMEOUT);
        store.settleKeys(List.of(b.dispatchKey()), Settlement.retryAt(1, now().plus(Duration.ofDays(1))))
                .block(TIMEOUT);
        store.settleKeys(List.of(c.dispatchKey()), Settlement.fail()).block(TIMEOUT);

        // then none of them is a stale claim any more
        StepVerifier.create(store.listStaleClaimed(now(), 10).map(OutboxFixtures::withoutToken))
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.rearmStaleClaimed(now(), now(), 10))
                .expectNext(List.of())
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.countClaimed("default"))
                .expectNext(0L)
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O34_OQ1_complete_and_fail_leave_terminal_rows_unchanged() {
        // given a done, a failed and a cancelled row with attempt 2
        WorkflowId w = workflow(1);
        List<OutboxRow> terminal = terminalRows(w);

        // when each is completed and failed
        for (OutboxRow r : terminal) {
            StepVerifier.create(store.settleKeys(List.of(r.dispatchKey()), Settlement.complete()))
                    .expectComplete()
                    .verify(TIMEOUT);
            StepVerifier.create(store.settleKeys(List.of(r.dispatchKey()), Settlement.fail()))
                    .expectComplete()
                    .verify(TIMEOUT);
        }

        // then each is still in its status, attempt and visibility
        assertState(terminal.get(0).dispatchKey(), OutboxStatus.DONE, 2, now());
        assertState(terminal.get(1).dispatchKey(), OutboxStatus.FAILED, 2, now());
        assertState(terminal.get(2).dispatchKey(), OutboxStatus.CANCELLED, 2, now());
    }

    @Test
    void O34_OQ2_retry_never_resurrects_a_terminal_row() {
        // given a done, a failed and a cancelled row with attempt 2
        WorkflowId w = workflow(1);
        List<OutboxRow> terminal = terminalRows(w);

        // when each is retried with attempt 7, visible now
        for (OutboxRow r : terminal) {
            StepVerifier.create(
                            store.settleKeys(List.of(r.dispatchKey()), Settlement.retryAt(7, now().minusSeconds(1))))
                    .expectComplete()
                    .verify(TIMEOUT);
        }

        // then nothing changed and no claim takes them
        assertState(terminal.get(0).dispatchKey(), OutboxStatus.DONE, 2, now());
        assertState(terminal.get(1).dispatchKey(), OutboxStatus.FAILED, 2, now());
        assertState(terminal.get(2).dispatchKey(), OutboxStatus.CANCELLED, 2, now());
        assertThat(claim(10)).isEmpty();
    }

    @Test
    void O32_C39_settle_cancelled_is_idempotent_and_terminal() {
        // given four pending rows p, c, d, f
        WorkflowId w = workflow(1);
        OutboxRow p = row(w, 0, now());
        OutboxRow c = row(w, 1, now());
        OutboxRow d = row(w, 2, now());
        OutboxRow f = row(w, 3, now());
        stage(p, c, d, f);

        // when p is settled cancelled twice
        StepVerifier.create(store.settleKeys(List.of(p.dispatchKey()), Settlement.cancel()))
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.settleKeys(List.of(p.dispatchKey()), Settlement.cancel()))
                .expectComplete()
                .verify(TIMEOUT);
        // then p is cancelled and a claim takes c, d and f but not p
        assertStatus(p.dispatchKey(), OutboxStatus.CANCELLED);
        assertThat(keys(claim(10))).containsExactly(c.dispatchKey(), d.dispatchKey(), f.dispatchKey());

        // when the claimed c is settled cancelled
        StepVerifier.create(store.settleKeys(List.of(c.dispatchKey()), Settlement.cancel()))
                .expectComplete()
                .verify(TIMEOUT);
        // then it is cancelled, no longer claimed, and a stale re-arm returns d and f but not c
        assertStatus(c.dispatchKey(), OutboxStatus.CANCELLED);
        StepVerifier.create(store.rearmStaleClaimed(now().plus(Duration.ofHours(1)), now(), 10))
                .assertNext(rows -> assertThat(keys(rows)).containsExactly(d.dispatchKey(), f.dispatchKey()))
                .expectComplete()
                .verify(TIMEOUT);
        assertStatus(c.dispatchKey(), OutboxStatus.CANCELLED);

        // when d is completed, f failed, and d, f and an absent key are settled cancelled
        store.settleKeys(List.of(d.dispatchKey()), Settlement.complete()).block(TIMEOUT);
        store.settleKeys(List.of(f.dispatchKey()), Settlement.fail()).block(TIMEOUT);
        StepVerifier.create(store.settleKeys(List.of(d.dispatchKey()), Settlement.cancel()))
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.settleKeys(List.of(f.dispatchKey()), Settlement.cancel()))
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.settleKeys(List.of("absent:0"), Settlement.cancel()))
                .expectComplete()
                .verify(TIMEOUT);

        // then d stays done, f stays failed and the absent key is still absent
        assertStatus(d.dispatchKey(), OutboxStatus.DONE);
        assertStatus(f.dispatchKey(), OutboxStatus.FAILED);
        assertAbsent("absent:0");
    }

    @Test
    void O33_transitions_on_unknown_keys_succeed_and_create_nothing() {
        // given an empty outbox
        String unknown = OutboxRow.dispatchKey(workflow(1), 0);

        // when each single-row transition is applied to an unknown key
        StepVerifier.create(store.settleKeys(List.of(unknown), Settlement.complete()))
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.settleKeys(List.of(unknown), Settlement.retryAt(1, now())))
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.settleKeys(List.of(unknown), Settlement.fail()))
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.settleKeys(List.of(unknown), Settlement.cancel()))
                .expectComplete()
                .verify(TIMEOUT);

        // then no row exists
        assertAbsent(unknown);
        assertThat(claim(10)).isEmpty();
        StepVerifier.create(store.listUnsettledWorkflowIds()).expectComplete().verify(TIMEOUT);
    }

    // ---------------------------------------------------------------- workflow-terminal settle (O35–O38)

    @Test
    void O35_O36_O38_C27_settle_flips_only_live_rows_and_is_idempotent() {
        // given workflow D with rows 0 done, 1 failed, 2 claimed, 3 and 4 pending, and workflow L with row 0 pending
        WorkflowId d = workflow(1);
        WorkflowId l = workflow(2);
        List<OutboxRow> dRows = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            dRows.add(row(d, i, now()));
        }
        stageAll(dRows.subList(0, 3));
        claim(10);
        store.settleKeys(List.of(dRows.get(0).dispatchKey()), Settlement.complete())
                .block(TIMEOUT);
        store.settleKeys(List.of(dRows.get(1).dispatchKey()), Settlement.fail()).block(TIMEOUT);
        stageAll(dRows.subList(3, 5));
        OutboxRow lRow = row(l, 0, now());
        stage(lRow);

        // when listing unsettled workflows
        // then both appear
        StepVerifier.create(store.listUnsettledWorkflowIds())
                .expectNext(d, l)
                .expectComplete()
                .verify(TIMEOUT);

        // when D's rows are cancelled
        // then exactly D:2, D:3, D:4 are returned, in ascending key order
        StepVerifier.create(store.cancelWorkflowRows(d))
                .expectNext(keys(dRows.subList(2, 5)))
                .expectComplete()
                .verify(TIMEOUT);
        assertStatus(dRows.get(0).dispatchKey(), OutboxStatus.DONE);
        assertStatus(dRows.get(1).dispatchKey(), OutboxStatus.FAILED);
        for (OutboxRow r : dRows.subList(2, 5)) {
            assertStatus(r.dispatchKey(), OutboxStatus.CANCELLED);
        }

        // when cancelling again
        // then nothing is returned
        StepVerifier.create(store.cancelWorkflowRows(d))
                .expectNext(List.of())
                .expectComplete()
                .verify(TIMEOUT);

        // when claiming up to 16
        // then only L's row is claimed
        assertThat(keys(claim(16))).containsExactly(lRow.dispatchKey());

        // and the unsettled list is exactly [L]
        StepVerifier.create(store.listUnsettledWorkflowIds())
                .expectNext(l)
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O35_returned_keys_are_in_ascending_text_order_and_claims_are_cleared() {
        // given ordinals 2, 10 and 1 of one workflow, ordinal 10 claimed, and a pending row of another workflow
        WorkflowId w = workflow(1);
        WorkflowId other = workflow(2);
        OutboxRow two = row(w, 2, now());
        OutboxRow ten = row(w, 10, now().minusSeconds(1));
        OutboxRow one = row(w, 1, now());
        stage(ten);
        claim(1);
        stage(two, one, row(other, 0, now()));

        // when the workflow's rows are cancelled
        // then the keys come back as ":1", ":10", ":2"
        StepVerifier.create(store.cancelWorkflowRows(w))
                .expectNext(List.of(one.dispatchKey(), ten.dispatchKey(), two.dispatchKey()))
                .expectComplete()
                .verify(TIMEOUT);

        // and the formerly claimed row is no longer a stale claim; the other workflow's row is untouched
        StepVerifier.create(store.listStaleClaimed(now().plusSeconds(1), 10).map(OutboxFixtures::withoutToken))
                .expectComplete()
                .verify(TIMEOUT);
        assertStatus(OutboxRow.dispatchKey(other, 0), OutboxStatus.PENDING);
    }

    @Test
    void O35_an_unknown_workflow_settles_nothing() {
        // given a pending row of another workflow
        OutboxRow a = row(workflow(1), 0, now());
        stage(a);

        // when an unknown workflow is settled
        // then nothing is returned and nothing changes
        StepVerifier.create(store.cancelWorkflowRows(workflow(2)))
                .expectNext(List.of())
                .expectComplete()
                .verify(TIMEOUT);
        assertStatus(a.dispatchKey(), OutboxStatus.PENDING);
    }

    @Test
    void O37_O38_C31_workflow_settle_then_claim_and_settle_again() {
        // given two pending rows of one workflow
        WorkflowId w = workflow(1);
        OutboxRow a = row(w, 0, now());
        OutboxRow b = row(w, 1, now());
        stage(a, b);

        // when the workflow settle runs
        // then it returns both keys, a following claim returns nothing, and a second settle returns nothing
        StepVerifier.create(store.cancelWorkflowRows(w))
                .expectNext(List.of(a.dispatchKey(), b.dispatchKey()))
                .expectComplete()
                .verify(TIMEOUT);
        assertThat(claim(10)).isEmpty();
        StepVerifier.create(store.cancelWorkflowRows(w))
                .expectNext(List.of())
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O38_C29_cancelled_rows_are_never_claimed_nor_stale_rearmed() {
        // given a claimed row, then its workflow's rows cancelled, and a pending row cancelled directly
        WorkflowId w = workflow(1);
        OutboxRow claimed = row(w, 0, now());
        stage(claimed);
        claim(10);
        assertThat(store.cancelWorkflowRows(w).block(TIMEOUT)).containsExactly(claimed.dispatchKey());
        OutboxRow pending = row(workflow(2), 0, now());
        stage(pending);
        store.settleKeys(List.of(pending.dispatchKey()), Settlement.cancel()).block(TIMEOUT);
        clock.advance(Duration.ofHours(2));

        // when a stale re-arm runs, and claims plain, holding nothing, scoped and both
        // then none returns a cancelled row
        StepVerifier.create(store.rearmStaleClaimed(now().plus(Duration.ofHours(1)), now(), 16))
                .expectNext(List.of())
                .expectComplete()
                .verify(TIMEOUT);
        assertThat(claim(16)).isEmpty();
        assertThat(store.claim(ClaimRequest.of(16).withHeldWorkflows(Set.of())).block(TIMEOUT))
                .isEmpty();
        assertThat(store.claim(ClaimRequest.of(16).withScope(ClaimScope.of("default", "default")))
                        .block(TIMEOUT))
                .isEmpty();
        assertThat(store.claim(ClaimRequest.of(16)
                                .withScope(ClaimScope.of("default", "default"))
                                .withHeldWorkflows(Set.of()))
                        .block(TIMEOUT))
                .isEmpty();
        assertStatus(claimed.dispatchKey(), OutboxStatus.CANCELLED);
        assertStatus(pending.dispatchKey(), OutboxStatus.CANCELLED);
    }

    // ---------------------------------------------------------------- redrive ([J]: undoes O31's dead letter)

    @Test
    void O31_redrive_returns_a_failed_row_to_pending_visible_now_keeping_its_attempt() {
        // given a row with attempt 3, fenced far in the past, dead-lettered
        WorkflowId w = workflow(1);
        OutboxRow a = row(w, 0, Instant.ofEpochSecond(10)).withAttempt(3);
        stage(a);
        claim(10);
        store.settleKeys(List.of(a.dispatchKey()), Settlement.fail()).block(TIMEOUT);
        clock.advance(Duration.ofMinutes(5));

        // when it is redriven without resetting the attempt
        StepVerifier.create(store.redrive(a.dispatchKey(), false))
                .expectNext(true)
                .expectComplete()
                .verify(TIMEOUT);

        // then it is pending, visible now, attempt 3, and claimable
        assertState(a.dispatchKey(), OutboxStatus.PENDING, 3, now());
        assertThat(keys(claim(10))).containsExactly(a.dispatchKey());
    }

    @Test
    void O31_redrive_can_reset_the_attempt() {
        // given a dead-lettered row with attempt 4
        WorkflowId w = workflow(1);
        OutboxRow a = row(w, 0, now()).withAttempt(4);
        stage(a);
        store.settleKeys(List.of(a.dispatchKey()), Settlement.fail()).block(TIMEOUT);
        clock.advance(Duration.ofSeconds(30));

        // when it is redriven with reset
        StepVerifier.create(store.redrive(a.dispatchKey(), true))
                .expectNext(true)
                .expectComplete()
                .verify(TIMEOUT);

        // then its attempt is 0 and it is visible now
        assertState(a.dispatchKey(), OutboxStatus.PENDING, 0, now());
    }

    @Test
    void O31_redrive_leaves_rows_that_are_not_failed_untouched() {
        // given a pending, a claimed, a done and a cancelled row, and an unknown key
        WorkflowId w = workflow(1);
        OutboxRow claimed = row(w, 0, Instant.ofEpochSecond(5)).withAttempt(1);
        stage(claimed);
        claim(10);
        OutboxRow pending = row(w, 1, Instant.ofEpochSecond(5)).withAttempt(1);
        OutboxRow done = row(w, 2, Instant.ofEpochSecond(5)).withAttempt(1);
        OutboxRow cancelled = row(w, 3, Instant.ofEpochSecond(5)).withAttempt(1);
        stage(pending, done, cancelled);
        store.settleKeys(List.of(done.dispatchKey()), Settlement.complete()).block(TIMEOUT);
        store.settleKeys(List.of(cancelled.dispatchKey()), Settlement.cancel()).block(TIMEOUT);
        String unknown = OutboxRow.dispatchKey(w, 99);
        clock.advance(Duration.ofMinutes(1));

        // when each is redriven, with and without reset
        // then each call reports false and nothing changes
        for (String key : List.of(
                claimed.dispatchKey(), pending.dispatchKey(), done.dispatchKey(), cancelled.dispatchKey(), unknown)) {
            StepVerifier.create(store.redrive(key, true))
                    .expectNext(false)
                    .expectComplete()
                    .verify(TIMEOUT);
            StepVerifier.create(store.redrive(key, false))
                    .expectNext(false)
                    .expectComplete()
                    .verify(TIMEOUT);
        }
        assertState(claimed.dispatchKey(), OutboxStatus.CLAIMED, 1, Instant.ofEpochSecond(5));
        assertState(pending.dispatchKey(), OutboxStatus.PENDING, 1, Instant.ofEpochSecond(5));
        assertState(done.dispatchKey(), OutboxStatus.DONE, 1, Instant.ofEpochSecond(5));
        assertState(cancelled.dispatchKey(), OutboxStatus.CANCELLED, 1, Instant.ofEpochSecond(5));
        assertAbsent(unknown);
    }

    @Test
    void O31_redriveWorkflow_returns_every_failed_row_of_the_workflow_in_key_order() {
        // given workflow w with failed rows 2 (attempt 2) and 10 (attempt 4), a done, a pending and a claimed row,
        // and another workflow with a failed row
        WorkflowId w = workflow(1);
        WorkflowId other = workflow(2);
        Instant past = Instant.ofEpochSecond(100);
        OutboxRow failedTwo = row(w, 2, past).withAttempt(2);
        OutboxRow failedTen = row(w, 10, past).withAttempt(4);
        OutboxRow done = row(w, 3, past);
        OutboxRow pending = row(w, 4, now().plusSeconds(3600));
        OutboxRow claimed = row(w, 5, past);
        OutboxRow otherFailed = row(other, 0, past).withAttempt(1);
        stage(claimed);
        claim(10);
        stage(failedTwo, failedTen, done, pending, otherFailed);
        store.settleKeys(List.of(failedTwo.dispatchKey()), Settlement.fail()).block(TIMEOUT);
        store.settleKeys(List.of(failedTen.dispatchKey()), Settlement.fail()).block(TIMEOUT);
        store.settleKeys(List.of(otherFailed.dispatchKey()), Settlement.fail()).block(TIMEOUT);
        store.settleKeys(List.of(done.dispatchKey()), Settlement.complete()).block(TIMEOUT);
        clock.advance(Duration.ofMinutes(10));

        // when w is redriven without reset
        // then exactly its failed keys come back, ":10" before ":2"
        StepVerifier.create(store.redriveWorkflow(w, false))
                .expectNext(List.of(failedTen.dispatchKey(), failedTwo.dispatchKey()))
                .expectComplete()
                .verify(TIMEOUT);

        // and they are pending, visible now, with their attempts; every other row is untouched
        assertState(failedTwo.dispatchKey(), OutboxStatus.PENDING, 2, now());
        assertState(failedTen.dispatchKey(), OutboxStatus.PENDING, 4, now());
        assertState(done.dispatchKey(), OutboxStatus.DONE, 0, past);
        assertState(pending.dispatchKey(), OutboxStatus.PENDING, 0, pending.visibleAfter());
        assertState(claimed.dispatchKey(), OutboxStatus.CLAIMED, 0, past);
        assertState(otherFailed.dispatchKey(), OutboxStatus.FAILED, 1, past);

        // when it is redriven again
        // then nothing is left to redrive
        StepVerifier.create(store.redriveWorkflow(w, false))
                .expectNext(List.of())
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O31_redriveWorkflow_can_reset_attempts_and_ignores_unknown_workflows() {
        // given two failed rows with attempts 2 and 5
        WorkflowId w = workflow(1);
        OutboxRow a = row(w, 0, now()).withAttempt(2);
        OutboxRow b = row(w, 1, now()).withAttempt(5);
        stage(a, b);
        store.settleKeys(List.of(a.dispatchKey()), Settlement.fail()).block(TIMEOUT);
        store.settleKeys(List.of(b.dispatchKey()), Settlement.fail()).block(TIMEOUT);

        // when an unknown workflow is redriven
        // then nothing is returned
        StepVerifier.create(store.redriveWorkflow(workflow(9), true))
                .expectNext(List.of())
                .expectComplete()
                .verify(TIMEOUT);

        // when w is redriven with reset
        clock.advance(Duration.ofSeconds(1));
        StepVerifier.create(store.redriveWorkflow(w, true))
                .expectNext(List.of(a.dispatchKey(), b.dispatchKey()))
                .expectComplete()
                .verify(TIMEOUT);

        // then both are pending with attempt 0, visible now
        assertState(a.dispatchKey(), OutboxStatus.PENDING, 0, now());
        assertState(b.dispatchKey(), OutboxStatus.PENDING, 0, now());
    }

    // ---------------------------------------------------------------- prune ([J]: deletes O4's terminal rows only)

    @Test
    void O4_pruneSettled_deletes_only_rows_settled_before_the_cutoff() {
        // given, at t0, rows a done, b failed, c cancelled, and e claimed
        WorkflowId w = workflow(1);
        Instant t0 = now();
        OutboxRow a = row(w, 0, t0);
        OutboxRow b = row(w, 1, t0);
        OutboxRow c = row(w, 2, t0);
        OutboxRow d = row(w, 3, t0);
        OutboxRow e = row(w, 4, t0);
        stage(a, b, c, d, e);
        claim(10);
        store.settleKeys(List.of(a.dispatchKey()), Settlement.complete()).block(TIMEOUT);
        store.settleKeys(List.of(b.dispatchKey()), Settlement.fail()).block(TIMEOUT);
        store.settleKeys(List.of(c.dispatchKey()), Settlement.cancel()).block(TIMEOUT);
        // and at t0 + 1h, d done, plus a pending row visible long ago
        clock.advance(Duration.ofHours(1));
        store.settleKeys(List.of(d.dispatchKey()), Settlement.complete()).block(TIMEOUT);
        OutboxRow f = row(workflow(2), 0, Instant.ofEpochSecond(1));
        stage(f);
        clock.advance(Duration.ofHours(1));

        // when rows settled before t0 + 30 min are pruned in batches of 1
        // then a, b and c are deleted and counted; d, e and f remain
        StepVerifier.create(store.pruneSettled(t0.plus(Duration.ofMinutes(30)), 1))
                .expectNext(3L)
                .expectComplete()
                .verify(TIMEOUT);
        assertAbsent(a.dispatchKey());
        assertAbsent(b.dispatchKey());
        assertAbsent(c.dispatchKey());
        assertStatus(d.dispatchKey(), OutboxStatus.DONE);
        assertStatus(e.dispatchKey(), OutboxStatus.CLAIMED);
        assertStatus(f.dispatchKey(), OutboxStatus.PENDING);

        // when everything settled before now is pruned
        // then only d goes; live rows are never deleted
        StepVerifier.create(store.pruneSettled(now(), 2))
                .expectNext(1L)
                .expectComplete()
                .verify(TIMEOUT);
        assertAbsent(d.dispatchKey());
        assertStatus(e.dispatchKey(), OutboxStatus.CLAIMED);
        assertStatus(f.dispatchKey(), OutboxStatus.PENDING);
    }

    @Test
    void O4_pruneSettled_cutoff_is_exclusive() {
        // given a row completed at t
        WorkflowId w = workflow(1);
        OutboxRow a = row(w, 0, now());
        stage(a);
        Instant t = now();
        store.settleKeys(List.of(a.dispatchKey()), Settlement.complete()).block(TIMEOUT);
        clock.advance(Duration.ofMinutes(1));

        // when pruning with cutoff t
        // then nothing is deleted
        StepVerifier.create(store.pruneSettled(t, 10))
                .expectNext(0L)
                .expectComplete()
                .verify(TIMEOUT);
        assertStatus(a.dispatchKey(), OutboxStatus.DONE);

        // when pruning with cutoff t + 1 ns
        // then it is deleted
        StepVerifier.create(store.pruneSettled(t.plusNanos(1), 10))
                .expectNext(1L)
                .expectComplete()
                .verify(TIMEOUT);
        assertAbsent(a.dispatchKey());
    }

    @Test
    void O4_pruneSettled_deletes_many_rows_in_small_batches() {
        // given 25 rows settled by the workflow settle, done and failed, and 3 live rows
        WorkflowId w = workflow(1);
        List<OutboxRow> settled = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            settled.add(row(w, i, now()));
        }
        stageAll(settled);
        store.settleKeys(List.of(settled.get(0).dispatchKey()), Settlement.complete())
                .block(TIMEOUT);
        store.settleKeys(List.of(settled.get(1).dispatchKey()), Settlement.fail())
                .block(TIMEOUT);
        store.cancelWorkflowRows(w).block(TIMEOUT);
        WorkflowId live = workflow(2);
        stage(row(live, 0, now()), row(live, 1, now()), row(live, 2, now()));
        claim(1);
        clock.advance(Duration.ofHours(1));

        // when pruning everything settled before now in batches of 4
        // then all 25 are deleted and the live rows remain
        StepVerifier.create(store.pruneSettled(now(), 4))
                .expectNext(25L)
                .expectComplete()
                .verify(TIMEOUT);
        for (OutboxRow r : settled) {
            assertAbsent(r.dispatchKey());
        }
        StepVerifier.create(store.countInflight("default"))
                .expectNext(3L)
                .expectComplete()
                .verify(TIMEOUT);

        // when pruning again
        // then nothing is left to delete
        StepVerifier.create(store.pruneSettled(now(), 4))
                .expectNext(0L)
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O4_pruneSettled_never_deletes_a_row_brought_back_to_life() {
        // given a row completed at t0, then re-armed, and another failed at t0, then redriven
        WorkflowId w = workflow(1);
        OutboxRow a = row(w, 0, now());
        OutboxRow b = row(w, 1, now());
        stage(a, b);
        store.settleKeys(List.of(a.dispatchKey()), Settlement.complete()).block(TIMEOUT);
        store.settleKeys(List.of(b.dispatchKey()), Settlement.fail()).block(TIMEOUT);
        clock.advance(Duration.ofMinutes(1));
        store.rearmPending(List.of(a.withVisibleAfter(now().plus(Duration.ofDays(1)))))
                .block(TIMEOUT);
        assertThat(store.redrive(b.dispatchKey(), false).block(TIMEOUT)).isTrue();
        clock.advance(Duration.ofHours(1));

        // when pruning everything settled before now
        // then nothing is deleted: both rows are live again
        StepVerifier.create(store.pruneSettled(now(), 10))
                .expectNext(0L)
                .expectComplete()
                .verify(TIMEOUT);
        assertStatus(a.dispatchKey(), OutboxStatus.PENDING);
        assertStatus(b.dispatchKey(), OutboxStatus.PENDING);
    }

    // ---------------------------------------------------------------- helpers

    /** Stages rows 0, 1, 2 of {@code w} with attempt 2 and brings them to done, failed and cancelled. */
    private List<OutboxRow> terminalRows(WorkflowId w) {
        OutboxRow done = row(w, 0, now()).withAttempt(2);
        OutboxRow failed = row(w, 1, now()).withAttempt(2);
        OutboxRow cancelled = row(w, 2, now()).withAttempt(2);
        stage(done, failed, cancelled);
        claim(10);
        store.settleKeys(List.of(done.dispatchKey()), Settlement.complete()).block(TIMEOUT);
        store.settleKeys(List.of(failed.dispatchKey()), Settlement.fail()).block(TIMEOUT);
        store.settleKeys(List.of(cancelled.dispatchKey()), Settlement.cancel()).block(TIMEOUT);
        return List.of(done, failed, cancelled);
    }
}
