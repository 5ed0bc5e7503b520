package dev.durablestore.tck;

import static dev.durablestore.tck.KitSupport.TIMEOUT;
import static dev.durablestore.tck.KitSupport.expired;
import static dev.durablestore.tck.KitSupport.history;
import static dev.durablestore.tck.KitSupport.wid;
import static dev.durablestore.tck.KitSupport.workflowIds;
import static dev.durablestore.tck.TestEvents.t;
import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.TimerEntry;
import dev.durablestore.api.TimerId;
import dev.durablestore.api.WorkflowId;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

/** Contract group T: durable timers (T1–T9). */
public abstract class TimerContract extends ContractTestSupport {

    private final WorkflowId w = WorkflowId.random();

    private void schedule(WorkflowId workflowId, TimerId timerId, Instant fireAt) {
        StepVerifier.create(store.scheduleTimer(workflowId, timerId, fireAt))
                .expectComplete()
                .verify(TIMEOUT);
    }

    private List<TimerEntry> all() {
        return expired(store, KitSupport.LATEST);
    }

    // ------------------------------------------------------------------ T1 upsert

    @Test
    public void T1_T8_C20_C93_rescheduling_replaces_the_fire_time() {
        // given
        TimerId timer = TimerId.named("deadline");
        schedule(w, timer, t(10));
        // when
        schedule(w, timer, t(30));
        // then
        assertThat(expired(store, t(10))).isEmpty();
        assertThat(expired(store, t(30))).containsExactly(new TimerEntry(w, timer, t(30)));
    }

    @Test
    public void T1_C175_many_schedules_of_one_key_leave_exactly_one_timer_with_the_latest_fire_time() {
        // given
        TimerId timer = TimerId.anonymous(7);
        Instant latest = Instant.parse("2026-06-03T02:30:00Z");
        // when: later, earlier, and finally the latest call
        schedule(w, timer, Instant.parse("2026-06-03T01:00:00Z"));
        schedule(w, timer, Instant.parse("2026-06-04T00:00:00Z"));
        schedule(w, timer, Instant.parse("2026-06-02T00:00:00Z"));
        schedule(w, timer, latest);
        // then
        assertThat(all()).containsExactly(new TimerEntry(w, timer, latest));
    }

    @Test
    public void T1_rescheduling_to_an_earlier_time_makes_the_timer_due_sooner() {
        // given
        TimerId timer = TimerId.named("retry");
        schedule(w, timer, t(100));
        // when
        schedule(w, timer, t(5));
        // then
        assertThat(expired(store, t(5))).containsExactly(new TimerEntry(w, timer, t(5)));
    }

    // ------------------------------------------------------------------ T2 no history needed

    @Test
    public void T2_C19_a_timer_needs_no_history_and_creates_none() {
        // when
        schedule(w, TimerId.anonymous(1), t(10));
        // then
        assertThat(expired(store, t(10))).containsExactly(new TimerEntry(w, TimerId.anonymous(1), t(10)));
        assertThat(history(store, w)).isEmpty();
        assertThat(workflowIds(store)).isEmpty();
    }

    // ------------------------------------------------------------------ T3 due test

    @Test
    public void T3_C19_C94_expired_includes_the_boundary_and_excludes_the_future() {
        // given
        schedule(w, TimerId.anonymous(3), t(30));
        schedule(w, TimerId.anonymous(2), t(20));
        schedule(w, TimerId.anonymous(1), t(10));
        // when / then
        StepVerifier.create(store.expiredTimers(t(20)))
                .expectNext(new TimerEntry(w, TimerId.anonymous(1), t(10)))
                .expectNext(new TimerEntry(w, TimerId.anonymous(2), t(20)))
                .expectComplete()
                .verify(TIMEOUT);
        assertThat(expired(store, t(9))).isEmpty();
    }

    @Test
    public void T3_C176_due_test_spans_workflows() {
        // given: three workflows at 11:00, 12:00, 13:00
        WorkflowId a = wid("00000000-0000-0000-0000-00000000000a");
        WorkflowId b = wid("00000000-0000-0000-0000-00000000000b");
        WorkflowId c = wid("00000000-0000-0000-0000-00000000000c");
        schedule(a, TimerId.named("x"), Instant.parse("2026-06-03T11:00:00Z"));
        schedule(b, TimerId.named("x"), Instant.parse("2026-06-03T12:00:00Z"));
        schedule(c, TimerId.named("x"), Instant.parse("2026-06-03T13:00:00Z"));
        // when
        List<TimerEntry> due = expired(store, Instant.parse("2026-06-03T12:00:00Z"));
        // then
        assertThat(due).extracting(TimerEntry::workflowId).containsExactly(a, b);
        assertThat(due)
                .allSatisfy(e -> assertThat(e.fireAt()).isBeforeOrEqualTo(Instant.parse("2026-06-03T12:00:00Z")));
    }

    @Test
    public void T3_S11_due_test_is_exact_to_the_nanosecond() {
        // given: a timer one nanosecond after a whole second, and one half a second after it
        Instant whole = Instant.parse("2026-06-03T10:00:00Z");
        schedule(w, TimerId.named("nano"), whole.plusNanos(1));
        schedule(w, TimerId.named("half"), whole.plusMillis(500));
        // then
        assertThat(expired(store, whole)).isEmpty();
        assertThat(expired(store, whole.plusNanos(1)))
                .extracting(TimerEntry::timerId)
                .containsExactly(TimerId.named("nano"));
        assertThat(expired(store, whole.plusMillis(499))).hasSize(1);
        assertThat(expired(store, whole.plusMillis(500))).hasSize(2);
    }

    // ------------------------------------------------------------------ T4 order

    @Test
    public void T4_ordered_by_fire_time_then_workflow_id_text_then_timer_id_text() {
        // given: two workflows whose text order differs from UUID#compareTo, timers at two times
        WorkflowId low = wid("00000000-0000-0000-0000-000000000001");
        WorkflowId high = wid("80000000-0000-0000-0000-000000000000");
        List<TimerEntry> expected = List.of(
                new TimerEntry(high, TimerId.named("first"), t(1)),
                new TimerEntry(low, TimerId.anonymous(10), t(2)),
                new TimerEntry(low, TimerId.anonymous(9), t(2)),
                new TimerEntry(low, TimerId.named("a"), t(2)),
                new TimerEntry(high, TimerId.anonymous(1), t(2)),
                new TimerEntry(high, TimerId.named("b"), t(2)),
                new TimerEntry(low, TimerId.anonymous(0), t(3)));
        List<TimerEntry> shuffled = new ArrayList<>(expected);
        Collections.reverse(shuffled);
        for (TimerEntry e : shuffled) {
            schedule(e.workflowId(), e.timerId(), e.fireAt());
        }
        // then
        assertThat(all()).containsExactlyElementsOf(expected);
    }

    @Test
    public void T4_C94_anonymous_ten_precedes_anonymous_nine_and_anonymous_precedes_named() {
        // given: one workflow, one fire time, ids whose text order differs from numeric and JSON order
        Instant at = t(50);
        List<TimerId> textOrder = List.of(
                TimerId.anonymous(10),
                TimerId.anonymous(3),
                TimerId.anonymous(30),
                TimerId.anonymous(9),
                TimerId.named("3"),
                TimerId.named("a"),
                TimerId.named("a b"),
                TimerId.named("ab"));
        List<TimerId> shuffled = new ArrayList<>(textOrder);
        Collections.reverse(shuffled);
        for (TimerId id : shuffled) {
            schedule(w, id, at);
        }
        // then
        assertThat(expired(store, at)).extracting(TimerEntry::timerId).containsExactlyElementsOf(textOrder);
    }

    @Test
    public void T4_timer_text_order_is_unicode_code_point_order() {
        // given: U+FF61 sorts before U+1F600 by code point, but after it by UTF-16 unit (String#compareTo)
        Instant at = t(50);
        TimerId bmp = TimerId.named("\uff61");
        TimerId astral = TimerId.named("\ud83d\ude00");
        TimerId ascii = TimerId.named("z");
        schedule(w, astral, at);
        schedule(w, bmp, at);
        schedule(w, ascii, at);
        // then
        assertThat(expired(store, at)).extracting(TimerEntry::timerId).containsExactly(ascii, bmp, astral);
    }

    @Test
    public void T4_S11_fire_time_order_is_time_order_at_sub_second_precision() {
        // given
        Instant whole = Instant.parse("2026-06-03T10:00:00Z");
        schedule(w, TimerId.named("a"), whole.plusMillis(500));
        schedule(w, TimerId.named("b"), whole);
        schedule(w, TimerId.named("c"), whole.plusNanos(1));
        schedule(w, TimerId.named("d"), Instant.parse("1969-12-31T23:59:59.999999999Z"));
        // then
        assertThat(all())
                .extracting(TimerEntry::timerId)
                .containsExactly(TimerId.named("d"), TimerId.named("b"), TimerId.named("c"), TimerId.named("a"));
    }

    // ------------------------------------------------------------------ T5 read-only

    @Test
    public void T5_expired_timers_is_read_only() {
        // given
        schedule(w, TimerId.named("x"), t(10));
        schedule(w, TimerId.named("y"), t(20));
        // when
        List<TimerEntry> first = expired(store, t(20));
        List<TimerEntry> second = expired(store, t(20));
        // then
        assertThat(first).hasSize(2).isEqualTo(second);
        assertThat(expired(store, t(10))).hasSize(1);
    }

    // ------------------------------------------------------------------ T6 precision

    @Test
    public void T6_S13_C177_fire_time_round_trips_to_the_nanosecond() {
        // given
        List<Instant> times = List.of(
                Instant.parse("2026-06-03T02:30:00Z"),
                Instant.parse("2026-06-03T02:30:00.123456789Z"),
                Instant.parse("2026-06-03T02:30:00.000000001Z"),
                Instant.parse("1969-12-31T23:59:59.999999999Z"),
                Instant.parse("1900-01-01T00:00:00.000000001Z"),
                Instant.parse("2200-12-31T23:59:59.999999999Z"));
        for (int i = 0; i < times.size(); i++) {
            schedule(w, TimerId.anonymous(i), times.get(i));
        }
        // then
        assertThat(all()).extracting(TimerEntry::fireAt).containsExactlyInAnyOrderElementsOf(times);
        for (int i = 0; i < times.size(); i++) {
            assertThat(all()).contains(new TimerEntry(w, TimerId.anonymous(i), times.get(i)));
        }
    }

    // ------------------------------------------------------------------ T7 durability

    @Test
    public void T7_C80_timers_survive_closing_and_reopening() {
        // given
        schedule(w, TimerId.anonymous(10), t(50));
        schedule(w, TimerId.anonymous(11), t(500));
        schedule(w, TimerId.named("n"), Instant.parse("2026-06-03T02:30:00.123456789Z"));
        List<TimerEntry> before = all();
        // when
        store.close();
        ReactiveStore reopened = harness.open();
        // then
        assertThat(expired(reopened, t(100))).containsExactly(new TimerEntry(w, TimerId.anonymous(10), t(50)));
        assertThat(expired(reopened, KitSupport.LATEST)).isEqualTo(before);
    }

    // ------------------------------------------------------------------ T8 / T9

    @Test
    public void T8_rescheduled_later_timer_is_not_expired_at_its_earlier_time() {
        // given
        TimerId timer = TimerId.anonymous(4);
        schedule(w, timer, t(10));
        assertThat(expired(store, t(10))).hasSize(1);
        // when
        schedule(w, timer, t(10).plusNanos(1));
        // then
        assertThat(expired(store, t(10))).isEmpty();
        assertThat(expired(store, t(11))).containsExactly(new TimerEntry(w, timer, t(10).plusNanos(1)));
    }

    @Test
    public void T9_timers_of_other_workflows_or_ids_are_independent_entries() {
        // given: the same id on two workflows, two ids on one workflow, and Named("3") beside Anonymous(3)
        WorkflowId other = WorkflowId.random();
        schedule(w, TimerId.named("x"), t(10));
        schedule(other, TimerId.named("x"), t(20));
        schedule(w, TimerId.named("3"), t(30));
        schedule(w, TimerId.anonymous(3), t(40));
        // when: one of them is rescheduled
        schedule(other, TimerId.named("x"), t(25));
        // then
        assertThat(all())
                .containsExactly(
                        new TimerEntry(w, TimerId.named("x"), t(10)),
                        new TimerEntry(other, TimerId.named("x"), t(25)),
                        new TimerEntry(w, TimerId.named("3"), t(30)),
                        new TimerEntry(w, TimerId.anonymous(3), t(40)));
    }
}
