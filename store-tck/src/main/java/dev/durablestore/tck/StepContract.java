package dev.durablestore.tck;

import static dev.durablestore.tck.KitSupport.concurrently;
import static dev.durablestore.tck.OutboxFixtures.row;
import static dev.durablestore.tck.OutboxFixtures.signal;
import static dev.durablestore.tck.OutboxFixtures.started;
import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.BackendException;
import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.PackageVersion;
import dev.durablestore.api.Payload;
import dev.durablestore.api.SequenceConflictException;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.StaleClaimException;
import dev.durablestore.api.TimerId;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.WorkflowStep;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.event.EventEnvelope;
import dev.durablestore.api.event.WorkflowStarted;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import reactor.test.StepVerifier;

/**
 * Contract of {@code commitStep} (W1, W3, W4, W8–W11): a step's events, staged rows, settles and
 * timer changes are written together under the workflow's guard, and ordered against the
 * workflow's other writes by that guard. The fences of its settles are
 * {@link StepFencingContract}'s (W7), its argument checks {@link StepArgumentContract}'s (W2).
 */
public abstract class StepContract extends StepContractSupport {

    /** Long enough that a row arriving within {@link #PROMPTLY} cannot have waited for a poll. */
    private static final Duration HOUR = Duration.ofHours(1);
    /** The bound on a wake-up. */
    private static final Duration PROMPTLY = Duration.ofSeconds(5);
    /** How long an idle stream is watched to see that it is idle. */
    private static final Duration QUIET = Duration.ofMillis(300);

    // ---------------------------------------------------------------- W1: all or nothing

    /** W1, W8, W9: every part of a committed step is stored. */
    @Test
    void W1_a_step_writes_its_events_rows_settles_and_timers_together() {
        // given a workflow at head 1 with two claimed rows and two timers
        Given g = given(1, 2);
        WorkflowId w = g.workflowId();
        Instant reminder = now().plus(Duration.ofHours(2));
        Instant at = clock.advance(Duration.ofSeconds(10));

        // when one step appends two events, stages a row, settles both rows and changes both timers
        List<Event> events = List.of(signal(w, 2, at), signal(w, 3, at));
        OutboxRow next = row(w, 10, at);
        commit(WorkflowStep.builder(w, 1)
                .append(events)
                .stage(next)
                .complete(g.claimed().get(0))
                .settle(g.claimed().get(1), Settlement.retryAt(4, at.plusSeconds(60)))
                .scheduleTimer(TimerId.named("next"), at.plusSeconds(300))
                .cancelTimer(DEADLINE)
                .build());

        // then all of it is stored
        assertThat(head(w)).isEqualTo(3);
        assertThat(KitSupport.historyFrom(store, w, 2)).containsExactlyElementsOf(events);
        assertState(next.dispatchKey(), OutboxStatus.PENDING, 0, at);
        assertState(
                g.claimed().get(0).dispatchKey(),
                OutboxStatus.DONE,
                0,
                g.claimed().get(0).visibleAfter());
        assertState(g.claimed().get(1).dispatchKey(), OutboxStatus.PENDING, 4, at.plusSeconds(60));
        assertThat(timers(w))
                .containsExactlyInAnyOrderEntriesOf(Map.of(
                        TimerId.named("next").canonicalText(),
                        at.plusSeconds(300),
                        REMINDER.canonicalText(),
                        reminder));
        assertThat(claims()).as("no row is left claimed").isEmpty();
    }

    /** W1, W3, W7, W2: whichever part fails, the step writes none of its parts; the good step then commits. */
    @Test
    void W1_a_step_with_one_failing_part_writes_none_of_its_parts() {
        // given a workflow at head 1 with two claimed rows and two timers
        Given g = given(1, 2);
        WorkflowId w = g.workflowId();
        // and a third row whose first claim was taken over by a second one
        stage(row(w, 5, now()));
        OutboxRow third = claim(1).get(0);
        StepVerifier.create(store.rearmPending(List.of(third))).expectComplete().verify(TIMEOUT);
        OutboxRow thirdAgain = claim(1).get(0);
        assertThat(thirdAgain.dispatchKey()).isEqualTo(third.dispatchKey());
        Given all = new Given(w, List.of(g.claimed().get(0), g.claimed().get(1), thirdAgain));

        // when steps with a part of every kind and one failing part are committed
        // then each fails and leaves the events, rows, settles, claims and timers as they were
        refused(all, full(g, 0).build(), SequenceConflictException.class); // a guard below the head
        refused(all, full(g, 2).build(), SequenceConflictException.class); // a guard above it
        refused(all, full(g, 1).complete(third).build(), StaleClaimException.class); // a stale settle
        refused(all, full(g, 1).append(signal(w, 9, now())).build(), BackendException.class); // a gap (E6)
        refused(
                all,
                full(g, 1).append(startedOfType(w, 4, "bad\u0000type")).build(), // a text it cannot store
                InvalidArgumentException.class);
        refused(
                all,
                full(g, 1)
                        .stage(row(w, 12, now()).withRoute("ns\u0000", "q", null))
                        .build(),
                InvalidArgumentException.class); // a row it cannot store
        refused(
                all,
                full(g, 1).scheduleTimer(TimerId.named("late"), Instant.MAX).build(),
                InvalidArgumentException.class); // a timer out of range
        Stored before = stored(all, null);
        buildRefused(
                () -> full(g, 1).settle(g.claimed().get(0), Settlement.cancel()).build(),
                "settles[2].dispatchKey"); // a key twice
        assertThat(stored(all, null)).isEqualTo(before);

        // when the step is committed without a failing part, then it commits whole
        commit(full(g, 1).build());
        assertThat(head(w)).isEqualTo(3);
        assertStatus(g.claimed().get(0).dispatchKey(), OutboxStatus.DONE);
        assertStatus(g.claimed().get(1).dispatchKey(), OutboxStatus.FAILED);
        assertStatus(OutboxRow.dispatchKey(w, 11), OutboxStatus.PENDING);
        assertThat(timers(w))
                .containsOnlyKeys(
                        REMINDER.canonicalText(), TimerId.named("next").canonicalText());
        assertThat(claims()).containsExactly(thirdAgain.dispatchKey() + "#" + thirdAgain.claimToken());
    }

    // ---------------------------------------------------------------- W3: the guard

    /** W3, E3: a step at a stale head fails with the conflict naming both heads and writes nothing. */
    @Test
    void W3_a_step_whose_guard_is_not_the_head_fails_with_the_conflict_and_writes_nothing() {
        // given a workflow at head 1 with two claimed rows
        Given g = given(1, 2);

        // when steps expecting heads 0 and 5 are committed, then each fails naming its guard and the head
        assertThat(refused(g, full(g, 0).build(), SequenceConflictException.class))
                .isEqualTo(new SequenceConflictException(0, 1));
        assertThat(refused(
                        g,
                        WorkflowStep.builder(g.workflowId(), 5)
                                .complete(g.first())
                                .build(),
                        SequenceConflictException.class))
                .isEqualTo(new SequenceConflictException(5, 1));
        // and the rows are still claimed by their claims
        assertThat(claims())
                .hasSize(2)
                .contains(g.first().dispatchKey() + "#" + g.first().claimToken());
    }

    /** W3, E6, E4: a step's events must follow the guard; a stale guard is reported before a gap. */
    @Test
    void W3_E6_a_step_whose_events_do_not_follow_the_guard_fails_and_writes_nothing() {
        // given a workflow at head 1 with a claimed row
        Given g = given(1, 1);
        WorkflowId w = g.workflowId();

        // when a step at head 1 appends events 3 and 4, then it fails saying the sequence must be contiguous
        BackendException e = refused(
                g,
                WorkflowStep.builder(w, 1)
                        .append(signal(w, 3, now()), signal(w, 4, now()))
                        .complete(g.first())
                        .build(),
                BackendException.class);
        assertThat(e.getMessage()).contains("contiguous");

        // when a step at head 0 appends the same events, then the stale guard wins (E4)
        assertThat(refused(
                        g,
                        WorkflowStep.builder(w, 0)
                                .append(signal(w, 3, now()))
                                .complete(g.first())
                                .build(),
                        SequenceConflictException.class))
                .isEqualTo(new SequenceConflictException(0, 1));
    }

    /** W3, E19: a step without events checks the guard only and leaves the head where it was. */
    @Test
    void W3_E19_a_step_without_events_checks_the_guard_and_writes_its_other_parts() {
        // given a workflow at head 1 with a claimed row
        Given g = given(1, 1);
        WorkflowId w = g.workflowId();

        // when a step without events at a stale head is committed, then it is a conflict
        assertThat(refused(g, WorkflowStep.builder(w, 3).complete(g.first()).build(), SequenceConflictException.class))
                .isEqualTo(new SequenceConflictException(3, 1));

        // when one at the head stages a row, completes the claimed row and cancels a timer
        commit(WorkflowStep.builder(w, 1)
                .stage(row(w, 1, now()))
                .complete(g.first())
                .cancelTimer(REMINDER)
                .build());

        // then those are written and the head stays at 1
        assertThat(head(w)).isEqualTo(1);
        assertStatus(g.first().dispatchKey(), OutboxStatus.DONE);
        assertStatus(OutboxRow.dispatchKey(w, 1), OutboxStatus.PENDING);
        assertThat(timers(w)).containsOnlyKeys(DEADLINE.canonicalText());
    }

    /** W3: the first step of a new workflow is guarded by head 0. */
    @Test
    void W3_the_first_step_of_a_workflow_expects_head_0() {
        // given a workflow with no history
        WorkflowId w = OutboxFixtures.workflow(9);

        // when a step at head 0 starts it, stages its first row and schedules a timer
        commit(WorkflowStep.builder(w, 0)
                .append(started(w, 1, now()))
                .stage(row(w, 0, now()))
                .scheduleTimer(DEADLINE, now().plusSeconds(5))
                .build());

        // then the workflow is at head 1 with its row and timer
        assertThat(head(w)).isEqualTo(1);
        assertStatus(OutboxRow.dispatchKey(w, 0), OutboxStatus.PENDING);
        assertThat(timers(w)).containsExactly(Map.entry(DEADLINE.canonicalText(), now().plusSeconds(5)));
    }

    // ---------------------------------------------------------------- W4: staging

    /** W4, E21: a step stages insert-or-ignore by key: a stored or repeated key keeps its first row. */
    @Test
    void W4_E21_a_step_ignores_rows_whose_key_is_stored_or_repeated() {
        // given a workflow at head 1 whose row 0 is claimed
        Given g = given(1, 1);
        WorkflowId w = g.workflowId();

        // when a step stages row 0 again, and row 1 twice with different visibilities
        Instant later = now().plusSeconds(600);
        commit(WorkflowStep.builder(w, 1)
                .append(signal(w, 2, now()))
                .stage(row(w, 0, later), row(w, 1, now()), row(w, 1, later))
                .build());

        // then row 0 is left claimed by its claim, and row 1 is the first one staged
        assertThat(claims())
                .containsExactly(g.first().dispatchKey() + "#" + g.first().claimToken());
        assertState(OutboxRow.dispatchKey(w, 1), OutboxStatus.PENDING, 0, now());
    }

    /** W4, O6: a staged row that breaks O6 is refused naming it, and the step writes nothing. */
    @Test
    void W4_O6_a_step_refuses_a_staged_row_claimed_without_a_claim_time() {
        // given a workflow at head 1 with a claimed row
        Given g = given(1, 1);
        WorkflowId w = g.workflowId();

        // when a step stages a row claimed but without a claim time, then it is refused naming it
        refusedNaming(
                g,
                WorkflowStep.builder(w, 1)
                        .append(signal(w, 2, now()))
                        .complete(g.first())
                        .stage(row(w, 1, now()), row(w, 2, now()).withStatus(OutboxStatus.CLAIMED, null))
                        .build(),
                "rows[1].claimedAt");
    }

    // ---------------------------------------------------------------- W8: settles

    /** W8, O29–O32: each settlement of a step, several rows in one step, the settle time the store clock. */
    @Test
    void W8_a_step_settles_several_rows_each_as_asked_at_the_store_clock() {
        // given a workflow with five claimed rows
        Given g = given(1, 5);
        List<OutboxRow> c = g.claimed();
        Instant at = clock.advance(Duration.ofMinutes(1));

        // when one step completes, fails, cancels, retries at an instant and retries after a delay
        commit(WorkflowStep.builder(g.workflowId(), 1)
                .complete(c.get(0))
                .settle(c.get(1), Settlement.fail())
                .settle(c.get(2), Settlement.cancel())
                .settle(c.get(3), Settlement.retryAt(2, at.plusSeconds(30)))
                .settle(c.get(4), Settlement.retryAfter(3, Duration.ofSeconds(90)))
                .build());

        // then each row is in its new state, its claim cleared
        assertState(c.get(0).dispatchKey(), OutboxStatus.DONE, 0, c.get(0).visibleAfter());
        assertState(c.get(1).dispatchKey(), OutboxStatus.FAILED, 0, c.get(1).visibleAfter());
        assertState(c.get(2).dispatchKey(), OutboxStatus.CANCELLED, 0, c.get(2).visibleAfter());
        assertState(c.get(3).dispatchKey(), OutboxStatus.PENDING, 2, at.plusSeconds(30));
        assertState(c.get(4).dispatchKey(), OutboxStatus.PENDING, 3, at.plusSeconds(90));
        assertThat(claims()).isEmpty();
        // and the three settled rows were settled at the store clock: not before it, before the next nanosecond
        StepVerifier.create(store.pruneSettled(at, 10))
                .expectNext(0L)
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.pruneSettled(at.plusNanos(1), 10))
                .expectNext(3L)
                .expectComplete()
                .verify(TIMEOUT);
    }

    /** W8, O58: a retry after a delay is visible the delay after the clock when the step commits. */
    @Test
    void W8_a_retry_after_a_delay_counts_from_the_clock_when_the_step_commits() {
        // given a claimed row and a step retrying it after five minutes, built and called but not subscribed
        Given g = given(1, 1);
        Publisher<Void> commit = store.commitStep(WorkflowStep.builder(g.workflowId(), 1)
                .settle(g.first(), Settlement.retryAfter(1, Duration.ofMinutes(5)))
                .build());

        // when the clock moves on and the step is then subscribed
        Instant at = clock.advance(Duration.ofMinutes(10));
        StepVerifier.create(commit).expectComplete().verify(TIMEOUT);

        // then the row is visible five minutes after the clock at the commit
        assertState(g.first().dispatchKey(), OutboxStatus.PENDING, 1, at.plus(Duration.ofMinutes(5)));
    }

    // ---------------------------------------------------------------- W9: timers

    /** W9, T1: a step creates, replaces and deletes timers; deleting a missing timer is no error. */
    @Test
    void W9_a_step_schedules_replaces_and_cancels_timers() {
        // given a workflow with the timers deadline and reminder, and another workflow's deadline
        Given g = given(1, 0);
        WorkflowId w = g.workflowId();
        WorkflowId other = OutboxFixtures.workflow(2);
        StepVerifier.create(store.scheduleTimer(other, DEADLINE, now().plusSeconds(7)))
                .expectComplete()
                .verify(TIMEOUT);

        // when a step moves deadline, cancels reminder, creates a new timer and cancels a missing one
        commit(WorkflowStep.builder(w, 1)
                .scheduleTimer(DEADLINE, now().plusSeconds(30))
                .cancelTimer(REMINDER)
                .scheduleTimer(TimerId.anonymous(1), now().plusSeconds(40))
                .cancelTimer(TimerId.named("never-scheduled"))
                .build());

        // then the workflow has the moved deadline and the new timer, and the other workflow is untouched
        assertThat(timers(w))
                .containsExactlyInAnyOrderEntriesOf(Map.of(
                        DEADLINE.canonicalText(), now().plusSeconds(30),
                        TimerId.anonymous(1).canonicalText(), now().plusSeconds(40)));
        assertThat(timers(other)).containsExactly(Map.entry(DEADLINE.canonicalText(), now().plusSeconds(7)));
    }

    // ---------------------------------------------------------------- W10: wake-ups

    /** W10, O52: a step that stages a row, or retries one, wakes an idle claim stream. */
    @Test
    void W10_a_step_that_stages_or_retries_a_row_wakes_an_idle_claim_stream() throws Exception {
        // given a workflow with a claimed row, and an idle stream with demand and a one-hour poll
        Given g = given(1, 1);
        WorkflowId w = g.workflowId();
        ClaimStreamProbe probe = ClaimStreamProbe.subscribe(
                store.claimStream(ClaimStreamOptions.defaults().withPollInterval(HOUR)));
        try {
            probe.request(2);
            probe.expectNothingFor(QUIET);

            // when a step stages a row visible now, then the stream claims it within seconds
            commit(WorkflowStep.builder(w, 1)
                    .append(signal(w, 2, now()))
                    .stage(row(w, 1, now()))
                    .build());
            assertThat(probe.next(PROMPTLY).dispatchKey()).isEqualTo(OutboxRow.dispatchKey(w, 1));

            // when a step retries the claimed row visible now, then the stream claims it within seconds
            commit(WorkflowStep.builder(w, 2)
                    .settle(g.first(), Settlement.retryAt(1, now()))
                    .build());
            assertThat(probe.next(PROMPTLY).dispatchKey()).isEqualTo(g.first().dispatchKey());
            probe.assertLive();
        } finally {
            probe.dispose();
        }
    }

    // ---------------------------------------------------------------- W11: order

    /** W11: of concurrent steps at one head exactly one commits; the others conflict and write nothing. */
    @Test
    void W11_of_concurrent_steps_at_one_head_exactly_one_commits() {
        // given a workflow at head 1
        Given g = given(1, 0);
        WorkflowId w = g.workflowId();

        // when four steps at head 1, each staging its own row and timer, commit at once
        int n = 4;
        List<Supplier<? extends Publisher<?>>> steps = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            WorkflowStep step = WorkflowStep.builder(w, 1)
                    .append(signal(w, 2, now()))
                    .stage(row(w, 10 + i, now()))
                    .scheduleTimer(TimerId.anonymous(10 + i), now())
                    .build();
            steps.add(() -> store.commitStep(step));
        }
        List<Throwable> outcomes = concurrently(steps);

        // then exactly one committed; each other failed with the conflict and staged nothing
        assertThat(outcomes.stream().filter(Objects::isNull).count())
                .as("committed steps")
                .isEqualTo(1);
        for (int i = 0; i < n; i++) {
            if (outcomes.get(i) == null) {
                assertStatus(OutboxRow.dispatchKey(w, 10 + i), OutboxStatus.PENDING);
                assertThat(timers(w)).containsKey(TimerId.anonymous(10 + i).canonicalText());
            } else {
                assertThat(outcomes.get(i)).isEqualTo(new SequenceConflictException(1, 2));
                assertAbsent(OutboxRow.dispatchKey(w, 10 + i));
                assertThat(timers(w))
                        .doesNotContainKey(TimerId.anonymous(10 + i).canonicalText());
            }
        }
        assertThat(head(w)).isEqualTo(2);
    }

    /** W11, E3: writes after a step see the head it left, and a step after an append sees the append's. */
    @Test
    void W11_the_workflows_other_writes_are_ordered_with_its_steps_by_the_head() {
        // given a workflow at head 1 and a step that takes it to head 3
        Given g = given(1, 1);
        WorkflowId w = g.workflowId();
        commit(WorkflowStep.builder(w, 1)
                .append(signal(w, 2, now()), signal(w, 3, now()))
                .complete(g.first())
                .build());

        // when an append expects the head before the step, then it conflicts with the step's head
        assertThat(KitSupport.failure(
                        store.append(w, List.of(signal(w, 2, now())), 1), SequenceConflictException.class))
                .isEqualTo(new SequenceConflictException(1, 3));
        // when an append expects the step's head, then it commits
        StepVerifier.create(store.append(w, List.of(signal(w, 4, now())), 3))
                .expectComplete()
                .verify(TIMEOUT);
        // when a step expects the head before that append, then it conflicts and writes nothing
        assertThat(refused(
                        g,
                        WorkflowStep.builder(w, 3)
                                .append(signal(w, 4, now()))
                                .stage(row(w, 1, now()))
                                .build(),
                        SequenceConflictException.class))
                .isEqualTo(new SequenceConflictException(3, 4));
        // and a step at the append's head commits
        commit(WorkflowStep.builder(w, 4).append(signal(w, 5, now())).build());
        assertThat(head(w)).isEqualTo(5);
        assertThat(KitSupport.history(store, w)).extracting(Event::seq).containsExactly(1L, 2L, 3L, 4L, 5L);
    }

    // ---------------------------------------------------------------- fixtures

    /**
     * A step of {@code g}'s workflow with a part of every kind: two events after {@code expectedSeq},
     * a staged row (ordinal 11), a completed and a failed claimed row, a new timer and a cancelled one.
     */
    private WorkflowStep.Builder full(Given g, long expectedSeq) {
        WorkflowId w = g.workflowId();
        return WorkflowStep.builder(w, expectedSeq)
                .append(signal(w, expectedSeq + 1, now()), signal(w, expectedSeq + 2, now()))
                .stage(row(w, 11, now()))
                .complete(g.claimed().get(0))
                .settle(g.claimed().get(1), Settlement.fail())
                .scheduleTimer(TimerId.named("next"), now().plusSeconds(60))
                .cancelTimer(DEADLINE);
    }

    /** A {@code WorkflowStarted} whose workflow type is {@code type}, which may not be storable. */
    static Event startedOfType(WorkflowId w, long seq, String type) {
        return new WorkflowStarted(
                new EventEnvelope(seq, Instant.parse("2026-06-03T00:00:00Z"), w),
                type,
                Payload.json("{}"),
                OutboxFixtures.RUN,
                null,
                new PackageVersion("v1"));
    }
}
