package dev.durablestore.tck;

import static dev.durablestore.tck.OutboxFixtures.row;
import static dev.durablestore.tck.OutboxFixtures.signal;
import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.TimerId;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.WorkflowStep;
import dev.durablestore.api.event.Event;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Contract of the argument checks of a step (W2, X9, X10): {@code WorkflowStep.Builder.build()}
 * throws for a part that breaks a rule, and {@code commitStep} signals every part that cannot be
 * stored; either way the error is an {@code InvalidArgumentException} whose argument names the
 * part ({@code settles[1].delay}), and nothing is written.
 */
public abstract class StepArgumentContract extends StepContractSupport {

    /** W2: build() refuses the step's own arguments, naming them. */
    @Test
    void W2_build_refuses_a_null_workflow_a_negative_head_and_null_parts() {
        // given a workflow with a claimed row
        Given g = given(1, 1);
        WorkflowId w = g.workflowId();
        Stored before = stored(g, null);

        // when steps with a null workflow, a negative head or null parts are built, then each is refused
        buildRefused(() -> WorkflowStep.builder(null, 1).build(), "workflowId");
        buildRefused(() -> WorkflowStep.builder(w, -1).build(), "expectedSeq");
        buildRefused(
                () -> WorkflowStep.builder(w, 1)
                        .append(signal(w, 2, now()), null)
                        .build(),
                "events[1]");
        buildRefused(
                () -> WorkflowStep.builder(w, 1).stage(row(w, 1, now()), null).build(), "rows[1]");
        buildRefused(
                () -> WorkflowStep.builder(w, 1)
                        .complete(g.first())
                        .settle(null, Settlement.fail())
                        .build(),
                "settles[1]");
        buildRefused(() -> WorkflowStep.builder(w, 1).cancelTimer(null).build(), "timers[0].timerId");
        // and the builder's methods refuse a null list or instant at once, and a retry's Settlement a null
        // instant or delay when it is built
        buildRefused(() -> WorkflowStep.builder(w, 1).append((List<Event>) null), "events");
        buildRefused(() -> WorkflowStep.builder(w, 1).stage((List<OutboxRow>) null), "rows");
        buildRefused(() -> Settlement.retryAt(1, null), "visibleAfter");
        buildRefused(() -> Settlement.retryAfter(1, null), "delay");
        buildRefused(() -> WorkflowStep.builder(w, 1).scheduleTimer(DEADLINE, null), "fireAt");

        // then nothing was written
        assertThat(stored(g, null)).isEqualTo(before);
    }

    /** W2, W6: build() refuses settles that are not of a claim of this workflow, or settle a row twice. */
    @Test
    void W2_build_refuses_settles_not_from_a_claim_of_the_workflow_or_of_one_row_twice() {
        // given a workflow with two claimed rows, a pending row, and another workflow's claimed row
        Given g = given(1, 2);
        WorkflowId w = g.workflowId();
        OutboxRow pending = row(w, 7, now().plusSeconds(3600));
        stage(pending);
        Given other = given(2, 1);
        Stored before = stored(g, null);

        // when steps settle a row not from a claim, a row of another workflow, or one row twice
        // then build() refuses each, naming the settle and its field
        buildRefused(
                () -> WorkflowStep.builder(w, 1)
                        .complete(g.first())
                        .settle(pending, Settlement.retryAt(1, now()))
                        .build(),
                "settles[1].claimToken");
        buildRefused(
                () -> WorkflowStep.builder(w, 1)
                        .settle(row(w, 8, now()).withStatus(OutboxStatus.CLAIMED, now()), Settlement.cancel())
                        .build(),
                "settles[0].claimToken");
        buildRefused(
                () -> WorkflowStep.builder(w, 1)
                        .complete(g.first())
                        .settle(g.claimed().get(1), Settlement.fail())
                        .complete(other.first())
                        .build(),
                "settles[2].workflowId");
        buildRefused(
                () -> WorkflowStep.builder(w, 1)
                        .complete(g.first())
                        .settle(g.claimed().get(1), Settlement.fail())
                        .settle(g.first(), Settlement.retryAt(1, now()))
                        .build(),
                "settles[2].dispatchKey");

        // then nothing was written
        assertThat(stored(g, null)).isEqualTo(before);
        assertState(pending.dispatchKey(), OutboxStatus.PENDING, 0, pending.visibleAfter());
    }

    /** W2: build() refuses a negative attempt or delay, and a timer changed twice. */
    @Test
    void W2_build_refuses_negative_attempts_and_delays_and_a_timer_changed_twice() {
        // given a workflow with two claimed rows
        Given g = given(1, 2);
        WorkflowId w = g.workflowId();
        OutboxRow second = g.claimed().get(1);

        // when steps retry with a negative attempt or delay, settle without a settlement, or change
        // one timer twice, then each is refused: the retry when its Settlement is built
        buildRefused(() -> Settlement.retryAt(-1, now()), "nextAttempt");
        buildRefused(() -> Settlement.retryAfter(-1, Duration.ofSeconds(1)), "nextAttempt");
        buildRefused(() -> Settlement.retryAfter(1, Duration.ofSeconds(-1)), "delay");
        buildRefused(
                () -> WorkflowStep.builder(w, 1)
                        .complete(g.first())
                        .settle(second, null)
                        .build(),
                "settles[1].settlement");
        buildRefused(
                () -> WorkflowStep.builder(w, 1)
                        .scheduleTimer(DEADLINE, now())
                        .cancelTimer(TimerId.named("deadline"))
                        .build(),
                "timers[1].timerId");

        // then the rows are still claimed by their claims
        assertThat(claims()).hasSize(2);
    }

    /** W2, X9, E11, S15: commitStep signals the events it cannot store, naming them, and writes nothing. */
    @Test
    void W2_commitStep_signals_events_it_cannot_store_and_writes_nothing() {
        // given a workflow with a claimed row
        Given g = given(1, 1);
        WorkflowId w = g.workflowId();

        // when a step's event is of another workflow, cannot store its type, or was recorded out of range
        // then commitStep signals it naming the event, and nothing is written
        refusedNaming(
                g,
                withParts(g)
                        .append(signal(w, 2, now()), signal(OutboxFixtures.workflow(2), 3, now()))
                        .build(),
                "events[1].envelope.workflowId");
        refusedNaming(
                g,
                withParts(g)
                        .append(StepContract.startedOfType(w, 2, "bad\u0000type"))
                        .build(),
                "events[0].workflowType");
        refusedNaming(
                g,
                withParts(g)
                        .append(signal(w, 2, now()), signal(w, 3, Instant.MIN))
                        .build(),
                "events[1].recordedAt");
    }

    /** W2, W4, O6, S15: commitStep signals rows it cannot stage, naming them, and writes nothing. */
    @Test
    void W2_commitStep_signals_rows_it_cannot_store_and_writes_nothing() {
        // given a workflow with a claimed row
        Given g = given(1, 1);
        WorkflowId w = g.workflowId();

        // when a step stages a row with a text it cannot store, an instant out of range, or breaking O6
        // then commitStep signals it naming the row's field, and nothing is written
        refusedNaming(
                g,
                withParts(g)
                        .append(signal(w, 2, now()))
                        .stage(row(w, 1, now()), row(w, 2, now()).withRoute("ns", "queue\u0000", null))
                        .build(),
                "rows[1].taskQueue");
        refusedNaming(
                g,
                withParts(g)
                        .append(signal(w, 2, now()))
                        .stage(row(w, 1, Instant.MAX))
                        .build(),
                "rows[0].visibleAfter");
        refusedNaming(
                g,
                withParts(g)
                        .append(signal(w, 2, now()))
                        .stage(row(w, 1, now()).withStatus(OutboxStatus.PENDING, now()))
                        .build(),
                "rows[0].claimedAt");
    }

    /** W2, S15: commitStep signals a retry instant out of range and bad timers, naming them, and writes nothing. */
    @Test
    void W2_commitStep_signals_settle_instants_and_timers_it_cannot_store_and_writes_nothing() {
        // given a workflow with two claimed rows
        Given g = given(1, 2);
        WorkflowId w = g.workflowId();

        // when a step retries a row visible out of range, or schedules a timer it cannot store
        // then commitStep signals it naming the part, and nothing is written
        refusedNaming(
                g,
                step(g).complete(g.first())
                        .settle(g.claimed().get(1), Settlement.retryAt(1, Instant.MAX))
                        .build(),
                "settles[1].visibleAfter");
        refusedNaming(
                g,
                step(g).scheduleTimer(DEADLINE, now())
                        .scheduleTimer(REMINDER, Instant.MIN)
                        .build(),
                "timers[1].fireAt");
        refusedNaming(
                g, step(g).scheduleTimer(TimerId.named("bad\u0000name"), now()).build(), "timers[0].timerId.name");
        refusedNaming(g, step(g).cancelTimer(TimerId.named("x".repeat(2000))).build(), "timers[0].timerId.name");
        assertThat(head(w)).isEqualTo(1);
    }

    /**
     * W2, O58, S15: a retry delay that takes the row's visibility past the latest storable instant
     * is refused naming {@code settles[i].delay}, as {@code settleKeys} refuses it naming
     * {@code settlement.delay}, and the step writes nothing; a delay reaching exactly that instant
     * is kept.
     */
    @Test
    void W2_O58_commitStep_signals_a_retry_delay_too_long_to_store_and_writes_nothing() {
        // given a workflow with two claimed rows
        Given g = given(1, 2);
        OutboxRow second = g.claimed().get(1);
        Duration toLatest = Duration.between(now(), KitSupport.LATEST);

        // when a step retries the second row a nanosecond past the latest storable instant, or by far more
        // then commitStep signals it naming the settle's delay, and nothing is written
        refusedNaming(
                g,
                step(g).complete(g.first())
                        .settle(second, Settlement.retryAfter(1, toLatest.plusNanos(1)))
                        .build(),
                "settles[1].delay");
        refusedNaming(
                g,
                step(g).settle(second, Settlement.retryAfter(1, Duration.ofDays(365L * 1000)))
                        .complete(g.first())
                        .build(),
                "settles[0].delay");
        refusedNaming(
                g,
                step(g).settle(second, Settlement.retryAfter(1, Duration.ofSeconds(Long.MAX_VALUE)))
                        .build(),
                "settles[0].delay");
        // and settleKeys refuses the same delay naming the settlement's delay (O58)
        KitSupport.invalidArgument(
                () -> store.settleKeys(List.of(second.dispatchKey()), Settlement.retryAfter(1, toLatest.plusNanos(1))),
                "settlement.delay");
        assertThat(claims()).hasSize(2);

        // when the delay reaches exactly the latest storable instant, then the step commits
        commit(step(g).settle(second, Settlement.retryAfter(1, toLatest)).build());
        assertState(second.dispatchKey(), OutboxStatus.PENDING, 1, KitSupport.LATEST);
    }

    /** W2, X9: a null step is signalled, not thrown. */
    @Test
    void W2_X9_commitStep_signals_a_null_step() {
        Given g = given(1, 0);
        refusedNaming(g, null, "step");
    }

    // ---------------------------------------------------------------- fixtures

    /** A step of {@code g}'s workflow at head 1 completing its first row and changing a timer. */
    private WorkflowStep.Builder withParts(Given g) {
        return WorkflowStep.builder(g.workflowId(), 1)
                .complete(g.first())
                .scheduleTimer(TimerId.named("next"), now().plusSeconds(60));
    }

    /** A step of {@code g}'s workflow at head 1 with one event. */
    private WorkflowStep.Builder step(Given g) {
        return WorkflowStep.builder(g.workflowId(), 1).append(signal(g.workflowId(), 2, now()));
    }
}
