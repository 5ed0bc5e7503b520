package dev.durablestore.tck;

import static dev.durablestore.tck.OutboxFixtures.keys;
import static dev.durablestore.tck.OutboxFixtures.row;
import static dev.durablestore.tck.OutboxFixtures.workflow;
import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxRowState;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.WorkflowId;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * Contract of the Java additions of issue 19 to settling (O53–O58): {@code settleKeys} over a
 * collection of keys with each {@code Settlement} (complete, fail, cancel, retry), the single-key
 * transition (O29–O34) applied to every key in one transaction, and the retry after a delay, whose
 * visibility is the store clock at the write plus the delay.
 */
public abstract class BulkSettleContract extends OutboxContractSupport {

    private static final Duration HOUR = Duration.ofHours(1);
    /** How long a woken stream may take to deliver. */
    private static final Duration PROMPTLY = Duration.ofSeconds(5);
    /** How long a test watches a stream that should stay quiet. */
    private static final Duration QUIET = Duration.ofMillis(300);
    /** A key that no row can hold (X10): it holds a NUL. */
    private static final String UNSTORABLE = "bad\u0000key";

    private final List<ClaimStreamProbe> probes = new ArrayList<>();

    private WorkflowId w;
    /** Pending, attempt 1, visible at {@link #visible}. */
    private OutboxRow pending;
    /** Claimed, attempt 1, visible at {@link #visible}. */
    private OutboxRow claimed;
    /** Done, failed and cancelled, attempt 2, visible at {@link #visible}. */
    private OutboxRow done;

    private OutboxRow failed;
    private OutboxRow cancelled;
    /** Pending, never named by a settle. */
    private OutboxRow bystander;

    private String unknown;
    private Instant visible;

    @BeforeEach
    void stageOneRowPerState() {
        // every test starts from a claimed, a pending, a done, a failed and a cancelled row of one workflow,
        // a pending row nobody settles, and an unknown key, one minute after the claim
        w = workflow(1);
        visible = now().minusSeconds(10);
        claimed = row(w, 0, visible).withAttempt(1);
        done = row(w, 2, visible).withAttempt(2);
        failed = row(w, 3, visible).withAttempt(2);
        cancelled = row(w, 4, visible).withAttempt(2);
        stage(claimed, done, failed, cancelled);
        claim(10);
        store.settleKeys(List.of(done.dispatchKey()), Settlement.complete()).block(TIMEOUT);
        store.settleKeys(List.of(failed.dispatchKey()), Settlement.fail()).block(TIMEOUT);
        store.settleKeys(List.of(cancelled.dispatchKey()), Settlement.cancel()).block(TIMEOUT);
        pending = row(w, 1, visible).withAttempt(1);
        bystander = row(workflow(2), 0, visible);
        stage(pending, bystander);
        unknown = OutboxRow.dispatchKey(w, 99);
        clock.advance(Duration.ofMinutes(1));
    }

    @AfterEach
    void cancelProbes() {
        probes.forEach(ClaimStreamProbe::cancel);
    }

    // ---------------------------------------------------------------- bulk settles (O53–O56)

    @Test
    void O53_O34_bulk_complete_settles_every_live_key_once_and_leaves_terminal_and_unknown_keys_alone() {
        // when every key but the bystander's, an unknown and an unstorable key are completed, the live ones twice
        StepVerifier.create(store.settleKeys(allNamed(), Settlement.complete()))
                .expectComplete()
                .verify(TIMEOUT);

        // then the pending and the claimed row are done with attempt and visibility unchanged, and nothing else moved
        assertState(pending.dispatchKey(), OutboxStatus.DONE, 1, visible);
        assertState(claimed.dispatchKey(), OutboxStatus.DONE, 1, visible);
        assertTerminalAndOthersUnchanged();
        assertNoClaimLeft();
    }

    @Test
    void O54_O34_bulk_fail_dead_letters_every_live_key_once_and_leaves_terminal_and_unknown_keys_alone() {
        // when every key but the bystander's, an unknown and an unstorable key are failed, the live ones twice
        StepVerifier.create(store.settleKeys(allNamed(), Settlement.fail()))
                .expectComplete()
                .verify(TIMEOUT);

        // then the pending and the claimed row are failed with attempt and visibility unchanged, and nothing else moved
        assertState(pending.dispatchKey(), OutboxStatus.FAILED, 1, visible);
        assertState(claimed.dispatchKey(), OutboxStatus.FAILED, 1, visible);
        assertTerminalAndOthersUnchanged();
        assertNoClaimLeft();

        // and a dead letter of the bulk fail can be redriven like any other
        StepVerifier.create(store.redrive(claimed.dispatchKey(), false))
                .expectNext(true)
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O55_O32_settleKeys_cancel_cancels_every_live_key_once_and_leaves_terminal_and_unknown_keys_alone() {
        // when every key but the bystander's, an unknown and an unstorable key are cancelled, the live ones twice
        StepVerifier.create(store.settleKeys(allNamed(), Settlement.cancel()))
                .expectComplete()
                .verify(TIMEOUT);

        // then the pending and the claimed row are cancelled, and nothing else moved
        assertState(pending.dispatchKey(), OutboxStatus.CANCELLED, 1, visible);
        assertState(claimed.dispatchKey(), OutboxStatus.CANCELLED, 1, visible);
        assertTerminalAndOthersUnchanged();
        assertNoClaimLeft();

        // and cancelling them again is harmless
        StepVerifier.create(store.settleKeys(allNamed(), Settlement.cancel()))
                .expectComplete()
                .verify(TIMEOUT);
        assertStatus(claimed.dispatchKey(), OutboxStatus.CANCELLED);
    }

    @Test
    void O56_O34_bulk_retry_returns_every_live_key_to_pending_and_never_resurrects_a_terminal_row() {
        // when every key but the bystander's, an unknown and an unstorable key are retried with attempt 5, in an hour
        Instant later = now().plus(HOUR);
        StepVerifier.create(store.settleKeys(allNamed(), Settlement.retryAt(5, later)))
                .expectComplete()
                .verify(TIMEOUT);

        // then the pending and the claimed row are pending with attempt 5, fenced for an hour; nothing else moved
        assertState(pending.dispatchKey(), OutboxStatus.PENDING, 5, later);
        assertState(claimed.dispatchKey(), OutboxStatus.PENDING, 5, later);
        assertTerminalAndOthersUnchanged();
        assertNoClaimLeft();
        assertThat(keys(claim(10))).containsExactly(bystander.dispatchKey());

        // when the clock reaches their visibility
        clock.advance(HOUR);
        // then a claim takes both, in key order, with their new attempt
        List<OutboxRow> taken = claim(10);
        assertThat(keys(taken)).containsExactly(claimed.dispatchKey(), pending.dispatchKey());
        assertThat(taken).extracting(OutboxRow::attempt).containsOnly(5);
    }

    @Test
    void O56_bulk_retry_wakes_an_idle_claim_stream() throws Exception {
        // given an idle stream with demand and a one-hour poll interval, the claimed row its only candidate
        store.settleKeys(List.of(pending.dispatchKey(), bystander.dispatchKey()), Settlement.complete())
                .block(TIMEOUT);
        ClaimStreamProbe probe = ClaimStreamProbe.subscribe(
                store.claimStream(ClaimStreamOptions.defaults().withPollInterval(HOUR)));
        probes.add(probe);
        probe.request(1);
        probe.expectNothingFor(QUIET);

        // when the claimed row is retried visible now through the bulk retry
        StepVerifier.create(store.settleKeys(List.of(claimed.dispatchKey()), Settlement.retryAt(2, now())))
                .expectComplete()
                .verify(TIMEOUT);

        // then it arrives within seconds, long before the poll
        OutboxRow arrived = probe.next(PROMPTLY);
        assertThat(arrived.dispatchKey()).isEqualTo(claimed.dispatchKey());
        assertThat(arrived.attempt()).isEqualTo(2);
    }

    // ---------------------------------------------------------------- bulk arguments (O57)

    @Test
    void O57_a_key_repeated_in_any_order_is_settled_once_as_if_named_once() {
        // given two more live rows
        OutboxRow a = row(w, 10, visible);
        OutboxRow b = row(w, 11, visible);
        stage(a, b);

        // when a is completed and b retried with each key repeated, out of order
        StepVerifier.create(store.settleKeys(
                        List.of(a.dispatchKey(), pending.dispatchKey(), a.dispatchKey(), a.dispatchKey()),
                        Settlement.complete()))
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.settleKeys(List.of(b.dispatchKey(), b.dispatchKey()), Settlement.retryAt(3, now())))
                .expectComplete()
                .verify(TIMEOUT);

        // then each is settled exactly as by one single-key call
        assertState(a.dispatchKey(), OutboxStatus.DONE, 0, visible);
        assertState(pending.dispatchKey(), OutboxStatus.DONE, 1, visible);
        assertState(b.dispatchKey(), OutboxStatus.PENDING, 3, now());
    }

    @Test
    void O57_a_collection_of_2500_keys_is_settled_whole() {
        // given 2,500 more pending rows of one workflow
        WorkflowId many = workflow(3);
        List<OutboxRow> rows = new ArrayList<>();
        for (int i = 0; i < 2_500; i++) {
            rows.add(row(many, i, visible));
        }
        stageAll(rows);

        // when the first 2,000 are completed and the last 500 retried, each in one call
        StepVerifier.create(store.settleKeys(keys(rows.subList(0, 2_000)), Settlement.complete()))
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.settleKeys(keys(rows.subList(2_000, 2_500)), Settlement.retryAt(4, now().plus(HOUR))))
                .expectComplete()
                .verify(TIMEOUT);

        // then every one of them is settled and only the fixture's live rows are in flight
        assertState(rows.get(0).dispatchKey(), OutboxStatus.DONE, 0, visible);
        assertState(rows.get(1_999).dispatchKey(), OutboxStatus.DONE, 0, visible);
        assertState(rows.get(2_000).dispatchKey(), OutboxStatus.PENDING, 4, now().plus(HOUR));
        assertState(rows.get(2_499).dispatchKey(), OutboxStatus.PENDING, 4, now().plus(HOUR));
        assertThat(store.countInflight("default").block(TIMEOUT)).isEqualTo(3L + 500L);
        assertThat(keys(claim(3_000))).containsExactly(pending.dispatchKey(), bystander.dispatchKey());
    }

    @Test
    void O57_an_empty_collection_completes_and_changes_nothing() {
        // given the state before
        Map<String, Optional<OutboxRowState>> before = snapshot(everyKey());

        // when each bulk settle gets an empty collection, or only keys no row can hold
        for (Collection<String> none : List.<Collection<String>>of(List.of(), List.of(UNSTORABLE))) {
            StepVerifier.create(store.settleKeys(none, Settlement.complete()))
                    .expectComplete()
                    .verify(TIMEOUT);
            StepVerifier.create(store.settleKeys(none, Settlement.fail()))
                    .expectComplete()
                    .verify(TIMEOUT);
            StepVerifier.create(store.settleKeys(none, Settlement.cancel()))
                    .expectComplete()
                    .verify(TIMEOUT);
            StepVerifier.create(store.settleKeys(none, Settlement.retryAt(1, now())))
                    .expectComplete()
                    .verify(TIMEOUT);
        }

        // then each completes and nothing changed
        assertThat(snapshot(everyKey())).isEqualTo(before);
        assertThat(store.countClaimed("default").block(TIMEOUT)).isEqualTo(1L);
    }

    @Test
    void O57_X10_bulk_settles_reject_null_collections_null_and_empty_elements_and_write_nothing() {
        // given the state before
        Map<String, Optional<OutboxRowState>> before = snapshot(everyKey());
        List<Function<Collection<String>, Mono<Void>>> settles = List.of(
                keys -> store.settleKeys(keys, Settlement.complete()),
                keys -> store.settleKeys(keys, Settlement.fail()),
                keys -> store.settleKeys(keys, Settlement.cancel()),
                keys -> store.settleKeys(keys, Settlement.retryAt(1, now())),
                keys -> store.settleKeys(keys, Settlement.retryAfter(1, Duration.ZERO)));

        // when each bulk settle gets null, or a live key followed by null or an empty key
        // then each fails naming the collection or the element, before writing anything
        for (Function<Collection<String>, Mono<Void>> settle : settles) {
            assertRejected(() -> settle.apply(null), "dispatchKeys");
            assertRejected(() -> settle.apply(Arrays.asList(pending.dispatchKey(), null)), "dispatchKeys[1]");
            assertRejected(
                    () -> settle.apply(List.of(pending.dispatchKey(), claimed.dispatchKey(), "")), "dispatchKeys[2]");
        }
        assertThat(snapshot(everyKey())).isEqualTo(before);
    }

    @Test
    void O57_X10_bulk_retry_rejects_a_negative_attempt_and_a_missing_or_unstorable_visibility() {
        // given the state before
        Map<String, Optional<OutboxRowState>> before = snapshot(everyKey());
        List<String> live = List.of(pending.dispatchKey(), claimed.dispatchKey());

        // when a retry is built with a negative attempt or a null visibility
        // then building it throws naming the argument
        buildRefused(() -> Settlement.retryAt(-1, now()), "nextAttempt");
        buildRefused(() -> Settlement.retryAt(1, null), "visibleAfter");

        // when the bulk retry gets a visibility out of the storable range, or no settlement
        // then each fails naming the argument, and nothing changed, also for an empty collection
        assertRejected(() -> store.settleKeys(live, Settlement.retryAt(1, Instant.MAX)), "settlement.visibleAfter");
        assertRejected(() -> store.settleKeys(live, Settlement.retryAt(1, Instant.MIN)), "settlement.visibleAfter");
        assertRejected(
                () -> store.settleKeys(List.of(), Settlement.retryAt(1, Instant.MAX)), "settlement.visibleAfter");
        assertRejected(() -> store.settleKeys(live, null), "settlement");
        assertThat(snapshot(everyKey())).isEqualTo(before);
    }

    // ---------------------------------------------------------------- Settlement.retryAfter (O58)

    @Test
    void O58_retryAfter_settlement_makes_a_live_row_visible_the_delay_after_the_store_clock() {
        // when the claimed row is retried with attempt 2 after 90 seconds
        Instant at = now();
        StepVerifier.create(store.settleKeys(
                        List.of(claimed.dispatchKey()), Settlement.retryAfter(2, Duration.ofSeconds(90))))
                .expectComplete()
                .verify(TIMEOUT);

        // then it is pending, attempt 2, visible 90 s after the store clock at the write, and no longer claimed
        assertState(claimed.dispatchKey(), OutboxStatus.PENDING, 2, at.plusSeconds(90));
        assertThat(store.countClaimed("default").block(TIMEOUT)).isZero();

        // and it is not claimable before then, and claimable from then on
        assertThat(keys(claim(10))).containsExactly(pending.dispatchKey(), bystander.dispatchKey());
        clock.advance(Duration.ofSeconds(89));
        assertThat(claim(10)).isEmpty();
        clock.advance(Duration.ofSeconds(1));
        assertThat(keys(claim(10))).containsExactly(claimed.dispatchKey());
    }

    @Test
    void O58_retryAfter_settlement_reads_the_clock_when_it_runs_not_when_it_is_called() {
        // given a retry after 5 minutes assembled now but not yet subscribed
        Mono<Void> retry =
                store.settleKeys(List.of(pending.dispatchKey()), Settlement.retryAfter(3, Duration.ofMinutes(5)));

        // when the clock moves on an hour before it is subscribed
        clock.advance(HOUR);
        Instant at = now();
        StepVerifier.create(retry).expectComplete().verify(TIMEOUT);

        // then its visibility counts from the clock at the write
        assertState(pending.dispatchKey(), OutboxStatus.PENDING, 3, at.plus(Duration.ofMinutes(5)));

        // and a zero delay makes a row due at once
        StepVerifier.create(store.settleKeys(List.of(claimed.dispatchKey()), Settlement.retryAfter(1, Duration.ZERO)))
                .expectComplete()
                .verify(TIMEOUT);
        assertState(claimed.dispatchKey(), OutboxStatus.PENDING, 1, now());
        assertThat(keys(claim(10))).containsExactly(bystander.dispatchKey(), claimed.dispatchKey());
    }

    @Test
    void O58_O33_O34_retryAfter_settlement_is_a_no_op_on_terminal_unknown_and_unstorable_keys() {
        // when a retry after a delay is applied to the terminal rows, an unknown and an unstorable key
        for (String key :
                List.of(done.dispatchKey(), failed.dispatchKey(), cancelled.dispatchKey(), unknown, UNSTORABLE)) {
            StepVerifier.create(store.settleKeys(List.of(key), Settlement.retryAfter(7, Duration.ZERO)))
                    .expectComplete()
                    .verify(TIMEOUT);
        }

        // then nothing changed and no claim takes them
        assertTerminalAndOthersUnchanged();
        assertThat(keys(claim(10))).containsExactly(pending.dispatchKey(), bystander.dispatchKey());
    }

    @Test
    void O58_settleKeys_retryAfter_makes_every_live_key_pending_the_delay_after_the_store_clock() {
        // given a retry after 90 seconds of every key but the bystander's, an unknown and an unstorable key,
        // the live ones twice, assembled now but not yet subscribed
        Mono<Void> retry = store.settleKeys(allNamed(), Settlement.retryAfter(4, Duration.ofSeconds(90)));

        // when the clock moves on an hour before it is subscribed
        clock.advance(HOUR);
        Instant at = now();
        StepVerifier.create(retry).expectComplete().verify(TIMEOUT);

        // then the pending and the claimed row are pending, attempt 4, visible 90 s after the store clock at the
        // write, no claim is left, and the terminal rows, the bystander and the unknown key did not move
        assertState(pending.dispatchKey(), OutboxStatus.PENDING, 4, at.plusSeconds(90));
        assertState(claimed.dispatchKey(), OutboxStatus.PENDING, 4, at.plusSeconds(90));
        assertTerminalAndOthersUnchanged();
        assertNoClaimLeft();

        // and neither is claimable before then, both are from then on
        assertThat(keys(claim(10))).containsExactly(bystander.dispatchKey());
        clock.advance(Duration.ofSeconds(89));
        assertThat(claim(10)).isEmpty();
        clock.advance(Duration.ofSeconds(1));
        List<OutboxRow> taken = claim(10);
        assertThat(keys(taken)).containsExactly(claimed.dispatchKey(), pending.dispatchKey());
        assertThat(taken).extracting(OutboxRow::attempt).containsOnly(4);
    }

    @Test
    void O58_X10_a_retryAfter_settlement_refuses_a_negative_attempt_and_a_null_or_negative_delay_when_built() {
        // when a retry after a delay is built with a negative attempt, or a null or negative delay
        // then building it throws naming the argument
        buildRefused(() -> Settlement.retryAfter(-1, Duration.ZERO), "nextAttempt");
        buildRefused(() -> Settlement.retryAfter(1, null), "delay");
        buildRefused(() -> Settlement.retryAfter(1, Duration.ofNanos(-1)), "delay");
    }

    @Test
    void O58_X10_settleKeys_retryAfter_signals_bad_keys_and_unstorably_long_delays_and_writes_nothing() {
        // given the state before
        Map<String, Optional<OutboxRowState>> before = snapshot(everyKey());
        String key = claimed.dispatchKey();
        Settlement soon = Settlement.retryAfter(1, Duration.ZERO);

        // when a retry after a delay gets a null or empty key, or a delay that takes the visibility past the
        // latest storable instant, for one key or several
        // then each call signals an invalid argument naming it
        assertRejected(() -> store.settleKeys(Collections.singletonList(null), soon), "dispatchKeys[0]");
        assertRejected(() -> store.settleKeys(List.of(""), soon), "dispatchKeys[0]");
        for (List<String> keys : List.of(List.of(key), List.of(key, pending.dispatchKey()))) {
            assertRejected(
                    () -> store.settleKeys(keys, Settlement.retryAfter(1, Duration.ofDays(365L * 1000))),
                    "settlement.delay");
            assertRejected(
                    () -> store.settleKeys(keys, Settlement.retryAfter(1, Duration.ofSeconds(Long.MAX_VALUE))),
                    "settlement.delay");
        }

        // and nothing changed
        assertThat(snapshot(everyKey())).isEqualTo(before);
    }

    // ---------------------------------------------------------------- helpers

    /** Every row's key but the bystander's, the live ones twice, plus an unknown and an unstorable key. */
    private List<String> allNamed() {
        return List.of(
                cancelled.dispatchKey(),
                claimed.dispatchKey(),
                unknown,
                done.dispatchKey(),
                pending.dispatchKey(),
                UNSTORABLE,
                failed.dispatchKey(),
                claimed.dispatchKey(),
                pending.dispatchKey());
    }

    private List<String> everyKey() {
        return List.of(
                pending.dispatchKey(),
                claimed.dispatchKey(),
                done.dispatchKey(),
                failed.dispatchKey(),
                cancelled.dispatchKey(),
                bystander.dispatchKey(),
                unknown);
    }

    private void assertTerminalAndOthersUnchanged() {
        assertState(done.dispatchKey(), OutboxStatus.DONE, 2, visible);
        assertState(failed.dispatchKey(), OutboxStatus.FAILED, 2, visible);
        assertState(cancelled.dispatchKey(), OutboxStatus.CANCELLED, 2, visible);
        assertState(bystander.dispatchKey(), OutboxStatus.PENDING, 0, visible);
        assertAbsent(unknown);
    }

    private void assertNoClaimLeft() {
        assertThat(store.countClaimed("default").block(TIMEOUT)).isZero();
        StepVerifier.create(store.listStaleClaimed(now().plus(HOUR), 10))
                .expectComplete()
                .verify(TIMEOUT);
    }
}
