package dev.durablestore.tck;

import static dev.durablestore.tck.OutboxFixtures.row;
import static dev.durablestore.tck.OutboxFixtures.started;
import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxRowState;
import dev.durablestore.api.TimerEntry;
import dev.durablestore.api.TimerId;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.WorkflowStep;
import dev.durablestore.api.event.Event;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import reactor.test.StepVerifier;

/**
 * Shared steps of the workflow-step contract classes (W1–W11): a workflow at head 1 with claimed
 * rows and two timers as the "given", a record of everything a step can write to check that a
 * refused step wrote nothing, and short forms of committing a step.
 */
abstract class StepContractSupport extends OutboxContractSupport {

    /** A timer every {@link #given} workflow has, due in an hour. */
    static final TimerId DEADLINE = TimerId.named("deadline");
    /** A second timer every {@link #given} workflow has, due in two hours. */
    static final TimerId REMINDER = TimerId.named("reminder");

    /**
     * A workflow the tests start from.
     *
     * @param workflowId the workflow, at head 1 (its {@code WorkflowStarted})
     * @param claimed its rows of ordinals {@code 0 … n-1}, each claimed, in ordinal order
     */
    record Given(WorkflowId workflowId, List<OutboxRow> claimed) {

        /** @return the first claimed row */
        OutboxRow first() {
            return claimed.get(0);
        }
    }

    /**
     * Everything a step of one workflow can change: its history, the states of the rows it or the
     * given stage or settle, every timer, and every current claim.
     */
    record Stored(
            List<Event> history,
            Map<String, Optional<OutboxRowState>> rows,
            List<TimerEntry> timers,
            List<String> claims) {}

    /**
     * Given: workflow {@code n} started (head 1) with {@code rowCount} rows staged in the same
     * append and claimed, and the timers {@link #DEADLINE} and {@link #REMINDER} scheduled.
     * Claims only this workflow's rows when no other rows are pending.
     */
    Given given(long n, int rowCount) {
        WorkflowId w = OutboxFixtures.workflow(n);
        List<OutboxRow> rows = new ArrayList<>();
        for (int i = 0; i < rowCount; i++) {
            rows.add(row(w, i, now()));
        }
        StepVerifier.create(store.appendWithOutbox(w, List.of(started(w, 1, now())), 0, rows))
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.scheduleTimer(w, DEADLINE, now().plus(Duration.ofHours(1))))
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.scheduleTimer(w, REMINDER, now().plus(Duration.ofHours(2))))
                .expectComplete()
                .verify(TIMEOUT);
        List<OutboxRow> claimed = new ArrayList<>(rowCount == 0 ? List.of() : claim(rowCount));
        assertThat(claimed)
                .as("rows of %s claimed", w)
                .hasSize(rowCount)
                .allSatisfy(r -> assertThat(r.workflowId()).isEqualTo(w));
        claimed.sort(Comparator.comparingLong(OutboxRow::ordinal));
        return new Given(w, List.copyOf(claimed));
    }

    /**
     * @param given the workflow the step is of
     * @param step the step (may be {@code null} while it is built)
     * @return what is stored now of everything the given and the step touch
     */
    Stored stored(Given given, WorkflowStep step) {
        Set<String> keys = new LinkedHashSet<>(OutboxFixtures.keys(given.claimed()));
        if (step != null) {
            for (OutboxRow r : step.rows()) {
                if (r != null) {
                    keys.add(r.dispatchKey());
                }
            }
        }
        return new Stored(
                KitSupport.history(store, given.workflowId()),
                snapshot(keys),
                KitSupport.expired(store, KitSupport.LATEST),
                claims());
    }

    /** @return every claimed row as {@code key#token}, in key order */
    List<String> claims() {
        return KitSupport.collect(store.listStaleClaimed(KitSupport.LATEST, 10_000)
                        .map(r -> r.dispatchKey() + "#" + r.claimToken()))
                .stream()
                .sorted()
                .toList();
    }

    /** Commits {@code step} and fails the test unless it completes. */
    void commit(WorkflowStep step) {
        StepVerifier.create(store.commitStep(step)).expectComplete().verify(TIMEOUT);
    }

    /**
     * Commits {@code step}, expects it to fail with {@code type}, and checks that it wrote nothing.
     *
     * @return the error
     */
    <E extends Throwable> E refused(Given given, WorkflowStep step, Class<E> type) {
        Stored before = stored(given, step);
        E e = KitSupport.failure(store.commitStep(step), type);
        assertThat(stored(given, step))
                .as("what is stored after %s was refused with %s", step, e)
                .isEqualTo(before);
        return e;
    }

    /**
     * Commits {@code step}, expects an {@link InvalidArgumentException} signalled (never thrown, X9)
     * naming exactly {@code argument}, and checks that it wrote nothing (W2).
     */
    void refusedNaming(Given given, WorkflowStep step, String argument) {
        Stored before = stored(given, step);
        InvalidArgumentException e = KitSupport.invalidArgument(() -> store.commitStep(step), argument);
        assertThat(e.argument()).as("argument() of %s", e.getMessage()).isEqualTo(argument);
        assertThat(stored(given, step))
                .as("what is stored after %s was refused", step)
                .isEqualTo(before);
    }

    /** @return the fire time of each timer of {@code w}, by canonical timer-id text */
    Map<String, Instant> timers(WorkflowId w) {
        Map<String, Instant> timers = new java.util.TreeMap<>();
        for (TimerEntry t : KitSupport.expired(store, KitSupport.LATEST)) {
            if (t.workflowId().equals(w)) {
                timers.put(t.timerId().canonicalText(), t.fireAt());
            }
        }
        return timers;
    }

    /** @return the head of {@code w} */
    long head(WorkflowId w) {
        return KitSupport.head(store, w);
    }
}
