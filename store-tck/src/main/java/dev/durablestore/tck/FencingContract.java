package dev.durablestore.tck;

import static dev.durablestore.tck.KitSupport.concurrently;
import static dev.durablestore.tck.KitSupport.failure;
import static dev.durablestore.tck.OutboxFixtures.row;
import static dev.durablestore.tck.OutboxFixtures.workflow;
import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.StaleClaimException;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.internal.Rows;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * Contract of claim tokens and fenced settles (W5, W6): a claimed row carries the identity of its
 * claim, and a settle given that row succeeds only while the claim is current.
 */
public abstract class FencingContract extends OutboxContractSupport {

    /** The fenced settles, one of each settlement kind and a retry after a delay, each as a function of the row. */
    private final List<Function<OutboxRow, Mono<Void>>> fencedSettles = List.of(
            r -> store.complete(r),
            r -> store.settle(r, Settlement.retryAt(1, now())),
            r -> store.settle(r, Settlement.retryAfter(1, Duration.ofSeconds(60))),
            r -> store.settle(r, Settlement.fail()),
            r -> store.settle(r, Settlement.cancel()));

    // ---------------------------------------------------------------- W5: claim tokens

    @Test
    void W5_a_claimed_row_carries_a_non_zero_token_and_a_new_claim_a_new_one() {
        // given a staged row
        OutboxRow staged = row(workflow(1), 0, now());
        stage(staged);
        assertThat(staged.claimToken())
                .as("a row that does not come from a claim")
                .isZero();

        // when it is claimed
        OutboxRow first = claimOne();
        // then it carries a non-zero token
        assertThat(first.claimToken()).isNotZero();

        // when it is retried by key and claimed again
        StepVerifier.create(store.settleKeys(List.of(staged.dispatchKey()), Settlement.retryAt(0, now())))
                .expectComplete()
                .verify(TIMEOUT);
        OutboxRow second = claimOne();
        // then the second claim has a token of its own
        assertThat(second.claimToken()).isNotZero().isNotEqualTo(first.claimToken());
    }

    @Test
    void W5_listing_a_claimed_row_gives_its_current_token_and_a_heartbeat_keeps_it() {
        // given a claimed row
        stage(row(workflow(1), 0, now()));
        OutboxRow claimed = claimOne();

        // when it is listed as claimed, then it carries the claim's token
        assertThat(staleTokens()).containsExactly(claimed.claimToken());

        // when the clock moves and the dispatcher heartbeats
        clock.advance(Duration.ofSeconds(30));
        StepVerifier.create(store.heartbeat(List.of(claimed)))
                .expectNext(List.of(claimed.dispatchKey()))
                .expectComplete()
                .verify(TIMEOUT);
        // then the token is unchanged
        assertThat(staleTokens()).containsExactly(claimed.claimToken());
    }

    @Test
    void W5_a_row_staged_as_claimed_carries_no_token_and_a_token_needs_the_claimed_status() {
        // given a row staged directly in the claimed status
        OutboxRow stagedClaimed = row(workflow(1), 0, now()).withStatus(OutboxStatus.CLAIMED, now());
        stage(stagedClaimed);

        // when it is listed, then it has token 0: no claim returned it
        assertThat(staleTokens()).containsExactly(0L);
        // and a fenced settle refuses it as not coming from a claim
        assertRejected(() -> store.complete(stagedClaimed), "claimed.claimToken");

        // when a row is built with a token and another status, then the constructor refuses it
        InvalidArgumentException e = org.assertj.core.api.Assertions.catchThrowableOfType(
                InvalidArgumentException.class, () -> Rows.withClaimToken(row(workflow(1), 1, now()), 7));
        assertThat(e.argument()).isEqualTo("row.claimToken");
        // and leaving the claimed status drops the token
        assertThat(Rows.withClaimToken(row(workflow(1), 1, now()).withStatus(OutboxStatus.CLAIMED, now()), 7)
                        .withStatus(OutboxStatus.PENDING, null)
                        .claimToken())
                .isZero();
    }

    // ---------------------------------------------------------------- W6: fenced settles

    @Test
    void W6_each_fenced_settle_applies_under_the_current_claim() {
        // given five claimed rows
        WorkflowId w = workflow(1);
        for (int i = 0; i < 5; i++) {
            stage(row(w, i, now()));
        }
        List<OutboxRow> claimed = claim(5);
        assertThat(claimed).hasSize(5);
        clock.advance(Duration.ofSeconds(1));

        // when each is settled by its claim: completed, retried at an instant, failed, cancelled, retried after a delay
        StepVerifier.create(store.complete(claimed.get(0))).expectComplete().verify(TIMEOUT);
        StepVerifier.create(store.settle(claimed.get(1), Settlement.retryAt(3, now().plusSeconds(60))))
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.settle(claimed.get(2), Settlement.fail()))
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.settle(claimed.get(3), Settlement.cancel()))
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.settle(claimed.get(4), Settlement.retryAfter(2, Duration.ofSeconds(90))))
                .expectComplete()
                .verify(TIMEOUT);

        // then each row is settled as asked (O29–O32, O58)
        assertState(
                claimed.get(0).dispatchKey(),
                OutboxStatus.DONE,
                0,
                claimed.get(0).visibleAfter());
        assertState(claimed.get(1).dispatchKey(), OutboxStatus.PENDING, 3, now().plusSeconds(60));
        assertState(
                claimed.get(2).dispatchKey(),
                OutboxStatus.FAILED,
                0,
                claimed.get(2).visibleAfter());
        assertState(
                claimed.get(3).dispatchKey(),
                OutboxStatus.CANCELLED,
                0,
                claimed.get(3).visibleAfter());
        assertState(claimed.get(4).dispatchKey(), OutboxStatus.PENDING, 2, now().plusSeconds(90));
        assertThat(staleTokens()).as("no row is left claimed").isEmpty();
    }

    @Test
    void W6_O58_a_fenced_retry_after_a_delay_counts_from_the_store_clock_and_is_stale_once_the_claim_moved_on() {
        // given a claimed row and a fenced retry after 90 seconds, assembled but not yet subscribed
        OutboxRow claimed = freshClaim();
        Mono<Void> retry = store.settle(claimed, Settlement.retryAfter(4, Duration.ofSeconds(90)));

        // when the clock moves on a minute before it is subscribed, under the current claim
        clock.advance(Duration.ofMinutes(1));
        Instant at = now();
        StepVerifier.create(retry).expectComplete().verify(TIMEOUT);

        // then the row is pending, attempt 4, visible 90 seconds after the store clock at the write, and unclaimed
        assertState(claimed.dispatchKey(), OutboxStatus.PENDING, 4, at.plusSeconds(90));
        assertThat(staleTokens()).as("no row is left claimed").isEmpty();
        assertThat(claim(10)).as("not due before its visibility").isEmpty();

        // when it is due, claimed again, and the old claim retries it after a delay
        clock.advance(Duration.ofSeconds(90));
        OutboxRow again = claimOne();
        assertThat(again.dispatchKey()).isEqualTo(claimed.dispatchKey());
        assertStale(() -> store.settle(claimed, Settlement.retryAfter(5, Duration.ofSeconds(30))), claimed);

        // then it is refused as stale and the row is still claimed by the new claim, attempt 4
        assertState(claimed.dispatchKey(), OutboxStatus.CLAIMED, 4, at.plusSeconds(90));
        assertThat(staleTokens()).containsExactly(again.claimToken());
    }

    @Test
    void W6_after_the_reaper_re_arms_a_row_every_fenced_settle_is_stale_and_changes_nothing() {
        for (Function<OutboxRow, Mono<Void>> settle : fencedSettles) {
            // given a claimed row that the lease reaper re-armed
            OutboxRow claimed = freshClaim();
            clock.advance(Duration.ofMinutes(5));
            StepVerifier.create(store.rearmStaleClaimed(now(), now(), 10).map(List::size))
                    .expectNext(1)
                    .expectComplete()
                    .verify(TIMEOUT);

            // when the old claim settles it, then it is stale and the row stays pending
            assertStale(() -> settle.apply(claimed), claimed);
            assertState(claimed.dispatchKey(), OutboxStatus.PENDING, 0, now());
            StepVerifier.create(store.settleKeys(List.of(claimed.dispatchKey()), Settlement.complete()))
                    .expectComplete()
                    .verify(TIMEOUT); // out of the way
        }
    }

    @Test
    void W6_after_a_re_claim_the_old_claim_is_stale_and_the_new_one_current() {
        // given a row claimed, re-armed and claimed again
        OutboxRow first = freshClaim();
        StepVerifier.create(store.rearmPending(List.of(first))).expectComplete().verify(TIMEOUT);
        OutboxRow second = claimOne();
        assertThat(second.dispatchKey()).isEqualTo(first.dispatchKey());

        // when the first claim settles, then it is stale and the row stays claimed by the second
        for (Function<OutboxRow, Mono<Void>> settle : fencedSettles) {
            assertStale(() -> settle.apply(first), first);
        }
        assertThat(staleTokens()).containsExactly(second.claimToken());

        // when the second claim completes it, then it is done
        StepVerifier.create(store.complete(second)).expectComplete().verify(TIMEOUT);
        assertStatus(second.dispatchKey(), OutboxStatus.DONE);
    }

    @Test
    void W6_a_settled_row_refuses_a_second_fenced_settle_whatever_settled_it() {
        // given rows settled by their claim, by key, and by cancelling their workflow
        OutboxRow byClaim = freshClaim();
        StepVerifier.create(store.complete(byClaim)).expectComplete().verify(TIMEOUT);
        OutboxRow byKey = freshClaim();
        StepVerifier.create(store.settleKeys(List.of(byKey.dispatchKey()), Settlement.fail()))
                .expectComplete()
                .verify(TIMEOUT);
        OutboxRow byCancel = freshClaim();
        StepVerifier.create(store.cancelWorkflowRows(byCancel.workflowId()))
                .expectNext(List.of(byCancel.dispatchKey()))
                .expectComplete()
                .verify(TIMEOUT);

        // when each is settled again by its old claim, then every settle is stale and nothing changes
        for (Function<OutboxRow, Mono<Void>> settle : fencedSettles) {
            assertStale(() -> settle.apply(byClaim), byClaim);
            assertStale(() -> settle.apply(byKey), byKey);
            assertStale(() -> settle.apply(byCancel), byCancel);
        }
        assertStatus(byClaim.dispatchKey(), OutboxStatus.DONE);
        assertStatus(byKey.dispatchKey(), OutboxStatus.FAILED);
        assertStatus(byCancel.dispatchKey(), OutboxStatus.CANCELLED);
    }

    @Test
    void W13_a_heartbeat_by_a_claim_that_moved_on_refreshes_nothing_and_leaves_the_key_out() {
        // given a row claimed, re-armed by the reaper and claimed again by another dispatcher
        OutboxRow first = freshClaim();
        StepVerifier.create(store.rearmPending(List.of(first))).expectComplete().verify(TIMEOUT);
        OutboxRow second = claimOne();
        Instant secondClaimedAt = second.claimedAt();
        clock.advance(Duration.ofMinutes(5));

        // when the first dispatcher heartbeats the row as its claim returned it
        // then the key is left out: its claim is no longer current
        StepVerifier.create(store.heartbeat(List.of(first)))
                .expectNext(List.of())
                .expectComplete()
                .verify(TIMEOUT);

        // and the second claim was not refreshed: the reaper still finds it stale
        StepVerifier.create(store.listStaleClaimed(secondClaimedAt.plusNanos(1), 10))
                .assertNext(row -> {
                    assertThat(row.claimToken()).isEqualTo(second.claimToken());
                    assertThat(row.claimedAt()).isEqualTo(secondClaimedAt);
                })
                .expectComplete()
                .verify(TIMEOUT);

        // when the second dispatcher heartbeats, then its claim is refreshed
        StepVerifier.create(store.heartbeat(List.of(second)))
                .expectNext(List.of(second.dispatchKey()))
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void W13_a_heartbeat_refuses_rows_not_from_a_claim_naming_them_and_changes_nothing() {
        // given a claimed row and a row staged but never claimed
        OutboxRow claimed = freshClaim();
        OutboxRow staged = row(workflow(2), 0, now());
        stage(staged);
        clock.advance(Duration.ofMinutes(5));

        // when the heartbeat names the claimed row and the unclaimed one, a null element, or no collection
        // then each fails naming the argument, and the claim is not refreshed
        assertRejected(() -> store.heartbeat(List.of(claimed, staged)), "claimed[1].claimToken");
        assertRejected(() -> store.heartbeat(Arrays.asList(claimed, null)), "claimed[1]");
        assertRejected(() -> store.heartbeat(null), "claimed");
        assertThat(staleTokens()).containsExactly(claimed.claimToken());
    }

    @Test
    void W6_a_heartbeat_keeps_the_claim_current() {
        // given a claimed row whose dispatcher heartbeats past the reaper's bound
        OutboxRow claimed = freshClaim();
        clock.advance(Duration.ofMinutes(5));
        StepVerifier.create(store.heartbeat(List.of(claimed)))
                .expectNext(List.of(claimed.dispatchKey()))
                .expectComplete()
                .verify(TIMEOUT);
        // and the reaper finds nothing stale before the heartbeat
        StepVerifier.create(store.rearmStaleClaimed(now(), now(), 10).map(List::size))
                .expectNext(0)
                .expectComplete()
                .verify(TIMEOUT);

        // when the dispatcher completes it by its claim, then it is done
        StepVerifier.create(store.complete(claimed)).expectComplete().verify(TIMEOUT);
        assertStatus(claimed.dispatchKey(), OutboxStatus.DONE);
    }

    @Test
    void W6_of_two_racing_settles_of_one_claim_exactly_one_applies() {
        // given a claimed row
        OutboxRow claimed = freshClaim();

        // when it is completed and failed by the same claim at once
        List<Supplier<? extends Publisher<?>>> racing =
                List.of(() -> store.complete(claimed), () -> store.settle(claimed, Settlement.fail()));
        List<Throwable> outcomes = concurrently(racing);

        // then exactly one succeeded, the other is stale, and the row is in the winner's status
        assertThat(outcomes.stream().filter(Objects::isNull).count())
                .as("successes")
                .isEqualTo(1);
        Throwable loser = outcomes.stream().filter(Objects::nonNull).findFirst().orElseThrow();
        assertThat(loser).isInstanceOf(StaleClaimException.class);
        assertStatus(claimed.dispatchKey(), outcomes.get(0) == null ? OutboxStatus.DONE : OutboxStatus.FAILED);
    }

    @Test
    void W6_X10_fenced_settles_refuse_rows_not_from_a_claim_and_bad_arguments_naming_them() {
        // given a claimed row and a pending one, not yet due
        OutboxRow claimed = freshClaim();
        OutboxRow pending = row(workflow(1), 0, now().plusSeconds(3600));
        stage(pending);

        // when settles are given a null or unclaimed row, then they are refused naming it
        for (Function<OutboxRow, Mono<Void>> settle : fencedSettles) {
            assertRejected(() -> settle.apply(null), "claimed");
            assertRejected(() -> settle.apply(pending), "claimed.claimToken");
        }
        // and a settle without a settlement is refused naming it
        assertRejected(() -> store.settle(claimed, null), "settlement");

        // when a retry is built with a negative attempt, a null visibility, or a null or negative delay
        // then building it throws naming the argument
        buildRefused(() -> Settlement.retryAt(-1, now()), "nextAttempt");
        buildRefused(() -> Settlement.retryAt(1, null), "visibleAfter");
        buildRefused(() -> Settlement.retryAfter(-1, Duration.ZERO), "nextAttempt");
        buildRefused(() -> Settlement.retryAfter(1, null), "delay");
        buildRefused(() -> Settlement.retryAfter(1, Duration.ofNanos(-1)), "delay");

        // when a retry asks for a visibility the store cannot keep, then the settle is refused naming it
        assertRejected(() -> store.settle(claimed, Settlement.retryAt(1, Instant.MAX)), "settlement.visibleAfter");
        assertRejected(
                () -> store.settle(claimed, Settlement.retryAfter(1, Duration.ofDays(365L * 1000))),
                "settlement.delay");

        // then nothing changed
        assertState(pending.dispatchKey(), OutboxStatus.PENDING, 0, pending.visibleAfter());
        assertThat(staleTokens()).containsExactly(claimed.claimToken());
    }

    // ---------------------------------------------------------------- W7, W11: steps written together

    @Test
    void W7_W11_among_concurrent_steps_only_the_stale_and_the_conflicting_one_fail() {
        // given 24 workflows at head 1, each with one claimed row
        int n = 24;
        List<WorkflowId> workflows = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            WorkflowId w = workflow(200 + i);
            workflows.add(w);
            store.appendWithOutbox(w, List.of(OutboxFixtures.started(w, 1, now())), 0, List.of(row(w, 0, now())))
                    .block(TIMEOUT);
        }
        java.util.Map<WorkflowId, OutboxRow> claimed = new java.util.HashMap<>();
        for (OutboxRow r : claim(n)) {
            claimed.put(r.workflowId(), r);
        }
        assertThat(claimed).hasSize(n);
        // and the claim of workflow 3 taken away (re-armed and claimed again)
        WorkflowId staleOne = workflows.get(3);
        StepVerifier.create(store.rearmPending(List.of(claimed.get(staleOne))))
                .expectComplete()
                .verify(TIMEOUT);
        OutboxRow reclaimed = claimOne();
        // and workflow 7's head moved on
        WorkflowId movedOn = workflows.get(7);
        store.append(movedOn, List.of(OutboxFixtures.signal(movedOn, 2, now())), 1)
                .block(TIMEOUT);

        // when every workflow commits a step at head 1 completing its row, all at once
        List<Mono<Throwable>> outcomes = new java.util.ArrayList<>();
        for (WorkflowId w : workflows) {
            dev.durablestore.api.WorkflowStep step = dev.durablestore.api.WorkflowStep.builder(w, 1)
                    .append(OutboxFixtures.signal(w, 2, now()))
                    .stage(row(w, 1, now().plusSeconds(3600)))
                    .complete(claimed.get(w))
                    .build();
            outcomes.add(store.commitStep(step)
                    .then(Mono.<Throwable>empty())
                    .onErrorResume(Mono::just)
                    .defaultIfEmpty(NONE));
        }
        List<Throwable> results = reactor.core.publisher.Flux.mergeSequential(outcomes)
                .collectList()
                .block(TIMEOUT);

        // then only the stale step and the conflicting step failed, and each wrote nothing
        for (int i = 0; i < n; i++) {
            WorkflowId w = workflows.get(i);
            Throwable result = results.get(i);
            if (w.equals(staleOne)) {
                assertThat(result).isInstanceOf(StaleClaimException.class);
                assertThat(((StaleClaimException) result).dispatchKey())
                        .isEqualTo(claimed.get(w).dispatchKey());
                assertThat(store.readHead(w).block(TIMEOUT)).isEqualTo(1L);
                assertAbsent(OutboxRow.dispatchKey(w, 1));
                assertThat(staleTokens()).contains(reclaimed.claimToken());
            } else if (w.equals(movedOn)) {
                assertThat(result).isEqualTo(new dev.durablestore.api.SequenceConflictException(1, 2));
                assertAbsent(OutboxRow.dispatchKey(w, 1));
                assertStatus(claimed.get(w).dispatchKey(), OutboxStatus.CLAIMED);
            } else {
                assertThat(result).as("step of workflow %d", i).isSameAs(NONE);
                assertThat(store.readHead(w).block(TIMEOUT)).isEqualTo(2L);
                assertStatus(claimed.get(w).dispatchKey(), OutboxStatus.DONE);
                assertStatus(OutboxRow.dispatchKey(w, 1), OutboxStatus.PENDING);
            }
        }
    }

    /** Stands for "no error" in the outcomes of {@link #W7_W11_among_concurrent_steps_only_the_stale_and_the_conflicting_one_fail}. */
    private static final Throwable NONE = new Throwable("none");

    // ---------------------------------------------------------------- fixtures

    private long ordinals;

    /** @return a row of a new workflow, staged and claimed */
    private OutboxRow freshClaim() {
        stage(row(workflow(100 + ordinals), ordinals++, now()));
        return claimOne();
    }

    private OutboxRow claimOne() {
        List<OutboxRow> rows = claim(1);
        assertThat(rows).as("one row claimed").hasSize(1);
        return rows.get(0);
    }

    /** @return the claim token of every claimed row, as {@code listStaleClaimed} gives them */
    private List<Long> staleTokens() {
        return store.listStaleClaimed(now().plusSeconds(3600), 100)
                .map(OutboxRow::claimToken)
                .collectList()
                .block(TIMEOUT);
    }

    private void assertStale(Supplier<Mono<Void>> settle, OutboxRow claimed) {
        StaleClaimException e = failure(settle.get(), StaleClaimException.class);
        assertThat(e.dispatchKey()).isEqualTo(claimed.dispatchKey());
        assertThat(e.claimToken()).isEqualTo(claimed.claimToken());
    }
}
