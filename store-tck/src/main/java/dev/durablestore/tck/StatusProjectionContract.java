package dev.durablestore.tck;

import static dev.durablestore.tck.KitSupport.active;
import static dev.durablestore.tck.KitSupport.given;
import static dev.durablestore.tck.KitSupport.paused;
import static dev.durablestore.tck.KitSupport.query;
import static dev.durablestore.tck.KitSupport.wid;
import static dev.durablestore.tck.TestEvents.t;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.durablestore.api.RunId;
import dev.durablestore.api.WorkflowFilter;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.WorkflowStatus;
import dev.durablestore.api.WorkflowSummary;
import dev.durablestore.api.event.Event;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Contract group R, status projection and the active and paused listings (R10–R23), observed
 * through {@code listActive}, {@code listPaused} and the {@code status} and {@code endedAt} of
 * {@code query} summaries.
 */
public abstract class StatusProjectionContract extends ContractTestSupport {

    /** Asserts the workflow's projected status as every listing shows it. */
    private void assertProjected(WorkflowId w, WorkflowStatus status) {
        List<WorkflowId> active = active(store);
        List<WorkflowId> paused = paused(store);
        if (status == WorkflowStatus.RUNNING) {
            assertThat(active).as("listActive").contains(w);
        } else {
            assertThat(active).as("listActive").doesNotContain(w);
        }
        if (status == WorkflowStatus.PAUSED) {
            assertThat(paused).as("listPaused").contains(w);
        } else {
            assertThat(paused).as("listPaused").doesNotContain(w);
        }
        assertThat(summaryOf(w).status()).as("query status").isEqualTo(status);
        assertThat(query(store, WorkflowFilter.all().withStatus(status)))
                .extracting(WorkflowSummary::workflowId)
                .as("query by status %s", status)
                .contains(w);
    }

    private WorkflowSummary summaryOf(WorkflowId w) {
        List<WorkflowSummary> matches = query(store, WorkflowFilter.all()).stream()
                .filter(s -> s.workflowId().equals(w))
                .toList();
        assertThat(matches).as("summaries of %s", w).hasSize(1);
        return matches.get(0);
    }

    // ------------------------------------------------------------------ R10 last lifecycle event

    static Stream<Arguments> lifecycleEndings() {
        return Stream.of(
                Arguments.of(
                        "WorkflowStarted",
                        (Function<TestEvents, Event>) ev -> ev.signalReceived("noop"),
                        WorkflowStatus.RUNNING),
                Arguments.of(
                        "WorkflowCompleted",
                        (Function<TestEvents, Event>) TestEvents::completed,
                        WorkflowStatus.COMPLETED),
                Arguments.of(
                        "WorkflowFailed", (Function<TestEvents, Event>) ev -> ev.failed("boom"), WorkflowStatus.FAILED),
                Arguments.of(
                        "WorkflowCancelled",
                        (Function<TestEvents, Event>) ev -> ev.cancelled("user"),
                        WorkflowStatus.CANCELLED),
                Arguments.of(
                        "WorkflowTimedOut",
                        (Function<TestEvents, Event>) ev -> ev.timedOut("run"),
                        WorkflowStatus.TIMED_OUT),
                Arguments.of(
                        "WorkflowContinuedAsNew",
                        (Function<TestEvents, Event>) TestEvents::continuedAsNew,
                        WorkflowStatus.CONTINUED_AS_NEW),
                Arguments.of(
                        "WorkflowPaused", (Function<TestEvents, Event>) TestEvents::paused, WorkflowStatus.PAUSED));
    }

    @ParameterizedTest(name = "R10: start then {0} projects {2}")
    @MethodSource("lifecycleEndings")
    public void R10_C104_to_C108_last_lifecycle_event_decides_the_status(
            String kind, Function<TestEvents, Event> ending, WorkflowStatus expected) {
        // given
        WorkflowId w = WorkflowId.random();
        TestEvents ev = TestEvents.of(w);
        // when
        given(store, List.of(ev.started("checkout"), ending.apply(ev)));
        // then
        assertProjected(w, expected);
    }

    @Test
    public void R10_M11_C111_C112_non_lifecycle_kinds_never_change_the_status() {
        // given: a running and a completed workflow, each followed by every non-lifecycle kind
        WorkflowId running = WorkflowId.random();
        WorkflowId completed = WorkflowId.random();
        TestEvents r = TestEvents.of(running);
        given(store, List.of(r.started("a")));
        given(store, r.at(t(1000)).everyKindWhere(kind -> !kind.isLifecycle()));
        TestEvents c = TestEvents.of(completed);
        given(store, List.of(c.started("b"), c.completed(t(2))));
        List<Event> later = c.at(t(1000)).everyKindWhere(kind -> !kind.isLifecycle());
        assertThat(later).hasSize(22);
        given(store, later);
        // then
        assertProjected(running, WorkflowStatus.RUNNING);
        assertProjected(completed, WorkflowStatus.COMPLETED);
        assertThat(summaryOf(running).endedAt()).isNull();
        assertThat(summaryOf(completed).endedAt()).isEqualTo(t(2));
    }

    @Test
    public void R11_R23_history_without_any_lifecycle_event_projects_running() {
        // given: only signals and an activity, no start
        WorkflowId w = WorkflowId.random();
        TestEvents ev = TestEvents.of(w);
        given(store, List.of(ev.signalReceived("early"), ev.activityScheduled(2, "x")));
        // then: listed active (R23, in-memory semantics), but never queried (R24)
        assertThat(active(store)).contains(w);
        assertThat(paused(store)).doesNotContain(w);
        assertThat(query(store, WorkflowFilter.all()))
                .extracting(WorkflowSummary::workflowId)
                .doesNotContain(w);
    }

    // ------------------------------------------------------------------ R12 reopen

    @Test
    public void R12_C13_C115_reopen_after_a_terminal_projects_running() {
        // given
        WorkflowId w = WorkflowId.random();
        TestEvents ev = TestEvents.of(w);
        given(store, List.of(ev.started("checkout", t(1)), ev.failed("boom", t(2))));
        assertThat(active(store)).doesNotContain(w);
        // when
        given(store, List.of(ev.at(t(3)).reopened(2)));
        // then
        assertThat(active(store)).containsExactly(w);
        assertProjected(w, WorkflowStatus.RUNNING);
        assertThat(query(store, WorkflowFilter.all().withStatus(WorkflowStatus.RUNNING)))
                .extracting(WorkflowSummary::workflowId, WorkflowSummary::status)
                .containsExactly(tuple(w, WorkflowStatus.RUNNING));
    }

    @Test
    public void R12_C116_terminal_after_a_reopen_projects_that_terminal() {
        // given
        WorkflowId w = WorkflowId.random();
        TestEvents ev = TestEvents.of(w);
        given(store, List.of(ev.started("checkout"), ev.failed("boom"), ev.reopened(), ev.completed()));
        // then
        assertProjected(w, WorkflowStatus.COMPLETED);
    }

    // ------------------------------------------------------------------ R13 / R14 pause

    @Test
    public void R13_R22_C86_C119_paused_workflow_is_listed_paused_and_not_active() {
        // given
        WorkflowId running = wid("00000000-0000-0000-0000-0000000000a1");
        WorkflowId pausedId = wid("00000000-0000-0000-0000-0000000000b2");
        given(store, List.of(TestEvents.of(running).started("a")));
        TestEvents ev = TestEvents.of(pausedId);
        given(store, List.of(ev.started("b"), ev.paused("maintenance", "ops")));
        // then
        assertThat(active(store)).containsExactly(running);
        assertThat(paused(store)).containsExactly(pausedId);
        assertProjected(pausedId, WorkflowStatus.PAUSED);
        assertThat(WorkflowStatus.PAUSED.isTerminal()).isFalse();
        assertThat(summaryOf(pausedId).endedAt()).isNull();
    }

    @Test
    public void R13_C120_resume_after_pause_projects_running() {
        // given
        WorkflowId w = WorkflowId.random();
        TestEvents ev = TestEvents.of(w);
        given(store, List.of(ev.started("a"), ev.paused()));
        assertThat(paused(store)).containsExactly(w);
        // when
        given(store, List.of(ev.resumed("ops")));
        // then
        assertThat(paused(store)).isEmpty();
        assertProjected(w, WorkflowStatus.RUNNING);
        assertThat(summaryOf(w).endedAt()).isNull();
    }

    @Test
    public void R13_pause_markers_after_non_lifecycle_events_still_decide() {
        // given: the pause is followed by activity and signal events
        WorkflowId w = WorkflowId.random();
        TestEvents ev = TestEvents.of(w);
        given(store, List.of(ev.started("a"), ev.paused(), ev.activityCompleted(1, 1), ev.signalReceived("x")));
        // then
        assertProjected(w, WorkflowStatus.PAUSED);
    }

    @Test
    public void R14_C121_C122_terminal_recorded_while_paused_projects_that_terminal() {
        // given
        WorkflowId whilePaused = WorkflowId.random();
        WorkflowId afterResume = WorkflowId.random();
        TestEvents p = TestEvents.of(whilePaused);
        given(store, List.of(p.started("a", t(1)), p.at(t(2)).paused(), p.completed(t(3))));
        TestEvents r = TestEvents.of(afterResume);
        given(
                store,
                List.of(r.started("a", t(1)), r.at(t(2)).paused(), r.at(t(3)).resumed(), r.cancelled("stop")));
        // then
        assertProjected(whilePaused, WorkflowStatus.COMPLETED);
        assertProjected(afterResume, WorkflowStatus.CANCELLED);
        assertThat(summaryOf(whilePaused).endedAt()).isEqualTo(t(3));
        assertThat(summaryOf(afterResume).endedAt()).isEqualTo(t(3));
    }

    // ------------------------------------------------------------------ R15 / R16 / R17

    @Test
    public void R15_C103_C12_new_start_after_continued_as_new_projects_running() {
        // given
        WorkflowId continued = WorkflowId.random();
        WorkflowId restarted = WorkflowId.random();
        TestEvents c = TestEvents.of(continued);
        given(store, List.of(c.started("a"), c.continuedAsNew()));
        TestEvents r = TestEvents.of(restarted);
        given(store, List.of(r.started("a", t(1)), r.at(t(2)).continuedAsNew()));
        // when
        given(store, List.of(r.started("a", RunId.random(), r.runId(), t(3))));
        // then
        assertProjected(continued, WorkflowStatus.CONTINUED_AS_NEW);
        assertProjected(restarted, WorkflowStatus.RUNNING);
        assertThat(summaryOf(restarted).endedAt()).isNull();
    }

    @Test
    public void R16_C114_later_of_two_terminals_wins() {
        // given
        WorkflowId w = WorkflowId.random();
        TestEvents ev = TestEvents.of(w);
        given(
                store,
                List.of(ev.started("a", t(1)), ev.completed(t(2)), ev.at(t(3)).timedOut("run")));
        // then
        assertProjected(w, WorkflowStatus.TIMED_OUT);
        assertThat(summaryOf(w).endedAt()).isEqualTo(t(3));
    }

    @Test
    public void R17_C113_projection_is_the_same_on_every_read() {
        // given
        WorkflowId a = WorkflowId.random();
        WorkflowId b = WorkflowId.random();
        TestEvents ea = TestEvents.of(a);
        given(store, List.of(ea.started("a"), ea.paused()));
        TestEvents eb = TestEvents.of(b);
        given(store, List.of(eb.started("b"), eb.failed("x"), eb.reopened()));
        // then
        assertThat(active(store)).isEqualTo(active(store));
        assertThat(paused(store)).isEqualTo(paused(store));
        assertThat(query(store, WorkflowFilter.all())).isEqualTo(query(store, WorkflowFilter.all()));
    }

    // ------------------------------------------------------------------ R18 end times

    @Test
    public void R18_C117_C118_end_time_is_the_current_lease_terminal() {
        // given
        WorkflowId running = WorkflowId.random();
        WorkflowId failed = WorkflowId.random();
        WorkflowId reopened = WorkflowId.random();
        WorkflowId reterminated = WorkflowId.random();
        given(store, List.of(TestEvents.of(running).started("a", t(1))));
        TestEvents f = TestEvents.of(failed);
        given(store, List.of(f.started("a", t(1)), f.failed("x", t(2))));
        TestEvents o = TestEvents.of(reopened);
        given(
                store,
                List.of(o.started("a", t(1)), o.failed("x", t(2)), o.at(t(3)).reopened()));
        TestEvents rt = TestEvents.of(reterminated);
        given(
                store,
                List.of(rt.started("a", t(1)), rt.failed("x", t(2)), rt.at(t(3)).reopened(), rt.completed(t(4))));
        // then
        assertThat(summaryOf(running).endedAt()).isNull();
        assertThat(summaryOf(failed).endedAt()).isEqualTo(t(2));
        assertThat(summaryOf(reopened).endedAt()).isNull();
        assertThat(summaryOf(reterminated).endedAt()).isEqualTo(t(4));
    }

    @Test
    public void R18_pause_markers_change_the_status_but_never_the_end_time() {
        // given: [started, completed, resumed] — Running, yet its current-lease terminal is the completion
        WorkflowId w = WorkflowId.random();
        TestEvents ev = TestEvents.of(w);
        Instant completedAt = Instant.parse("2026-06-03T02:30:00.123456789Z");
        given(
                store,
                List.of(
                        ev.started("a", t(1)),
                        ev.completed(completedAt),
                        ev.at(completedAt.plusSeconds(1)).resumed()));
        // then
        assertProjected(w, WorkflowStatus.RUNNING);
        assertThat(summaryOf(w).endedAt()).isEqualTo(completedAt);
    }

    // ------------------------------------------------------------------ R19–R21 listings

    @Test
    public void R19_C12_list_active_reflects_the_projected_status() {
        // given
        assertThat(active(store)).isEmpty();
        WorkflowId a = wid("00000000-0000-0000-0000-00000000000a");
        WorkflowId b = wid("00000000-0000-0000-0000-00000000000b");
        WorkflowId c = wid("00000000-0000-0000-0000-00000000000c");
        for (WorkflowId id : List.of(c, a, b)) {
            given(store, List.of(TestEvents.of(id).started("x")));
        }
        assertThat(active(store)).containsExactly(a, b, c);
        // when
        given(store, List.of(TestEvents.of(a, 1).completed()));
        given(store, List.of(TestEvents.of(b, 1).continuedAsNew()));
        // then
        assertThat(active(store)).containsExactly(c);
    }

    @Test
    public void R19_R20_M3_listings_are_in_canonical_id_order() {
        // given: ids whose text order differs from UUID#compareTo
        List<WorkflowId> ids = List.of(
                wid("00000000-0000-0000-0000-000000000001"),
                wid("00000000-0000-0000-8000-000000000000"),
                wid("7fffffff-ffff-ffff-ffff-ffffffffffff"),
                wid("80000000-0000-0000-0000-000000000000"),
                wid("ffffffff-ffff-ffff-ffff-ffffffffffff"));
        List<WorkflowId> pausedIds = List.of(
                wid("00000000-0000-0000-0000-000000000002"),
                wid("00000000-0000-0000-c000-000000000000"),
                wid("90000000-0000-0000-0000-000000000000"));
        for (WorkflowId id : reversed(ids)) {
            given(store, List.of(TestEvents.of(id).started("x")));
        }
        for (WorkflowId id : reversed(pausedIds)) {
            TestEvents ev = TestEvents.of(id);
            given(store, List.of(ev.started("y"), ev.paused()));
        }
        // then
        assertThat(active(store)).containsExactlyElementsOf(ids);
        assertThat(paused(store)).containsExactlyElementsOf(pausedIds);
    }

    @Test
    public void R21_active_and_paused_are_disjoint_and_exclude_terminals() {
        // given: one workflow per status
        List<WorkflowId> all = new ArrayList<>();
        for (Arguments args : lifecycleEndings().toList()) {
            WorkflowId w = WorkflowId.random();
            TestEvents ev = TestEvents.of(w);
            @SuppressWarnings("unchecked")
            Function<TestEvents, Event> ending = (Function<TestEvents, Event>) args.get()[1];
            given(store, List.of(ev.started("x"), ending.apply(ev)));
            all.add(w);
        }
        // then
        List<WorkflowId> active = active(store);
        List<WorkflowId> paused = paused(store);
        assertThat(active).hasSize(1).doesNotContainAnyElementsOf(paused);
        assertThat(paused).hasSize(1);
        for (WorkflowSummary s : query(store, WorkflowFilter.all())) {
            if (s.status().isTerminal()) {
                assertThat(active).doesNotContain(s.workflowId());
                assertThat(paused).doesNotContain(s.workflowId());
            }
        }
        assertThat(query(store, WorkflowFilter.all())).hasSize(all.size());
    }

    private static <T> List<T> reversed(List<T> list) {
        List<T> copy = new ArrayList<>(list);
        Collections.reverse(copy);
        return copy;
    }

    // ------------------------------------------------------------------ R23 histories without a start

    @Test
    public void R23_histories_without_a_start_are_listed_by_their_last_lifecycle_event() {
        // given: no WorkflowStarted in any of them
        WorkflowId signalsOnly = WorkflowId.random();
        WorkflowId pausedOnly = WorkflowId.random();
        WorkflowId endsTerminal = WorkflowId.random();
        given(store, List.of(TestEvents.of(signalsOnly).signalReceived("a")));
        TestEvents p = TestEvents.of(pausedOnly);
        given(store, List.of(p.signalReceived("a"), p.paused()));
        TestEvents e = TestEvents.of(endsTerminal);
        given(store, List.of(e.signalReceived("a"), e.completed()));
        // then
        assertThat(active(store)).containsExactly(signalsOnly);
        assertThat(paused(store)).containsExactly(pausedOnly);
        assertThat(query(store, WorkflowFilter.all())).isEmpty();
    }
}
