package dev.durablestore.tck;

import static dev.durablestore.tck.KitSupport.concurrently;
import static dev.durablestore.tck.OutboxFixtures.row;
import static dev.durablestore.tck.OutboxFixtures.signal;
import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.SequenceConflictException;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.StaleClaimException;
import dev.durablestore.api.TimerId;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.WorkflowStep;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import reactor.test.StepVerifier;

/**
 * Contract of the fences of a step (W7, with W6 and W11): a step whose settle names a claim that is
 * no longer current fails whole with {@link StaleClaimException} and writes nothing, whatever took
 * the claim away and whatever the settle; a heartbeat keeps a claim current; among concurrent
 * steps only the stale and the conflicting ones fail.
 */
public abstract class StepFencingContract extends StepContractSupport {

    /** The five settles a step can make of a claimed row. */
    private static final List<BiFunction<WorkflowStep.Builder, OutboxRow, WorkflowStep.Builder>> SETTLES = List.of(
            WorkflowStep.Builder::complete,
            (b, r) -> b.settle(r, Settlement.retryAt(1, r.visibleAfter().plusSeconds(60))),
            (b, r) -> b.settle(r, Settlement.retryAfter(1, Duration.ofSeconds(60))),
            (b, r) -> b.settle(r, Settlement.fail()),
            (b, r) -> b.settle(r, Settlement.cancel()));

    /** W7, O41: after the lease reaper re-armed a row, every settle of its old claim makes the step stale. */
    @Test
    void W7_after_the_reaper_re_armed_the_row_every_settle_of_the_old_claim_is_stale() {
        // given a workflow whose claimed row the lease reaper re-armed
        Given g = given(1, 1);
        clock.advance(Duration.ofMinutes(5));
        StepVerifier.create(store.rearmStaleClaimed(now(), now(), 10).map(List::size))
                .expectNext(1)
                .expectComplete()
                .verify(TIMEOUT);

        // when steps with events, a staged row, a timer and each kind of settle of the old claim commit
        // then each fails naming the row and the old claim, and the row stays pending
        for (BiFunction<WorkflowStep.Builder, OutboxRow, WorkflowStep.Builder> settle : SETTLES) {
            assertStale(
                    refused(g, settle.apply(withParts(g), g.first()).build(), StaleClaimException.class), g.first());
            assertState(g.first().dispatchKey(), OutboxStatus.PENDING, 0, now());
        }
    }

    /** W7, W6: after a re-claim the old claim makes a step stale and the new one commits it. */
    @Test
    void W7_after_a_re_claim_the_old_claim_is_stale_and_the_new_one_current() {
        // given a workflow whose claimed row was re-armed and claimed again
        Given g = given(1, 1);
        StepVerifier.create(store.rearmPending(List.of(g.first())))
                .expectComplete()
                .verify(TIMEOUT);
        OutboxRow again = claim(1).get(0);
        assertThat(again.dispatchKey()).isEqualTo(g.first().dispatchKey());
        Given now = new Given(g.workflowId(), List.of(again));

        // when steps settling it by the first claim commit, then each is stale and the second claim holds the row
        for (BiFunction<WorkflowStep.Builder, OutboxRow, WorkflowStep.Builder> settle : SETTLES) {
            assertStale(
                    refused(now, settle.apply(withParts(g), g.first()).build(), StaleClaimException.class), g.first());
        }
        assertThat(claims()).containsExactly(again.dispatchKey() + "#" + again.claimToken());

        // when a step settles it by the second claim, then it commits whole
        commit(withParts(g).complete(again).build());
        assertStatus(again.dispatchKey(), OutboxStatus.DONE);
        assertThat(head(g.workflowId())).isEqualTo(2);
    }

    /** W7, W6: once a row is settled — by a step, by key or by cancelling its workflow — its claim is stale. */
    @Test
    void W7_a_settled_row_makes_every_later_step_settling_its_claim_stale() {
        // given three workflows whose claimed rows were settled by a step, by key, and by cancelling the workflow
        Given byStep = given(1, 1);
        commit(WorkflowStep.builder(byStep.workflowId(), 1)
                .append(signal(byStep.workflowId(), 2, now()))
                .complete(byStep.first())
                .build());
        Given byKey = given(2, 1);
        StepVerifier.create(store.settleKeys(List.of(byKey.first().dispatchKey()), Settlement.fail()))
                .expectComplete()
                .verify(TIMEOUT);
        Given byCancel = given(3, 1);
        StepVerifier.create(store.cancelWorkflowRows(byCancel.workflowId()))
                .expectNext(List.of(byCancel.first().dispatchKey()))
                .expectComplete()
                .verify(TIMEOUT);

        // when steps settle each again by its old claim, then every one is stale and nothing changes
        for (BiFunction<WorkflowStep.Builder, OutboxRow, WorkflowStep.Builder> settle : SETTLES) {
            assertStale(
                    refused(
                            byStep,
                            settle.apply(step(byStep, 2), byStep.first()).build(),
                            StaleClaimException.class),
                    byStep.first());
            assertStale(
                    refused(byKey, settle.apply(step(byKey, 1), byKey.first()).build(), StaleClaimException.class),
                    byKey.first());
            assertStale(
                    refused(
                            byCancel,
                            settle.apply(step(byCancel, 1), byCancel.first()).build(),
                            StaleClaimException.class),
                    byCancel.first());
        }
        assertStatus(byStep.first().dispatchKey(), OutboxStatus.DONE);
        assertStatus(byKey.first().dispatchKey(), OutboxStatus.FAILED);
        assertStatus(byCancel.first().dispatchKey(), OutboxStatus.CANCELLED);
    }

    /** W7, W1: one stale settle among current ones fails the whole step; the current claims stay claimed. */
    @Test
    void W7_one_stale_settle_fails_the_step_and_leaves_its_current_settles_unwritten() {
        // given a workflow with three claimed rows, the second one re-armed by the reaper since
        Given g = given(1, 3);
        StepVerifier.create(store.rearmPending(List.of(g.claimed().get(1))))
                .expectComplete()
                .verify(TIMEOUT);

        // when a step completes the first, retries the second and fails the third by their claims
        StaleClaimException e = refused(
                g,
                withParts(g)
                        .complete(g.claimed().get(0))
                        .settle(g.claimed().get(1), Settlement.retryAt(1, now()))
                        .settle(g.claimed().get(2), Settlement.fail())
                        .build(),
                StaleClaimException.class);

        // then it is stale naming the second, and the first and third are still claimed by their claims
        assertStale(e, g.claimed().get(1));
        assertThat(claims())
                .containsExactlyInAnyOrder(
                        g.claimed().get(0).dispatchKey() + "#"
                                + g.claimed().get(0).claimToken(),
                        g.claimed().get(2).dispatchKey() + "#"
                                + g.claimed().get(2).claimToken());
    }

    /** W7, W6, O39: a heartbeat keeps a claim current past the reaper's bound, so a later step commits. */
    @Test
    void W7_W6_a_heartbeat_keeps_the_claim_current_for_a_step() {
        // given a claimed row whose dispatcher heartbeats five minutes later
        Given g = given(1, 1);
        clock.advance(Duration.ofMinutes(5));
        StepVerifier.create(store.heartbeat(List.of(g.first())))
                .expectNext(List.of(g.first().dispatchKey()))
                .expectComplete()
                .verify(TIMEOUT);
        // and a reaper that re-arms rows claimed before the heartbeat
        StepVerifier.create(store.rearmStaleClaimed(now(), now(), 10).map(List::size))
                .expectNext(0)
                .expectComplete()
                .verify(TIMEOUT);
        assertThat(claims())
                .as("the heartbeat keeps the token")
                .containsExactly(g.first().dispatchKey() + "#" + g.first().claimToken());

        // when a step completes it by the claim, then the step commits whole
        commit(withParts(g).complete(g.first()).build());
        assertStatus(g.first().dispatchKey(), OutboxStatus.DONE);
        assertStatus(OutboxRow.dispatchKey(g.workflowId(), 11), OutboxStatus.PENDING);
        assertThat(head(g.workflowId())).isEqualTo(2);
    }

    /** W7, W6: a step racing a fenced settle of the same claim: exactly one of them applies. */
    @Test
    void W7_of_a_step_and_a_fenced_settle_racing_on_one_claim_exactly_one_applies() {
        // given a claimed row
        Given g = given(1, 1);
        WorkflowStep step = withParts(g).complete(g.first()).build();

        // when a step completing it and a fenced fail of it run at once
        List<Supplier<? extends Publisher<?>>> racing =
                List.of(() -> store.commitStep(step), () -> store.settle(g.first(), Settlement.fail()));
        List<Throwable> outcomes = concurrently(racing);

        // then exactly one applied, the other is stale, and the step is whole or absent accordingly
        assertThat(outcomes.stream().filter(Objects::isNull).count())
                .as("successes")
                .isEqualTo(1);
        assertThat(outcomes.stream().filter(Objects::nonNull).findFirst().orElseThrow())
                .isInstanceOf(StaleClaimException.class);
        boolean stepWon = outcomes.get(0) == null;
        assertStatus(g.first().dispatchKey(), stepWon ? OutboxStatus.DONE : OutboxStatus.FAILED);
        assertThat(head(g.workflowId())).isEqualTo(stepWon ? 2 : 1);
        assertThat(state(OutboxRow.dispatchKey(g.workflowId(), 11)).isPresent()).isEqualTo(stepWon);
        assertThat(timers(g.workflowId())).containsKey(stepWon ? "timer:named:next" : DEADLINE.canonicalText());
    }

    /** W7, W11, W1: among concurrent steps of many workflows only the stale and conflicting ones fail. */
    @Test
    void W7_W11_concurrent_steps_fail_alone_when_stale_or_in_conflict() {
        // given eight workflows at head 1, each with a claimed row
        int n = 8;
        List<Given> given = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            given.add(given(10 + i, 1));
        }
        // and workflow 2's claim taken by the reaper, workflow 4's row settled by key, workflow 6's head moved on
        StepVerifier.create(store.rearmPending(List.of(given.get(2).first())))
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.settleKeys(List.of(given.get(4).first().dispatchKey()), Settlement.complete()))
                .expectComplete()
                .verify(TIMEOUT);
        WorkflowId moved = given.get(6).workflowId();
        StepVerifier.create(store.append(moved, List.of(signal(moved, 2, now())), 1))
                .expectComplete()
                .verify(TIMEOUT);
        List<Stored> before = new ArrayList<>();
        List<Supplier<? extends Publisher<?>>> steps = new ArrayList<>();
        for (Given g : given) {
            WorkflowStep step = withParts(g)
                    .settle(g.first(), Settlement.retryAfter(1, Duration.ofMinutes(1)))
                    .build();
            before.add(stored(g, step));
            steps.add(() -> store.commitStep(step));
        }

        // when every workflow commits a step at head 1 retrying its row, all at once
        List<Throwable> outcomes = concurrently(steps);

        // then the stale and the conflicting steps failed and wrote nothing; every other one committed whole
        for (int i = 0; i < n; i++) {
            Given g = given.get(i);
            Throwable outcome = outcomes.get(i);
            if (i == 2 || i == 4) {
                assertThat(outcome).as("step %d", i).isInstanceOf(StaleClaimException.class);
                assertStale((StaleClaimException) outcome, g.first());
            } else if (i == 6) {
                assertThat(outcome).as("step %d", i).isEqualTo(new SequenceConflictException(1, 2));
            } else {
                assertThat(outcome).as("step %d", i).isNull();
                assertThat(head(g.workflowId())).isEqualTo(2);
                assertState(g.first().dispatchKey(), OutboxStatus.PENDING, 1, now().plus(Duration.ofMinutes(1)));
                assertStatus(OutboxRow.dispatchKey(g.workflowId(), 11), OutboxStatus.PENDING);
                assertThat(timers(g.workflowId())).containsOnlyKeys(REMINDER.canonicalText(), "timer:named:next");
                continue;
            }
            Stored after = stored(g, null);
            assertThat(after.history())
                    .as("history of step %d", i)
                    .isEqualTo(before.get(i).history());
            assertAbsent(OutboxRow.dispatchKey(g.workflowId(), 11));
            assertThat(timers(g.workflowId()))
                    .as("timers of step %d", i)
                    .containsOnlyKeys(DEADLINE.canonicalText(), REMINDER.canonicalText());
        }
        assertStatus(given.get(2).first().dispatchKey(), OutboxStatus.PENDING);
        assertStatus(given.get(4).first().dispatchKey(), OutboxStatus.DONE);
        assertStatus(given.get(6).first().dispatchKey(), OutboxStatus.CLAIMED);
    }

    // ---------------------------------------------------------------- fixtures

    /** A step of {@code g}'s workflow at head 1 with an event, a staged row (ordinal 11) and timer changes. */
    private WorkflowStep.Builder withParts(Given g) {
        WorkflowId w = g.workflowId();
        return WorkflowStep.builder(w, 1)
                .append(signal(w, 2, now()))
                .stage(row(w, 11, now()))
                .scheduleTimer(TimerId.named("next"), now().plusSeconds(60))
                .cancelTimer(DEADLINE);
    }

    /** A step of {@code g}'s workflow at {@code head} with an event after it and a timer. */
    private WorkflowStep.Builder step(Given g, long head) {
        WorkflowId w = g.workflowId();
        return WorkflowStep.builder(w, head)
                .append(signal(w, head + 1, now()))
                .scheduleTimer(TimerId.named("next"), now().plusSeconds(60));
    }

    private static void assertStale(StaleClaimException e, OutboxRow claimed) {
        assertThat(e.dispatchKey()).as("the stale row").isEqualTo(claimed.dispatchKey());
        assertThat(e.claimToken()).as("the stale claim").isEqualTo(claimed.claimToken());
    }
}
