package dev.durablestore.tck;

import static dev.durablestore.tck.KitSupport.EARLIEST;
import static dev.durablestore.tck.KitSupport.LATEST;
import static dev.durablestore.tck.KitSupport.TIMEOUT;
import static dev.durablestore.tck.KitSupport.expired;
import static dev.durablestore.tck.KitSupport.given;
import static dev.durablestore.tck.KitSupport.history;
import static dev.durablestore.tck.KitSupport.invalidArgument;
import static dev.durablestore.tck.KitSupport.workflowIds;
import static dev.durablestore.tck.TestEvents.t;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.TimerEntry;
import dev.durablestore.api.TimerId;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.Event;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

/**
 * Contract group X for the event and timer stores (X9, X10, E11, S15): every invalid argument of
 * every history and timer method fails with an
 * {@link dev.durablestore.api.InvalidArgumentException} whose {@code argument()} and message name
 * the argument, delivered as {@code onError} (the method itself never throws), and nothing is
 * written.
 *
 * <p>Every test starts from a baseline — workflow {@code w} with a one-event history and one timer —
 * and checks afterwards that the baseline is all there is.
 */
public abstract class HistoryArgumentContract extends ContractTestSupport {

    private final WorkflowId w = WorkflowId.random();
    private final WorkflowId other = WorkflowId.random();
    private List<Event> baseline;
    private List<TimerEntry> baselineTimers;

    @BeforeEach
    void givenBaseline() {
        baseline = List.of(TestEvents.of(w).started("checkout", t(1)));
        given(store, baseline);
        StepVerifier.create(store.scheduleTimer(w, TimerId.named("baseline"), t(5)))
                .expectComplete()
                .verify(TIMEOUT);
        baselineTimers = List.of(new TimerEntry(w, TimerId.named("baseline"), t(5)));
    }

    /** A valid next batch for {@code w}: seq 2 and 3. */
    private List<Event> validBatch() {
        TestEvents ev = TestEvents.of(w, 1);
        return List.of(ev.signalReceived("a"), ev.signalReceived("b"));
    }

    private OutboxRow row(long ordinal) {
        return OutboxRow.pending(w, ordinal, "charge", TestEvents.json("{}"), clock.instant());
    }

    private void assertNothingWritten(OutboxRow... rows) {
        assertThat(history(store, w)).as("history of w").isEqualTo(baseline);
        assertThat(history(store, other)).as("history of the other workflow").isEmpty();
        assertThat(workflowIds(store)).containsExactly(w);
        assertThat(expired(store, LATEST)).as("timers").isEqualTo(baselineTimers);
        for (OutboxRow row : rows) {
            StepVerifier.create(store.rowState(row.dispatchKey()))
                    .as("row " + row.dispatchKey())
                    .expectComplete()
                    .verify(TIMEOUT);
        }
    }

    private static <T> List<T> withNull(List<T> list, int index) {
        List<T> copy = new ArrayList<>(list);
        copy.add(index, null);
        return copy;
    }

    // ------------------------------------------------------------------ append

    @Test
    public void X10_append_rejects_a_null_workflow_id() {
        // when / then (given: the baseline)
        invalidArgument(() -> store.append(null, validBatch(), 1), "workflowId");
        assertNothingWritten();
    }

    @Test
    public void X10_append_rejects_a_null_event_list() {
        // when / then (given: the baseline)
        invalidArgument(() -> store.append(w, null, 1), "events");
        assertNothingWritten();
    }

    @Test
    public void X10_append_rejects_a_null_event_in_the_list() {
        // when / then (given: the baseline)
        invalidArgument(() -> store.append(w, withNull(validBatch(), 1), 1), "events");
        invalidArgument(() -> store.append(w, Arrays.asList((Event) null), 1), "events");
        assertNothingWritten();
    }

    @Test
    public void X10_append_rejects_a_negative_expected_seq() {
        // when / then (given: the baseline)
        invalidArgument(() -> store.append(w, validBatch(), -1), "expectedSeq");
        invalidArgument(() -> store.append(w, List.of(), Long.MIN_VALUE), "expectedSeq");
        assertNothingWritten();
    }

    @Test
    public void E11_append_rejects_an_event_whose_envelope_names_another_workflow() {
        // given: a batch whose second event belongs to another workflow, and one entirely foreign
        TestEvents mine = TestEvents.of(w, 1);
        TestEvents foreign = TestEvents.of(other, 2);
        List<Event> mixed = List.of(
                mine.signalReceived("a"),
                foreign.signalReceived("b"),
                mine.skip(1).signalReceived("c"));
        List<Event> allForeign = List.of(TestEvents.of(other, 1).signalReceived("x"));
        // when / then
        invalidArgument(() -> store.append(w, mixed, 1), "events", "workflowId");
        invalidArgument(() -> store.append(w, allForeign, 1), "events", "workflowId");
        invalidArgument(() -> store.append(other, List.of(TestEvents.of(w).started("y")), 0), "events", "workflowId");
        assertNothingWritten();
    }

    @Test
    public void S15_append_rejects_a_record_time_out_of_the_stored_range() {
        // when / then (given: the baseline)
        for (Instant outOfRange : List.of(Instant.MAX, Instant.MIN)) {
            TestEvents ev = TestEvents.of(w, 1);
            List<Event> lastBad =
                    List.of(ev.signalReceived("fine"), ev.at(outOfRange).signalReceived("bad"));
            invalidArgument(() -> store.append(w, lastBad, 1), "events", "recordedAt");
            List<Event> firstBad = List.of(TestEvents.of(w, 1).at(outOfRange).signalReceived("bad"));
            invalidArgument(() -> store.append(w, firstBad, 1), "events", "recordedAt");
        }
        assertNothingWritten();
    }

    @Test
    public void S15_append_accepts_record_times_at_the_bounds_every_encoding_holds() {
        // given
        TestEvents ev = TestEvents.of(w, 1);
        List<Event> bounds = List.of(
                ev.at(EARLIEST).signalReceived("earliest"), ev.at(LATEST).signalReceived("latest"));
        // when
        StepVerifier.create(store.append(w, bounds, 1)).expectComplete().verify(TIMEOUT);
        // then
        assertThat(history(store, w).subList(1, 3)).isEqualTo(bounds);
    }

    @Test
    public void X10_E4_argument_validation_runs_before_the_guard() {
        // given: every call below also has a stale guard (expected 0, head 1)
        List<Event> withNullEvent = withNull(List.of(TestEvents.of(w).started("x")), 1);
        List<Event> foreign = List.of(TestEvents.of(other).started("x"));
        List<Event> outOfRange = List.of(TestEvents.of(w).at(Instant.MAX).started("x"));
        // then: the argument error wins over the sequence conflict
        invalidArgument(() -> store.append(w, withNullEvent, 0), "events");
        invalidArgument(() -> store.append(w, foreign, 0), "events", "workflowId");
        invalidArgument(() -> store.append(w, outOfRange, 0), "events", "recordedAt");
        invalidArgument(() -> store.appendWithOutbox(w, withNullEvent, 0, List.of()), "events");
        assertNothingWritten();
    }

    // ------------------------------------------------------------------ appendWithOutbox

    @Test
    public void X10_append_with_outbox_rejects_a_null_workflow_id() {
        // when / then (given: the baseline)
        OutboxRow row = row(2);
        invalidArgument(() -> store.appendWithOutbox(null, validBatch(), 1, List.of(row)), "workflowId");
        assertNothingWritten(row);
    }

    @Test
    public void X10_append_with_outbox_rejects_a_null_or_holey_event_list() {
        // when / then (given: the baseline)
        OutboxRow row = row(2);
        invalidArgument(() -> store.appendWithOutbox(w, null, 1, List.of(row)), "events");
        invalidArgument(() -> store.appendWithOutbox(w, withNull(validBatch(), 0), 1, List.of(row)), "events");
        assertNothingWritten(row);
    }

    @Test
    public void X10_append_with_outbox_rejects_a_negative_expected_seq() {
        // when / then (given: the baseline)
        OutboxRow row = row(2);
        invalidArgument(() -> store.appendWithOutbox(w, validBatch(), -1, List.of(row)), "expectedSeq");
        assertNothingWritten(row);
    }

    @Test
    public void X10_append_with_outbox_rejects_a_null_or_holey_row_list() {
        // when / then (given: the baseline)
        OutboxRow row = row(2);
        invalidArgument(() -> store.appendWithOutbox(w, validBatch(), 1, null), "rows");
        invalidArgument(() -> store.appendWithOutbox(w, validBatch(), 1, withNull(List.of(row), 1)), "rows");
        assertNothingWritten(row);
    }

    @Test
    public void E11_append_with_outbox_rejects_an_event_of_another_workflow() {
        // when / then (given: the baseline)
        OutboxRow row = row(2);
        List<Event> foreign = List.of(TestEvents.of(other, 1).signalReceived("x"));
        invalidArgument(() -> store.appendWithOutbox(w, foreign, 1, List.of(row)), "events", "workflowId");
        assertNothingWritten(row);
    }

    @Test
    public void S15_append_with_outbox_rejects_instants_out_of_the_stored_range() {
        // when / then (given: the baseline)
        OutboxRow row = row(2);
        List<Event> outOfRange = List.of(TestEvents.of(w, 1).at(Instant.MAX).signalReceived("x"));
        invalidArgument(() -> store.appendWithOutbox(w, outOfRange, 1, List.of(row)), "events", "recordedAt");
        OutboxRow farRow = row(3).withVisibleAfter(Instant.MAX);
        invalidArgument(() -> store.appendWithOutbox(w, validBatch(), 1, List.of(farRow)), "rows", "visibleAfter");
        OutboxRow earlyRow = row(4).withVisibleAfter(Instant.MIN);
        invalidArgument(() -> store.appendWithOutbox(w, validBatch(), 1, List.of(earlyRow)), "rows", "visibleAfter");
        assertNothingWritten(row, farRow, earlyRow);
    }

    @Test
    public void X10_append_with_outbox_rejects_a_row_breaking_O6() {
        // a claimed row without claimedAt, and a pending row with one
        OutboxRow claimedWithoutInstant = row(2).withStatus(OutboxStatus.CLAIMED, null);
        OutboxRow pendingWithInstant = row(3).withStatus(OutboxStatus.PENDING, clock.instant());
        invalidArgument(
                () -> store.appendWithOutbox(w, validBatch(), 1, List.of(claimedWithoutInstant)),
                "rows",
                "claimedAt",
                "status");
        invalidArgument(
                () -> store.appendWithOutbox(w, validBatch(), 1, List.of(pendingWithInstant)),
                "rows",
                "claimedAt",
                "status");
        assertNothingWritten(claimedWithoutInstant, pendingWithInstant);
    }

    // ------------------------------------------------------------------ reads

    @Test
    public void X10_read_history_rejects_a_null_workflow_id() {
        // when / then (given: the baseline)
        invalidArgument(() -> store.readHistory(null), "workflowId");
        assertNothingWritten();
    }

    @Test
    public void X10_read_history_from_rejects_a_null_workflow_id() {
        // when / then (given: the baseline)
        invalidArgument(() -> store.readHistoryFrom(null, 1), "workflowId");
        assertNothingWritten();
    }

    @Test
    public void X10_read_history_from_rejects_a_negative_from_seq() {
        // when / then (given: the baseline)
        invalidArgument(() -> store.readHistoryFrom(w, -1), "fromSeq");
        invalidArgument(() -> store.readHistoryFrom(w, Long.MIN_VALUE), "fromSeq");
        // while zero is valid and reads everything (R4)
        StepVerifier.create(store.readHistoryFrom(w, 0))
                .expectNextSequence(baseline)
                .expectComplete()
                .verify(TIMEOUT);
        assertNothingWritten();
    }

    @Test
    public void X10_read_head_rejects_a_null_workflow_id() {
        // when / then (given: the baseline)
        invalidArgument(() -> store.readHead(null), "workflowId");
        assertNothingWritten();
    }

    @Test
    public void X10_query_rejects_a_null_filter() {
        // when / then (given: the baseline)
        invalidArgument(() -> store.query(null), "filter");
        assertNothingWritten();
    }

    @Test
    public void X10_read_run_chain_rejects_a_null_workflow_id() {
        // when / then (given: the baseline)
        invalidArgument(() -> store.readRunChain(null), "workflowId");
        assertNothingWritten();
    }

    // ------------------------------------------------------------------ timers

    @Test
    public void X10_schedule_timer_rejects_a_null_workflow_id() {
        // when / then (given: the baseline)
        invalidArgument(() -> store.scheduleTimer(null, TimerId.named("t"), t(10)), "workflowId");
        assertNothingWritten();
    }

    @Test
    public void X10_schedule_timer_rejects_a_null_timer_id() {
        // when / then (given: the baseline)
        invalidArgument(() -> store.scheduleTimer(w, null, t(10)), "timerId");
        assertNothingWritten();
    }

    @Test
    public void X10_schedule_timer_rejects_a_null_fire_time() {
        // when / then (given: the baseline)
        invalidArgument(() -> store.scheduleTimer(w, TimerId.named("t"), null), "fireAt");
        assertNothingWritten();
    }

    @Test
    public void S15_schedule_timer_rejects_a_fire_time_out_of_the_stored_range() {
        // when / then (given: the baseline)
        invalidArgument(() -> store.scheduleTimer(w, TimerId.named("t"), Instant.MAX), "fireAt");
        invalidArgument(() -> store.scheduleTimer(w, TimerId.named("t"), Instant.MIN), "fireAt");
        // a reschedule of an existing timer out of range also leaves it as it was
        invalidArgument(() -> store.scheduleTimer(w, TimerId.named("baseline"), Instant.MAX), "fireAt");
        assertNothingWritten();
    }

    @Test
    public void S15_schedule_timer_accepts_the_bounds_every_encoding_holds() {
        // when
        StepVerifier.create(store.scheduleTimer(other, TimerId.anonymous(1), EARLIEST))
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.scheduleTimer(other, TimerId.anonymous(2), LATEST))
                .expectComplete()
                .verify(TIMEOUT);
        // then
        assertThat(expired(store, LATEST))
                .containsExactly(
                        new TimerEntry(other, TimerId.anonymous(1), EARLIEST),
                        baselineTimers.get(0),
                        new TimerEntry(other, TimerId.anonymous(2), LATEST));
    }

    @Test
    public void X10_expired_timers_rejects_a_null_instant() {
        // when / then (given: the baseline)
        invalidArgument(() -> store.expiredTimers(null), "asOf");
        assertNothingWritten();
    }

    @Test
    public void S15_expired_timers_rejects_an_instant_out_of_the_stored_range() {
        // when / then (given: the baseline)
        invalidArgument(() -> store.expiredTimers(Instant.MAX), "asOf");
        invalidArgument(() -> store.expiredTimers(Instant.MIN), "asOf");
        assertNothingWritten();
    }

    // ------------------------------------------------------------------ X9 laziness

    @Test
    @SuppressWarnings("CheckReturnValue") // publishers built and dropped on purpose
    public void X9_an_invalid_call_that_is_never_subscribed_has_no_effect() {
        // when: publishers built but not subscribed; building them must not throw either
        assertThatCode(() -> {
                    store.append(null, null, -1);
                    store.appendWithOutbox(w, null, -1, null);
                    store.scheduleTimer(null, null, null);
                    store.expiredTimers(null);
                    store.readHistoryFrom(null, -1);
                })
                .doesNotThrowAnyException();
        // then
        assertNothingWritten();
    }

    @Test
    @SuppressWarnings("CheckReturnValue") // publishers built and dropped on purpose
    public void X9_a_valid_call_that_is_never_subscribed_writes_nothing() {
        // when: a valid append and timer built but never subscribed (publishers are cold, 0.1)
        store.append(w, validBatch(), 1);
        store.scheduleTimer(w, TimerId.named("never"), t(1));
        // then
        assertNothingWritten();
    }
}
