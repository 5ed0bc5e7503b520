package dev.durablestore.tck;

import static dev.durablestore.tck.OutboxFixtures.row;
import static dev.durablestore.tck.OutboxFixtures.started;
import static dev.durablestore.tck.OutboxFixtures.workflow;
import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.AttemptFailure;
import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.FailureReason;
import dev.durablestore.api.OutboxQuery;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.StaleClaimException;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.WorkflowStep;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import reactor.test.StepVerifier;

/**
 * Contract of failure reasons (O66, O67): a retry or dead-letter that gives a reason records it with
 * the row, in the same transaction, as the failure of the attempt it ends (the row's attempt + 1);
 * the row keeps its last five failures, every read of it returns them, and settles without a reason,
 * re-arms and redrives keep them. The same by key, in bulk, fenced and in a step.
 */
public abstract class FailureReasonContract extends OutboxContractSupport {

    /** A reason with every field, as a dispatcher builds one from an exception. */
    private static final FailureReason LEDGER_TIMEOUT = FailureReason.of("the ledger did not answer in 5 s")
            .withType("java.util.concurrent.TimeoutException")
            .withTrace("\tat com.example.Ledger.post(Ledger.java:42)\n\tat com.example.Charge.run(Charge.java:7)\n");

    private static FailureReason numbered(int n) {
        return FailureReason.of("failure " + n);
    }

    /** @return the stored row of {@code dispatchKey}, as the operator's listing reads it */
    private OutboxRow read(String dispatchKey) {
        List<OutboxRow> rows =
                KitSupport.collect(store.listOutbox(OutboxQuery.all(1).withDispatchKey(dispatchKey)));
        assertThat(rows).as("stored rows of %s", dispatchKey).hasSize(1);
        return rows.get(0);
    }

    private void settle(OutboxRow claimed, Settlement settlement) {
        StepVerifier.create(store.settle(claimed, settlement)).expectComplete().verify(TIMEOUT);
    }

    private void settleKeys(List<String> keys, Settlement settlement) {
        StepVerifier.create(store.settleKeys(keys, settlement)).expectComplete().verify(TIMEOUT);
    }

    private OutboxRow claimOne() {
        List<OutboxRow> claimed = claim(1);
        assertThat(claimed).as("claimed rows").hasSize(1);
        return claimed.get(0);
    }

    @Test
    void O66_O67_a_fenced_dead_letter_records_its_reason_as_the_failure_of_the_claimed_attempt() {
        // given a row claimed for its first dispatch (attempt 0: no earlier dispatch)
        OutboxRow staged = row(workflow(1), 0, now());
        stage(staged);
        OutboxRow claimed = claimOne();
        assertThat(claimed.failures()).isEmpty();
        assertThat(claimed.lastFailure()).isNull();

        // when its handler's failure dead-letters it with a reason
        Instant at = clock.advance(Duration.ofSeconds(3));
        settle(claimed, Settlement.fail().withReason(LEDGER_TIMEOUT));

        // then the row is failed and records attempt 1, at the store's clock, with the reason exactly
        OutboxRow stored = read(staged.dispatchKey());
        assertThat(stored.status()).isEqualTo(OutboxStatus.FAILED);
        assertThat(stored.failures()).containsExactly(AttemptFailure.of(1, at, LEDGER_TIMEOUT));
        assertThat(stored.lastFailure()).isEqualTo(AttemptFailure.of(1, at, LEDGER_TIMEOUT));
    }

    @Test
    void O66_O67_each_fenced_retry_adds_the_failure_of_its_attempt_and_the_next_claim_returns_them() {
        // given a row
        OutboxRow staged = row(workflow(1), 0, now());
        stage(staged);
        List<AttemptFailure> expected = new ArrayList<>();

        for (int dispatch = 1; dispatch <= 3; dispatch++) {
            // when it is claimed, it carries the failures of every earlier attempt
            OutboxRow claimed = claimOne();
            assertThat(claimed.attempt()).isEqualTo(dispatch - 1);
            assertThat(claimed.failures())
                    .as("failures claim %d returned", dispatch)
                    .isEqualTo(expected);

            // and its attempt fails and is retried with a reason, at an instant or after a delay
            Instant at = clock.advance(Duration.ofSeconds(1));
            Settlement retry = dispatch % 2 == 1
                    ? Settlement.retryAt(claimed.attempt() + 1, at)
                    : Settlement.retryAfter(claimed.attempt() + 1, Duration.ZERO);
            settle(claimed, retry.withReason(numbered(dispatch)));
            expected.add(AttemptFailure.of(dispatch, at, numbered(dispatch)));
        }

        // then the row is pending at attempt 3 with the failures of attempts 1, 2 and 3, oldest first
        OutboxRow stored = read(staged.dispatchKey());
        assertThat(stored.status()).isEqualTo(OutboxStatus.PENDING);
        assertThat(stored.attempt()).isEqualTo(3);
        assertThat(stored.failures()).isEqualTo(expected);
        assertThat(claimOne().failures()).isEqualTo(expected);
    }

    @Test
    void O66_a_row_keeps_its_last_five_failures() {
        // given a row retried with a reason seven times
        OutboxRow staged = row(workflow(1), 0, now());
        stage(staged);
        for (int dispatch = 1; dispatch <= 7; dispatch++) {
            OutboxRow claimed = claimOne();
            settle(claimed, Settlement.retryAt(claimed.attempt() + 1, now()).withReason(numbered(dispatch)));
        }

        // when it is read
        OutboxRow stored = read(staged.dispatchKey());

        // then it holds the failures of the last five attempts, oldest first
        assertThat(stored.failures()).hasSize(OutboxRow.MAX_FAILURES);
        assertThat(stored.failures()).extracting(AttemptFailure::attempt).containsExactly(3, 4, 5, 6, 7);
        assertThat(stored.failures())
                .extracting(f -> f.reason().message())
                .containsExactly("failure 3", "failure 4", "failure 5", "failure 6", "failure 7");
    }

    @Test
    void O66_settles_without_a_reason_a_redrive_and_a_rearm_keep_the_failures() {
        // given a row whose first attempt failed with a reason
        OutboxRow staged = row(workflow(1), 0, now());
        stage(staged);
        OutboxRow first = claimOne();
        settle(first, Settlement.retryAt(1, now()).withReason(LEDGER_TIMEOUT));
        List<AttemptFailure> one = List.of(AttemptFailure.of(1, now(), LEDGER_TIMEOUT));

        // when a retry without a reason, a re-arm, a dead-letter without one and a redrive follow
        settle(claimOne(), Settlement.retryAt(2, now()));
        assertThat(read(staged.dispatchKey()).failures())
                .as("after a retry without a reason")
                .isEqualTo(one);
        StepVerifier.create(store.rearmPending(List.of(staged)))
                .expectComplete()
                .verify(TIMEOUT);
        assertThat(read(staged.dispatchKey()).failures())
                .as("after rearmPending")
                .isEqualTo(one);
        settle(claimOne(), Settlement.fail());
        assertThat(read(staged.dispatchKey()).failures())
                .as("after a dead-letter without a reason")
                .isEqualTo(one);
        StepVerifier.create(store.redrive(staged.dispatchKey(), true))
                .expectNext(true)
                .expectComplete()
                .verify(TIMEOUT);

        // then the redriven row still has them, starts again at attempt 0, and its next failure is attempt 1
        OutboxRow redriven = claimOne();
        assertThat(redriven.failures()).isEqualTo(one);
        assertThat(redriven.attempt()).isZero();
        settle(redriven, Settlement.fail().withReason(numbered(9)));
        assertThat(read(staged.dispatchKey()).failures())
                .extracting(AttemptFailure::attempt)
                .containsExactly(1, 1);

        // and a row completed after a failed attempt keeps it too
        OutboxRow other = row(workflow(2), 0, now());
        stage(other);
        settle(claimOne(), Settlement.retryAt(1, now()).withReason(LEDGER_TIMEOUT));
        store.complete(claimOne()).block(TIMEOUT);
        OutboxRow done = read(other.dispatchKey());
        assertThat(done.status()).isEqualTo(OutboxStatus.DONE);
        assertThat(done.failures()).isEqualTo(one);
    }

    @Test
    void O66_O67_settleKeys_with_a_reason_records_it_on_every_live_row_at_its_own_attempt() {
        // given a claimed row at attempt 0, a pending row at attempt 2, a done row, and an unknown key
        WorkflowId w = workflow(1);
        OutboxRow claimedRow = row(w, 0, now());
        OutboxRow pending = row(w, 1, now().plusSeconds(3600)).withAttempt(2);
        OutboxRow done = OutboxFixtures.inState(row(w, 2, now()), OutboxStatus.DONE, null, 0);
        stage(claimedRow, pending, done);
        claimOne();
        String unknown = OutboxRow.dispatchKey(workflow(99), 0);

        // when an operator dead-letters them all by key with a reason
        Instant at = clock.advance(Duration.ofSeconds(1));
        settleKeys(
                List.of(claimedRow.dispatchKey(), pending.dispatchKey(), done.dispatchKey(), unknown),
                Settlement.fail().withReason(LEDGER_TIMEOUT));

        // then each live row is failed with the failure of the attempt it was on; the others are as they were
        assertThat(read(claimedRow.dispatchKey()).failures()).containsExactly(AttemptFailure.of(1, at, LEDGER_TIMEOUT));
        assertThat(read(pending.dispatchKey()).failures()).containsExactly(AttemptFailure.of(3, at, LEDGER_TIMEOUT));
        assertStatus(claimedRow.dispatchKey(), OutboxStatus.FAILED);
        assertStatus(pending.dispatchKey(), OutboxStatus.FAILED);
        OutboxRow stillDone = read(done.dispatchKey());
        assertThat(stillDone.status()).isEqualTo(OutboxStatus.DONE);
        assertThat(stillDone.failures()).isEmpty();
        assertAbsent(unknown);
    }

    @Test
    void O66_O58_settleKeys_retries_with_a_reason_by_one_key_and_in_bulk_at_an_instant_and_after_a_delay() {
        // given four claimed rows
        WorkflowId w = workflow(1);
        List<OutboxRow> rows = List.of(row(w, 0, now()), row(w, 1, now()), row(w, 2, now()), row(w, 3, now()));
        stageAll(rows);
        assertThat(claim(4)).hasSize(4);
        Instant at = clock.advance(Duration.ofSeconds(1));
        Instant later = at.plusSeconds(60);

        // when one is retried at an instant by its key, one after a delay, and two in bulk after a delay
        settleKeys(
                List.of(rows.get(0).dispatchKey()), Settlement.retryAt(1, later).withReason(numbered(0)));
        settleKeys(
                List.of(rows.get(1).dispatchKey()),
                Settlement.retryAfter(1, Duration.ofSeconds(60)).withReason(numbered(1)));
        settleKeys(
                List.of(rows.get(3).dispatchKey(), rows.get(2).dispatchKey()),
                Settlement.retryAfter(1, Duration.ofSeconds(60)).withReason(numbered(2)));

        // then each is pending at attempt 1, visible a minute later, with the failure of attempt 1
        for (int i = 0; i < 4; i++) {
            String key = rows.get(i).dispatchKey();
            assertState(key, OutboxStatus.PENDING, 1, later);
            assertThat(read(key).failures())
                    .as("failures of %s", key)
                    .containsExactly(AttemptFailure.of(1, at, numbered(Math.min(i, 2))));
        }
    }

    @Test
    void O66_W8_a_step_records_the_reasons_of_its_retry_and_dead_letter_with_its_events() {
        // given a workflow with two claimed rows
        WorkflowId w = workflow(1);
        StepVerifier.create(store.appendWithOutbox(
                        w, List.of(started(w, 1, now())), 0, List.of(row(w, 0, now()), row(w, 1, now()))))
                .expectComplete()
                .verify(TIMEOUT);
        List<OutboxRow> claimed = new ArrayList<>(claim(2));
        claimed.sort((a, b) -> Long.compare(a.ordinal(), b.ordinal()));

        // when one step dead-letters the first and retries the second, each with a reason
        Instant at = clock.advance(Duration.ofSeconds(1));
        StepVerifier.create(store.commitStep(WorkflowStep.builder(w, 1)
                        .append(OutboxFixtures.signal(w, 2, now()))
                        .settle(claimed.get(0), Settlement.fail().withReason(numbered(0)))
                        .settle(
                                claimed.get(1),
                                Settlement.retryAfter(1, Duration.ZERO).withReason(numbered(1)))
                        .build()))
                .expectComplete()
                .verify(TIMEOUT);

        // then both rows record their failure, and the step's event is stored
        assertThat(read(claimed.get(0).dispatchKey()).failures())
                .containsExactly(AttemptFailure.of(1, at, numbered(0)));
        assertThat(read(claimed.get(1).dispatchKey()).failures())
                .containsExactly(AttemptFailure.of(1, at, numbered(1)));
        assertThat(KitSupport.head(store, w)).isEqualTo(2);
    }

    @Test
    void O66_W6_a_stale_settle_with_a_reason_records_nothing() {
        // given a row whose first claim was re-armed and claimed again
        OutboxRow staged = row(workflow(1), 0, now());
        stage(staged);
        OutboxRow stale = claimOne();
        clock.advance(Duration.ofMinutes(5));
        assertThat(store.rearmStaleClaimed(now(), now(), 10).block(TIMEOUT)).hasSize(1);
        OutboxRow current = claimOne();

        // when the first claim dead-letters it, and a step of the first claim retries it, with reasons
        KitSupport.failure(
                store.settle(stale, Settlement.fail().withReason(LEDGER_TIMEOUT)), StaleClaimException.class);
        KitSupport.failure(
                store.commitStep(WorkflowStep.builder(staged.workflowId(), 0)
                        .settle(stale, Settlement.retryAt(1, now()).withReason(LEDGER_TIMEOUT))
                        .build()),
                StaleClaimException.class);

        // then the row stays claimed under the current claim and records no failure
        OutboxRow stored = read(staged.dispatchKey());
        assertThat(stored.status()).isEqualTo(OutboxStatus.CLAIMED);
        assertThat(stored.claimToken()).isEqualTo(current.claimToken());
        assertThat(stored.failures()).isEmpty();
    }

    @Test
    void O66_concurrent_fenced_settles_with_and_without_reasons_each_record_their_own() {
        // given 24 claimed rows
        WorkflowId w = workflow(1);
        List<OutboxRow> rows = new ArrayList<>();
        for (int i = 0; i < 24; i++) {
            rows.add(row(w, i, now()));
        }
        stageAll(rows);
        List<OutboxRow> claimed = claim(24);
        assertThat(claimed).hasSize(24);

        // when they are settled at once (grouped where the backend groups): a third dead-lettered and a
        // third retried with reasons, a third completed
        List<Supplier<? extends Publisher<?>>> settles = new ArrayList<>();
        for (OutboxRow r : claimed) {
            int i = (int) r.ordinal();
            Settlement s = switch (i % 3) {
                case 0 -> Settlement.fail().withReason(numbered(i));
                case 1 -> Settlement.retryAt(1, now()).withReason(numbered(i));
                default -> Settlement.complete();
            };
            settles.add(() -> store.settle(r, s));
        }
        assertThat(KitSupport.concurrently(settles)).containsOnlyNulls();

        // then each row has exactly its own failure, or none
        for (OutboxRow r : rows) {
            int i = (int) r.ordinal();
            List<AttemptFailure> failures = read(r.dispatchKey()).failures();
            if (i % 3 == 2) {
                assertThat(failures).as("failures of %s", r.dispatchKey()).isEmpty();
            } else {
                assertThat(failures)
                        .as("failures of %s", r.dispatchKey())
                        .containsExactly(AttemptFailure.of(1, now(), numbered(i)));
            }
        }
    }

    @Test
    void O66_X10_a_reason_with_quotes_line_breaks_controls_and_characters_outside_the_BMP_reads_back_exactly() {
        // given a reason whose texts need escaping in every stored form
        FailureReason odd = FailureReason.of(
                        "quote \" backslash \\ tab \t bell \u0007 ünïcødé 😀 ✓ '; DROP TABLE outbox;--")
                .withType("type with \"quotes\" and\nlines")
                .withTrace("line 1\r\nline 2\n\u2028separator\n");
        OutboxRow staged = row(workflow(1), 0, now());
        stage(staged);

        // when a row is dead-lettered with it
        settle(claimOne(), Settlement.fail().withReason(odd));

        // then it reads back equal, character for character
        assertThat(read(staged.dispatchKey()).lastFailure().reason()).isEqualTo(odd);
    }

    @Test
    void O66_every_read_of_a_row_returns_its_failures() {
        // given a row with one failed attempt, claimed again
        OutboxRow staged = row(workflow(1), 0, now());
        stage(staged);
        settle(claimOne(), Settlement.retryAt(1, now()).withReason(LEDGER_TIMEOUT));
        List<AttemptFailure> one = List.of(AttemptFailure.of(1, now(), LEDGER_TIMEOUT));
        OutboxRow claimed = claimOne();

        // when it is listed stale, re-armed and claimed by a stream
        clock.advance(Duration.ofMinutes(5));
        List<OutboxRow> stale = KitSupport.collect(store.listStaleClaimed(now(), 10));
        List<OutboxRow> rearmed = store.rearmStaleClaimed(now(), now(), 10).block(TIMEOUT);

        // then every read carries the failure
        assertThat(claimed.failures()).isEqualTo(one);
        assertThat(stale).extracting(OutboxRow::failures).containsExactly(one);
        assertThat(rearmed).extracting(OutboxRow::failures).containsExactly(one);
        assertThat(read(staged.dispatchKey()).failures()).isEqualTo(one);
        StepVerifier.create(store.claimStream(ClaimStreamOptions.defaults()).take(1))
                .assertNext(r -> assertThat(r.failures()).isEqualTo(one))
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O66_X10_settleKeys_with_a_reason_refuses_bad_keys_and_visibilities_and_writes_nothing() {
        // given a claimed row
        OutboxRow staged = row(workflow(1), 0, now());
        stage(staged);
        claimOne();
        Settlement fail = Settlement.fail().withReason(LEDGER_TIMEOUT);

        // when settles by key with a reason get a null collection, a null key or an unstorable visibility
        assertRejected(() -> store.settleKeys(null, fail), "dispatchKeys");
        assertRejected(() -> store.settleKeys(Collections.singletonList(null), fail), "dispatchKeys[0]");
        assertRejected(
                () -> store.settleKeys(
                        List.of(staged.dispatchKey()),
                        Settlement.retryAt(1, KitSupport.LATEST.plusNanos(1)).withReason(LEDGER_TIMEOUT)),
                "settlement.visibleAfter");

        // then the row is still claimed, without failures
        OutboxRow stored = read(staged.dispatchKey());
        assertThat(stored.status()).isEqualTo(OutboxStatus.CLAIMED);
        assertThat(stored.failures()).isEmpty();
    }
}
