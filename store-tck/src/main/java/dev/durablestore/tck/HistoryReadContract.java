package dev.durablestore.tck;

import static dev.durablestore.tck.KitSupport.TIMEOUT;
import static dev.durablestore.tck.KitSupport.given;
import static dev.durablestore.tck.KitSupport.history;
import static dev.durablestore.tck.KitSupport.historyFrom;
import static dev.durablestore.tck.KitSupport.wid;
import static dev.durablestore.tck.KitSupport.workflowIds;
import static dev.durablestore.tck.TestEvents.t;
import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.Payload;
import dev.durablestore.api.TimerId;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.event.EventKind;
import dev.durablestore.api.event.SignalReceived;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

/**
 * Contract group R, histories (R1–R7, R9), and the model's round-trip fidelity through the store
 * (M7, M9, M20, S13). R8 (the range read is an index range scan) is backend-specific and left to
 * each backend's own tests.
 */
public abstract class HistoryReadContract extends ContractTestSupport {

    private final WorkflowId w = WorkflowId.random();

    /** Start, activity scheduled, signal, completed: the catalogue's four-event history. */
    private List<Event> givenFourEvents() {
        TestEvents ev = TestEvents.of(w);
        List<Event> events = List.of(
                ev.started("checkout", t(1)),
                ev.activityScheduled(2, "charge"),
                ev.signalReceived("approve"),
                ev.completed(t(4)));
        given(store, events);
        return events;
    }

    // ------------------------------------------------------------------ R1 / R2

    @Test
    public void R1_C1_appended_events_read_back_in_order() {
        // given
        assertThat(history(store, w)).isEmpty();
        TestEvents ev = TestEvents.of(w);
        List<Event> events = List.of(
                ev.started("checkout", t(1)),
                ev.activityScheduled(2, "charge"),
                ev.timerStarted(TimerId.anonymous(3), t(60)),
                ev.signalReceived("approve"));
        // when
        given(store, events);
        // then
        StepVerifier.create(store.readHistory(w))
                .expectNext(events.get(0), events.get(1), events.get(2), events.get(3))
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    public void R1_C61_history_of_several_batches_is_in_seq_order() {
        // given
        TestEvents ev = TestEvents.of(w);
        Event start = ev.started("checkout");
        Event signal = ev.signalReceived("a");
        Event done = ev.completed();
        given(store, List.of(start));
        given(store, List.of(signal));
        given(store, List.of(done));
        // then
        assertThat(history(store, w)).containsExactly(start, signal, done);
    }

    @Test
    public void R1_histories_of_other_workflows_are_not_mixed_in() {
        // given
        WorkflowId other = WorkflowId.random();
        TestEvents ev = TestEvents.of(w);
        TestEvents ov = TestEvents.of(other);
        List<Event> mine = List.of(ev.started("a"), ev.signalReceived("x"));
        List<Event> theirs = List.of(ov.started("b"), ov.signalReceived("y"), ov.completed());
        given(store, mine);
        given(store, theirs);
        // then
        assertThat(history(store, w)).isEqualTo(mine);
        assertThat(history(store, other)).isEqualTo(theirs);
        assertThat(historyFrom(store, w, 2)).containsExactly(mine.get(1));
    }

    @Test
    public void R2_C60_unknown_workflow_reads_empty_without_error() {
        // when / then
        StepVerifier.create(store.readHistory(w)).expectComplete().verify(TIMEOUT);
        StepVerifier.create(store.readHistory(WorkflowId.nil()))
                .expectComplete()
                .verify(TIMEOUT);
    }

    // ------------------------------------------------------------------ R3–R7 range reads

    @Test
    public void R3_C2_read_from_the_middle_returns_the_ordered_suffix() {
        // given
        List<Event> events = givenFourEvents();
        // when / then
        StepVerifier.create(store.readHistoryFrom(w, 3))
                .expectNext(events.get(2), events.get(3))
                .expectComplete()
                .verify(TIMEOUT);
        assertThat(historyFrom(store, w, 2)).isEqualTo(events.subList(1, 4));
    }

    @Test
    public void R4_C3_read_from_one_or_below_equals_the_full_read() {
        // given
        List<Event> events = givenFourEvents();
        // then
        assertThat(historyFrom(store, w, 1)).isEqualTo(history(store, w)).isEqualTo(events);
        assertThat(historyFrom(store, w, 0)).isEqualTo(events);
    }

    @Test
    public void R5_C4_read_beyond_the_head_is_empty_not_an_error() {
        // given
        givenFourEvents();
        // when / then
        StepVerifier.create(store.readHistoryFrom(w, 5)).expectComplete().verify(TIMEOUT);
        StepVerifier.create(store.readHistoryFrom(w, 104)).expectComplete().verify(TIMEOUT);
        StepVerifier.create(store.readHistoryFrom(w, Long.MAX_VALUE))
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    public void R6_C7_read_from_the_head_returns_only_the_head_event() {
        // given
        List<Event> events = givenFourEvents();
        // then
        assertThat(historyFrom(store, w, 4)).containsExactly(events.get(3));
    }

    @Test
    public void R6_C6_single_event_history_boundaries() {
        // given
        Event start = TestEvents.of(w).started("checkout");
        given(store, List.of(start));
        // then
        assertThat(historyFrom(store, w, 1)).containsExactly(start);
        assertThat(historyFrom(store, w, 2)).isEmpty();
    }

    @Test
    public void R7_C5_unknown_workflow_reads_empty_from_any_seq() {
        // given: another workflow has history, so the store is not empty
        givenFourEvents();
        WorkflowId unknown = WorkflowId.random();
        // then
        for (long from : new long[] {0, 1, 2, 5, Long.MAX_VALUE}) {
            StepVerifier.create(store.readHistoryFrom(unknown, from))
                    .expectComplete()
                    .verify(TIMEOUT);
        }
    }

    // ------------------------------------------------------------------ R9 listing

    @Test
    public void R9_C14_list_workflow_ids_includes_running_and_terminal_histories_once() {
        // given: one running, one completed in two batches
        WorkflowId running = wid("00000000-0000-0000-0000-000000000001");
        WorkflowId completed = wid("00000000-0000-0000-0000-000000000002");
        given(store, List.of(TestEvents.of(running).started("a")));
        TestEvents ev = TestEvents.of(completed);
        given(store, List.of(ev.started("b")));
        given(store, List.of(ev.signalReceived("x"), ev.completed()));
        // then
        assertThat(workflowIds(store)).containsExactly(running, completed);
    }

    @Test
    public void R9_M3_C87_workflow_ids_are_ordered_by_canonical_text_not_uuid_compare() {
        // given: UUID#compareTo (signed) would put the 8… and f… ids first
        WorkflowId low = wid("00000000-0000-0000-0000-000000000001");
        WorkflowId mid = wid("7fffffff-ffff-ffff-ffff-ffffffffffff");
        WorkflowId high = wid("80000000-0000-0000-0000-000000000000");
        WorkflowId top = wid("ffffffff-0000-0000-8000-000000000000");
        WorkflowId lowTail = wid("00000000-0000-0000-8000-000000000000");
        for (WorkflowId id : List.of(top, high, mid, low, lowTail)) {
            given(store, List.of(TestEvents.of(id).started("t")));
        }
        // then
        assertThat(workflowIds(store)).containsExactly(low, lowTail, mid, high, top);
    }

    // ------------------------------------------------------------------ M20 round trip

    @Test
    public void M20_every_one_of_the_31_kinds_round_trips_field_by_field() {
        // given
        List<Event> events = TestEvents.of(w).everyKind();
        assertThat(events.stream()
                        .map(Event::kind)
                        .collect(Collectors.toCollection(() -> EnumSet.noneOf(EventKind.class))))
                .as("the kit builds one event of every kind")
                .containsExactlyInAnyOrder(EventKind.values());
        // when
        given(store, events);
        // then
        List<Event> read = history(store, w);
        assertThat(read).hasSize(31);
        for (int i = 0; i < events.size(); i++) {
            assertThat(read.get(i)).as("%s", events.get(i).kind()).isEqualTo(events.get(i));
            assertThat(read.get(i).getClass()).isEqualTo(events.get(i).getClass());
        }
    }

    @Test
    public void M20_every_kind_with_optional_fields_absent_round_trips_with_them_absent() {
        // given
        List<Event> events = TestEvents.of(w).everyKindWithoutOptionals();
        // when
        given(store, events);
        // then
        List<Event> read = history(store, w);
        for (int i = 0; i < events.size(); i++) {
            assertThat(read.get(i)).as("%s", events.get(i).kind()).isEqualTo(events.get(i));
        }
    }

    @Test
    public void M20_every_kind_round_trips_through_range_reads_too() {
        // given
        List<Event> events = TestEvents.of(w).everyKind();
        given(store, events);
        // then
        assertThat(historyFrom(store, w, 10)).isEqualTo(events.subList(9, 31));
    }

    @Test
    public void M7_payload_bytes_are_returned_exactly_as_given() {
        // given: payloads a JSON-re-encoding codec would alter, and bytes that are not JSON at all
        TestEvents ev = TestEvents.of(w);
        List<Event> events = new ArrayList<>();
        events.add(ev.started("payloads"));
        for (Payload payload : TestEvents.awkwardPayloads()) {
            events.add(ev.signalReceived("p", payload));
        }
        // when
        given(store, events);
        // then
        List<Event> read = history(store, w);
        assertThat(read).isEqualTo(events);
        for (int i = 1; i < events.size(); i++) {
            Payload expected = ((SignalReceived) events.get(i)).payload();
            Payload actual = ((SignalReceived) read.get(i)).payload();
            assertThat(actual.bytes()).isEqualTo(expected.bytes());
        }
    }

    @Test
    public void M9_S13_record_times_round_trip_to_the_nanosecond_and_are_never_restamped() {
        // given: times unlike the store clock, with every nanosecond digit used, and around the
        // epoch (the ends of the storable range are HistoryArgumentContract's S15 tests)
        List<Instant> times = List.of(
                Instant.parse("2026-06-03T02:30:00.123456789Z"),
                Instant.parse("2026-06-03T02:30:00Z"),
                Instant.parse("2026-06-03T02:30:00.000000001Z"),
                Instant.parse("2026-06-03T02:30:00.5Z"),
                Instant.parse("1969-12-31T23:59:59.999999999Z"),
                Instant.EPOCH,
                Instant.parse("1900-01-01T00:00:00.000000001Z"),
                Instant.parse("2200-12-31T23:59:59.999999999Z"));
        TestEvents ev = TestEvents.of(w);
        List<Event> events = new ArrayList<>();
        for (Instant time : times) {
            events.add(ev.at(time).signalReceived(time.toString()));
        }
        // when
        given(store, events);
        // then
        assertThat(history(store, w)).extracting(Event::recordedAt).containsExactlyElementsOf(times);
        assertThat(history(store, w)).isEqualTo(events);
    }
}
