package dev.durablestore.tck;

import static dev.durablestore.tck.OutboxFixtures.keys;
import static dev.durablestore.tck.OutboxFixtures.row;
import static dev.durablestore.tck.OutboxFixtures.signal;
import static dev.durablestore.tck.OutboxFixtures.started;
import static dev.durablestore.tck.OutboxFixtures.workflow;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durablestore.api.BackendException;
import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.Payload;
import dev.durablestore.api.RunId;
import dev.durablestore.api.SequenceConflictException;
import dev.durablestore.api.SerializationException;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.internal.Rows;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

/**
 * Contract of the outbox row model and of staging rows (O1–O11, OQ-10), alone and together with
 * events (E17–E22).
 */
public abstract class OutboxStagingContract extends OutboxContractSupport {

    // ---------------------------------------------------------------- row model (O1–O6)

    @Test
    void O1_a_staged_row_round_trips_every_field() {
        // given a row with a run, a non-default route, a node, a non-zero attempt and a nanosecond visibility
        WorkflowId w = workflow(1);
        Instant visibleAfter = Instant.parse("2026-06-02T23:59:59.123456789Z");
        RunId run = RunId.parse("00000000-0000-4000-8000-0000000000bb");
        OutboxRow staged = Rows.stored(
                OutboxRow.dispatchKey(w, 3),
                w,
                3,
                run,
                "remote",
                "gpu",
                "box-7",
                "send-email",
                Payload.json("{\"to\":\"a@b.c\",\"n\":[1,2,3]}"),
                OutboxStatus.PENDING,
                4,
                visibleAfter,
                null,
                0L,
                null,
                OutboxRow.MIN_PRIORITY,
                List.of());

        // when it is staged and claimed
        stage(staged);
        Instant claimedAt = now();

        // then the claimed row carries every staged value, only status and claimedAt changed (O1, O20, S13)
        StepVerifier.create(store.claim(ClaimRequest.of(10)))
                .assertNext(rows -> assertThat(OutboxFixtures.withoutTokens(rows))
                        .containsExactly(staged.withStatus(OutboxStatus.CLAIMED, claimedAt)))
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O1_C33_C35_namespace_task_queue_and_node_round_trip() {
        // given a row on (remote, gpu, box-7) and one on (remote, gpu) without node
        WorkflowId w = workflow(1);
        OutboxRow pinned = OutboxFixtures.routed(w, 0, now(), "remote", "gpu", "box-7");
        OutboxRow unpinned = OutboxFixtures.routed(w, 1, now(), "remote", "gpu", null);
        stage(pinned, unpinned);

        // when both are claimed
        // then they read back with their namespace, task queue and node; an absent node stays absent
        StepVerifier.create(store.claim(ClaimRequest.of(10)))
                .assertNext(rows -> {
                    assertThat(rows).extracting(OutboxRow::namespace).containsExactly("remote", "remote");
                    assertThat(rows).extracting(OutboxRow::taskQueue).containsExactly("gpu", "gpu");
                    assertThat(rows).extracting(OutboxRow::node).containsExactly("box-7", null);
                })
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O2_C100_the_canonical_dispatch_key_is_workflow_id_colon_ordinal() {
        // given a workflow id and ordinal 7
        WorkflowId w = workflow(42);

        // when the key is derived
        // then it is the canonical id text, a colon and the decimal ordinal
        assertThat(OutboxRow.dispatchKey(w, 7)).isEqualTo("00000000-0000-4000-8000-000000000042:7");
        assertThat(OutboxRow.pending(w, 7, "a", Payload.json("1"), now()).dispatchKey())
                .isEqualTo(w + ":7");
    }

    @Test
    void O2_the_store_keeps_a_non_canonical_key_as_given() {
        // given a row whose key is not derived from its workflow and ordinal
        WorkflowId w = workflow(1);
        OutboxRow custom = Rows.stored(
                "custom-key",
                w,
                9,
                null,
                "default",
                "default",
                null,
                "a",
                Payload.json("{}"),
                OutboxStatus.PENDING,
                0,
                now(),
                null,
                0L,
                null,
                OutboxRow.MIN_PRIORITY,
                List.of());

        // when it is staged
        stage(custom);

        // then it is stored and claimed under exactly that key
        assertState("custom-key", OutboxStatus.PENDING, 0, now());
        assertThat(keys(claim(10))).containsExactly("custom-key");
    }

    @Test
    void O3_C98_C99_status_tokens_round_trip_and_unknown_tokens_fail() {
        // given each status
        for (OutboxStatus status : OutboxStatus.values()) {
            // when written as its token and parsed back
            // then the same status results
            assertThat(OutboxStatus.fromToken(status.token())).isEqualTo(status);
        }
        assertThat(OutboxStatus.values())
                .extracting(OutboxStatus::token)
                .containsExactly("pending", "claimed", "done", "failed", "cancelled");
        // and an unknown token fails with a serialization error
        assertThatThrownBy(() -> OutboxStatus.fromToken("nope")).isInstanceOf(SerializationException.class);
    }

    @Test
    void O4_pending_and_claimed_are_live_the_others_terminal() {
        // given the five statuses
        // then exactly pending and claimed are live
        assertThat(OutboxStatus.PENDING.isLive()).isTrue();
        assertThat(OutboxStatus.CLAIMED.isLive()).isTrue();
        assertThat(OutboxStatus.DONE.isLive()).isFalse();
        assertThat(OutboxStatus.FAILED.isLive()).isFalse();
        assertThat(OutboxStatus.CANCELLED.isLive()).isFalse();
    }

    @Test
    void O5_C100_the_fresh_row_factory_yields_a_default_pending_row() {
        // given a workflow, ordinal 7 and an instant
        WorkflowId w = workflow(1);
        Instant at = now();
        Payload input = Payload.json("{\"x\":1}");

        // when a fresh row is built
        OutboxRow fresh = OutboxRow.pending(w, 7, "charge", input, at);

        // then it is pending, attempt 0, visible at the instant, unclaimed, runless, unrouted, unpinned
        assertThat(fresh)
                .isEqualTo(Rows.stored(
                        w + ":7",
                        w,
                        7,
                        null,
                        "default",
                        "default",
                        null,
                        "charge",
                        input,
                        OutboxStatus.PENDING,
                        0,
                        at,
                        null,
                        0L,
                        null,
                        OutboxRow.MIN_PRIORITY,
                        List.of()));
    }

    @Test
    void O6_OQ10_a_pending_row_with_a_claim_instant_is_rejected_and_nothing_is_stored() {
        // given a valid row and a pending row carrying claimedAt, in one batch
        WorkflowId w = workflow(1);
        OutboxRow good = row(w, 0, now());
        OutboxRow bad = row(w, 1, now()).withStatus(OutboxStatus.PENDING, now());

        // when the batch is staged
        // then it fails with an invalid argument naming the rows and stores neither row (O11)
        assertRejected(() -> store.appendOutboxBatch(List.of(good, bad)), "row");
        assertAbsent(good.dispatchKey());
        assertAbsent(bad.dispatchKey());
    }

    @Test
    void O6_OQ10_a_claimed_row_without_a_claim_instant_is_rejected_and_nothing_is_stored() {
        // given a claimed row without claimedAt after a valid row
        WorkflowId w = workflow(1);
        OutboxRow good = row(w, 0, now());
        OutboxRow bad = row(w, 1, now()).withStatus(OutboxStatus.CLAIMED, null);

        // when the batch is staged
        // then it fails with an invalid argument and stores nothing
        assertRejected(() -> store.appendOutboxBatch(List.of(good, bad)), "row");
        assertAbsent(good.dispatchKey());
        assertAbsent(bad.dispatchKey());
    }

    @Test
    void O6_OQ10_a_terminal_row_with_a_claim_instant_is_rejected_and_nothing_is_stored() {
        // given done, failed and cancelled rows each carrying claimedAt
        WorkflowId w = workflow(1);
        for (OutboxStatus terminal : List.of(OutboxStatus.DONE, OutboxStatus.FAILED, OutboxStatus.CANCELLED)) {
            OutboxRow bad = row(w, terminal.ordinal(), now()).withStatus(terminal, now());

            // when it is staged
            // then it fails with an invalid argument and nothing is stored
            assertRejected(() -> store.appendOutboxBatch(List.of(bad)), "row");
            assertAbsent(bad.dispatchKey());
        }
    }

    // ---------------------------------------------------------------- staging (O8–O11)

    @Test
    void O8_an_empty_batch_is_a_no_op() {
        // given one stored row
        OutboxRow stored = row(workflow(1), 0, now());
        stage(stored);

        // when an empty batch is staged
        StepVerifier.create(store.appendOutboxBatch(List.of())).expectComplete().verify(TIMEOUT);

        // then nothing changed
        assertState(stored.dispatchKey(), OutboxStatus.PENDING, 0, now());
        assertThat(keys(claim(10))).containsExactly(stored.dispatchKey());
    }

    @Test
    void O9_C32_a_duplicate_key_is_skipped_and_the_stored_row_keeps_its_values() {
        // given a row with activity "charge" staged
        WorkflowId w = workflow(1);
        OutboxRow first = row(w, 0, now().minusSeconds(10));
        stage(first);

        // when a row with the same key but other values is staged
        OutboxRow second = Rows.stored(
                first.dispatchKey(),
                w,
                0,
                OutboxFixtures.RUN,
                "other",
                "queue",
                "n1",
                "different-activity",
                Payload.json("{\"other\":true}"),
                OutboxStatus.PENDING,
                5,
                now(),
                null,
                0L,
                null,
                OutboxRow.MIN_PRIORITY,
                List.of());
        StepVerifier.create(store.appendOutboxBatch(List.of(second)))
                .expectComplete()
                .verify(TIMEOUT);

        // then the stored row is unchanged and a claim returns it once, with activity "charge"
        assertState(first.dispatchKey(), OutboxStatus.PENDING, 0, now().minusSeconds(10));
        StepVerifier.create(store.claim(ClaimRequest.of(10)))
                .assertNext(rows -> assertThat(OutboxFixtures.withoutTokens(rows))
                        .containsExactly(first.withStatus(OutboxStatus.CLAIMED, now())))
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O9_a_key_repeated_within_one_batch_keeps_the_first_row() {
        // given a batch holding two rows with the same key, then a third row
        WorkflowId w = workflow(1);
        OutboxRow first = row(w, 0, now());
        OutboxRow repeat = Rows.stored(
                first.dispatchKey(),
                w,
                0,
                null,
                "default",
                "default",
                null,
                "different-activity",
                Payload.json("{}"),
                OutboxStatus.PENDING,
                3,
                now().minusSeconds(60),
                null,
                0L,
                null,
                OutboxRow.MIN_PRIORITY,
                List.of());
        OutboxRow third = row(w, 1, now());

        // when the batch is staged
        StepVerifier.create(store.appendOutboxBatch(List.of(first, repeat, third)))
                .expectComplete()
                .verify(TIMEOUT);

        // then the first row and the third are stored; the repeat is skipped without error
        assertState(first.dispatchKey(), OutboxStatus.PENDING, 0, now());
        StepVerifier.create(store.claim(ClaimRequest.of(10)))
                .assertNext(rows -> {
                    assertThat(keys(rows)).containsExactly(first.dispatchKey(), third.dispatchKey());
                    assertThat(rows.get(0).activityType()).isEqualTo(OutboxFixtures.ACTIVITY);
                })
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O9_a_batch_with_one_stored_key_stages_its_other_rows_and_the_stored_row_keeps_its_values() {
        // given a row staged ten seconds in the past
        WorkflowId w = workflow(1);
        OutboxRow stored = row(w, 1, now().minusSeconds(10));
        stage(stored);

        // when a batch is staged whose middle row has that key and other values
        OutboxRow before = row(w, 0, now());
        OutboxRow conflicting = Rows.stored(
                stored.dispatchKey(),
                w,
                1,
                OutboxFixtures.RUN,
                "default",
                "default",
                null,
                "different-activity",
                Payload.json("{\"other\":true}"),
                OutboxStatus.PENDING,
                6,
                now(),
                null,
                0L,
                null,
                OutboxRow.MIN_PRIORITY,
                List.of());
        OutboxRow after = row(w, 2, now());
        StepVerifier.create(store.appendOutboxBatch(List.of(before, conflicting, after)))
                .expectComplete()
                .verify(TIMEOUT);

        // then the batch's other rows are stored, and the stored row is unchanged
        assertState(before.dispatchKey(), OutboxStatus.PENDING, 0, now());
        assertState(after.dispatchKey(), OutboxStatus.PENDING, 0, now());
        assertState(stored.dispatchKey(), OutboxStatus.PENDING, 0, now().minusSeconds(10));
        StepVerifier.create(store.claim(ClaimRequest.of(10)))
                .assertNext(rows -> assertThat(OutboxFixtures.withoutTokens(rows))
                        .containsExactly(
                                stored.withStatus(OutboxStatus.CLAIMED, now()),
                                before.withStatus(OutboxStatus.CLAIMED, now()),
                                after.withStatus(OutboxStatus.CLAIMED, now())))
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O10_rows_keep_their_supplied_status_attempt_visibility_claim_and_run() {
        // given rows staged as done, failed, cancelled, claimed (with claimedAt) and pending with a run and attempt
        WorkflowId w = workflow(1);
        Instant past = Instant.ofEpochSecond(10);
        OutboxRow done = OutboxFixtures.inState(row(w, 0, past), OutboxStatus.DONE, null, 2);
        OutboxRow failed = OutboxFixtures.inState(row(w, 1, past), OutboxStatus.FAILED, null, 3);
        OutboxRow cancelled = OutboxFixtures.inState(row(w, 2, past), OutboxStatus.CANCELLED, null, 4);
        Instant claimedAt = Instant.ofEpochSecond(20, 5);
        OutboxRow claimed = OutboxFixtures.inState(row(w, 3, past), OutboxStatus.CLAIMED, claimedAt, 5);
        OutboxRow pending = OutboxFixtures.inState(row(w, 4, past), OutboxStatus.PENDING, null, 6)
                .withRunId(OutboxFixtures.RUN);

        // when they are staged
        stage(done, failed, cancelled, claimed, pending);

        // then each keeps exactly the supplied values (the store does not force pending)
        assertState(done.dispatchKey(), OutboxStatus.DONE, 2, past);
        assertState(failed.dispatchKey(), OutboxStatus.FAILED, 3, past);
        assertState(cancelled.dispatchKey(), OutboxStatus.CANCELLED, 4, past);
        assertState(claimed.dispatchKey(), OutboxStatus.CLAIMED, 5, past);
        assertState(pending.dispatchKey(), OutboxStatus.PENDING, 6, past);
        StepVerifier.create(store.listStaleClaimed(now(), 10).map(OutboxFixtures::withoutToken))
                .expectNext(claimed)
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.claim(ClaimRequest.of(10)))
                .assertNext(rows -> assertThat(OutboxFixtures.withoutTokens(rows))
                        .containsExactly(pending.withStatus(OutboxStatus.CLAIMED, now())))
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O11_a_batch_with_an_unstorable_row_stores_none_of_its_rows() {
        // given a batch whose last row has a visibility outside the stored range (S15)
        WorkflowId w = workflow(1);
        OutboxRow good = row(w, 0, now());
        OutboxRow unstorable = row(w, 1, Instant.MAX);

        // when the batch is staged
        // then it fails as an invalid argument and no row of the batch is stored
        assertRejected(() -> store.appendOutboxBatch(List.of(good, unstorable)), "row");
        assertAbsent(good.dispatchKey());
        assertAbsent(unstorable.dispatchKey());
        assertThat(claim(10)).isEmpty();
    }

    // ---------------------------------------------------------------- staging with events (E17–E22)

    @Test
    void E17_C42_events_and_rows_commit_together() {
        // given an empty workflow
        WorkflowId w = workflow(1);
        Event start = started(w, 1, now());
        OutboxRow staged = row(w, 0, now());

        // when a start and one row are appended together at expected 0
        StepVerifier.create(store.appendWithOutbox(w, List.of(start), 0, List.of(staged)))
                .expectComplete()
                .verify(TIMEOUT);

        // then one event is stored and a claim returns the row
        StepVerifier.create(store.readHistory(w))
                .expectNext(start)
                .expectComplete()
                .verify(TIMEOUT);
        assertThat(keys(claim(10))).containsExactly(staged.dispatchKey());
    }

    @Test
    void E17_E3_a_failed_guard_stores_neither_events_nor_rows() {
        // given a workflow with one event
        WorkflowId w = workflow(1);
        store.append(w, List.of(started(w, 1, now())), 0).block(TIMEOUT);
        OutboxRow staged = row(w, 0, now());

        // when events and a row are appended under a stale expected sequence
        StepVerifier.create(store.appendWithOutbox(w, List.of(signal(w, 2, now())), 0, List.of(staged)))
                .expectErrorSatisfies(e -> assertThat(e).isEqualTo(new SequenceConflictException(0, 1)))
                .verify(TIMEOUT);

        // then the history still holds only the start and the row was not stored
        StepVerifier.create(store.readHead(w)).expectNext(1L).expectComplete().verify(TIMEOUT);
        assertAbsent(staged.dispatchKey());
        assertThat(claim(10)).isEmpty();
    }

    @Test
    void E17_E3_a_guard_ahead_of_the_head_stores_neither_events_nor_rows() {
        // given an empty workflow
        WorkflowId w = workflow(1);
        OutboxRow staged = row(w, 0, now());

        // when a start and a row are appended at expected 2
        StepVerifier.create(store.appendWithOutbox(w, List.of(started(w, 3, now())), 2, List.of(staged)))
                .expectErrorSatisfies(e -> assertThat(e).isEqualTo(new SequenceConflictException(2, 0)))
                .verify(TIMEOUT);

        // then nothing is stored
        StepVerifier.create(store.readHead(w)).expectNext(0L).expectComplete().verify(TIMEOUT);
        assertAbsent(staged.dispatchKey());
    }

    @Test
    void E17_E7_a_non_contiguous_batch_stores_neither_events_nor_rows() {
        // given an empty workflow
        WorkflowId w = workflow(1);
        OutboxRow staged = row(w, 0, now());

        // when events with seqs 1 and 3 are appended with a row
        StepVerifier.create(store.appendWithOutbox(
                        w, List.of(started(w, 1, now()), signal(w, 3, now())), 0, List.of(staged)))
                .expectErrorSatisfies(e -> assertThat(e)
                        .isInstanceOf(BackendException.class)
                        .hasMessageContaining("event sequence must be contiguous"))
                .verify(TIMEOUT);

        // then neither the events nor the row are stored
        StepVerifier.create(store.readHistory(w)).expectComplete().verify(TIMEOUT);
        assertAbsent(staged.dispatchKey());
    }

    @Test
    void E22_OQ10_an_invalid_row_rolls_back_the_events_too() {
        // given an empty workflow and a row that breaks O6 after a valid one
        WorkflowId w = workflow(1);
        OutboxRow good = row(w, 0, now());
        OutboxRow bad = row(w, 1, now()).withStatus(OutboxStatus.CLAIMED, null);

        // when a start and both rows are appended together
        // then it fails as an invalid argument naming the rows
        assertRejected(() -> store.appendWithOutbox(w, List.of(started(w, 1, now())), 0, List.of(good, bad)), "row");

        // and neither the event nor any row is stored
        StepVerifier.create(store.readHead(w)).expectNext(0L).expectComplete().verify(TIMEOUT);
        StepVerifier.create(store.listWorkflowIds()).expectComplete().verify(TIMEOUT);
        assertAbsent(good.dispatchKey());
        assertAbsent(bad.dispatchKey());
    }

    @Test
    void E22_an_unstorable_row_rolls_back_the_events_too() {
        // given an empty workflow and a row with an out-of-range visibility (S15)
        WorkflowId w = workflow(1);
        OutboxRow bad = row(w, 0, Instant.MAX);

        // when a start and the row are appended together
        assertRejected(() -> store.appendWithOutbox(w, List.of(started(w, 1, now())), 0, List.of(bad)), "row");

        // then nothing is stored
        StepVerifier.create(store.readHead(w)).expectNext(0L).expectComplete().verify(TIMEOUT);
        assertAbsent(bad.dispatchKey());
    }

    @Test
    void E18_C44_an_empty_row_list_behaves_like_a_plain_append() {
        // given an empty workflow
        WorkflowId w = workflow(1);
        Event start = started(w, 1, now());

        // when a start is appended with no rows
        StepVerifier.create(store.appendWithOutbox(w, List.of(start), 0, List.of()))
                .expectComplete()
                .verify(TIMEOUT);

        // then one event is stored and no row can be claimed
        StepVerifier.create(store.readHistory(w))
                .expectNext(start)
                .expectComplete()
                .verify(TIMEOUT);
        assertThat(claim(10)).isEmpty();
        StepVerifier.create(store.listUnsettledWorkflowIds()).expectComplete().verify(TIMEOUT);
    }

    @Test
    void E18_an_empty_row_list_under_a_stale_guard_fails_like_append() {
        // given a workflow with one event
        WorkflowId w = workflow(1);
        store.append(w, List.of(started(w, 1, now())), 0).block(TIMEOUT);

        // when an event is appended with no rows at a stale expected sequence
        // then it fails with the same conflict append reports
        StepVerifier.create(store.appendWithOutbox(w, List.of(signal(w, 1, now())), 0, List.of()))
                .expectErrorSatisfies(e -> assertThat(e).isEqualTo(new SequenceConflictException(0, 1)))
                .verify(TIMEOUT);
    }

    @Test
    void E19_rows_without_events_are_stored_under_a_matching_guard_and_the_head_is_unchanged() {
        // given a workflow with one event
        WorkflowId w = workflow(1);
        WorkflowId fresh = workflow(2);
        store.append(w, List.of(started(w, 1, now())), 0).block(TIMEOUT);
        OutboxRow forW = row(w, 0, now());
        OutboxRow forFresh = row(fresh, 0, now());

        // when rows are appended with no events under matching guards (1 for w, 0 for a workflow without events)
        StepVerifier.create(store.appendWithOutbox(w, List.of(), 1, List.of(forW)))
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.appendWithOutbox(fresh, List.of(), 0, List.of(forFresh)))
                .expectComplete()
                .verify(TIMEOUT);

        // then the rows are stored, the heads are unchanged and the fresh workflow has no history
        assertStatus(forW.dispatchKey(), OutboxStatus.PENDING);
        assertStatus(forFresh.dispatchKey(), OutboxStatus.PENDING);
        StepVerifier.create(store.readHead(w)).expectNext(1L).expectComplete().verify(TIMEOUT);
        StepVerifier.create(store.readHead(fresh))
                .expectNext(0L)
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.listWorkflowIds())
                .expectNext(w)
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void E19_rows_without_events_still_check_the_guard() {
        // given a workflow with one event
        WorkflowId w = workflow(1);
        store.append(w, List.of(started(w, 1, now())), 0).block(TIMEOUT);
        OutboxRow staged = row(w, 0, now());

        // when a row is appended with no events under a stale guard
        StepVerifier.create(store.appendWithOutbox(w, List.of(), 0, List.of(staged)))
                .expectErrorSatisfies(e -> assertThat(e).isEqualTo(new SequenceConflictException(0, 1)))
                .verify(TIMEOUT);

        // then the row is not stored
        assertAbsent(staged.dispatchKey());
    }

    @Test
    void E20_both_lists_empty_under_a_matching_guard_change_nothing() {
        // given an unknown workflow
        WorkflowId w = workflow(1);

        // when nothing is appended at expected 0
        StepVerifier.create(store.appendWithOutbox(w, List.of(), 0, List.of()))
                .expectComplete()
                .verify(TIMEOUT);

        // then the workflow has no events, is not listed, and no row exists
        StepVerifier.create(store.readHead(w)).expectNext(0L).expectComplete().verify(TIMEOUT);
        StepVerifier.create(store.listWorkflowIds()).expectComplete().verify(TIMEOUT);
        assertThat(claim(10)).isEmpty();
    }

    @Test
    void E21_a_row_whose_key_is_stored_is_skipped_and_the_append_succeeds() {
        // given a stored row with activity "charge", already claimed
        WorkflowId w = workflow(1);
        OutboxRow stored = row(w, 0, now().minusSeconds(5));
        stage(stored);
        claim(10);
        clock.advance(Duration.ofSeconds(1));

        // when a start is appended with a row of the same key (other activity, pending) and a new row, where the
        // new row also appears twice in the list
        OutboxRow sameKey = Rows.stored(
                stored.dispatchKey(),
                w,
                0,
                null,
                "default",
                "default",
                null,
                "different",
                Payload.json("{}"),
                OutboxStatus.PENDING,
                9,
                now(),
                null,
                0L,
                null,
                OutboxRow.MIN_PRIORITY,
                List.of());
        OutboxRow added = row(w, 1, now());
        OutboxRow addedAgain = added.withAttempt(7);
        Event start = started(w, 1, now());
        StepVerifier.create(store.appendWithOutbox(w, List.of(start), 0, List.of(sameKey, added, addedAgain)))
                .expectComplete()
                .verify(TIMEOUT);

        // then the event is stored, the existing row is untouched (still claimed, attempt 0) and the new row is
        // stored once with the first occurrence's values
        StepVerifier.create(store.readHistory(w))
                .expectNext(start)
                .expectComplete()
                .verify(TIMEOUT);
        assertState(stored.dispatchKey(), OutboxStatus.CLAIMED, 0, now().minusSeconds(6));
        StepVerifier.create(store.claim(ClaimRequest.of(10)))
                .assertNext(rows -> assertThat(OutboxFixtures.withoutTokens(rows))
                        .containsExactly(added.withStatus(OutboxStatus.CLAIMED, now())))
                .expectComplete()
                .verify(TIMEOUT);
    }
}
