package dev.durablestore.tck;

import static dev.durablestore.tck.KitSupport.TIMEOUT;
import static dev.durablestore.tck.KitSupport.given;
import static dev.durablestore.tck.KitSupport.history;
import static dev.durablestore.tck.KitSupport.query;
import static dev.durablestore.tck.KitSupport.wid;
import static dev.durablestore.tck.TestEvents.t;
import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.RunId;
import dev.durablestore.api.WorkflowFilter;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.WorkflowStatus;
import dev.durablestore.api.WorkflowSummary;
import dev.durablestore.api.event.ActivityError;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.event.SearchAttributeValue;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

/**
 * Contract group R, query (R24–R39): which workflows a filter returns, the values of their
 * summaries, and their order.
 */
public abstract class QueryContract extends ContractTestSupport {

    // The catalogue's seeded store (C68): ids chosen so id order differs from start order.
    private final WorkflowId p = wid("d0000000-0000-0000-0000-000000000001");
    private final WorkflowId r = wid("c0000000-0000-0000-0000-000000000002");
    private final WorkflowId k = wid("b0000000-0000-0000-0000-000000000003");
    private final WorkflowId b = wid("a0000000-0000-0000-0000-000000000004");

    /**
     * P ("parent", started t1, then a ChildWorkflowStarted naming R), R ("checkout", started t10),
     * K ("checkout", started t20, completed t21), B ("billing", started t30, failed t31).
     */
    private void givenSeededStore() {
        TestEvents pe = TestEvents.of(p);
        given(store, List.of(pe.started("parent", t(1)), pe.childStarted(r, "checkout")));
        given(store, List.of(TestEvents.of(r).started("checkout", t(10))));
        TestEvents ke = TestEvents.of(k);
        given(store, List.of(ke.started("checkout", t(20)), ke.completed(t(21))));
        TestEvents be = TestEvents.of(b);
        given(store, List.of(be.started("billing", t(30)), be.failed("card declined", t(31))));
    }

    private List<WorkflowId> ids(WorkflowFilter filter) {
        return query(store, filter).stream().map(WorkflowSummary::workflowId).toList();
    }

    private WorkflowSummary single(WorkflowFilter filter) {
        List<WorkflowSummary> summaries = query(store, filter);
        assertThat(summaries).as("query %s", filter).hasSize(1);
        return summaries.get(0);
    }

    private WorkflowSummary summaryOf(WorkflowId w) {
        List<WorkflowSummary> matches = query(store, WorkflowFilter.all()).stream()
                .filter(s -> s.workflowId().equals(w))
                .toList();
        assertThat(matches).as("summaries of %s", w).hasSize(1);
        return matches.get(0);
    }

    // ------------------------------------------------------------------ R24 / R38 default filter

    @Test
    public void R24_R38_C68_default_filter_returns_every_started_workflow_in_start_order() {
        // given
        givenSeededStore();
        // when / then
        StepVerifier.create(store.query(WorkflowFilter.all()).map(WorkflowSummary::workflowId))
                .expectNext(p, r, k, b)
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    public void R24_R26_R30_C68_default_filter_summaries_carry_every_field() {
        // given
        givenSeededStore();
        // then
        assertThat(query(store, WorkflowFilter.all()))
                .containsExactly(
                        new WorkflowSummary(p, "parent", WorkflowStatus.RUNNING, t(1), null, null, null, null),
                        new WorkflowSummary(r, "checkout", WorkflowStatus.RUNNING, t(10), null, p, null, null),
                        new WorkflowSummary(k, "checkout", WorkflowStatus.COMPLETED, t(20), t(21), null, null, null),
                        new WorkflowSummary(
                                b, "billing", WorkflowStatus.FAILED, t(30), t(31), null, null, "card declined"));
    }

    @Test
    public void R24_C132_workflows_without_a_start_never_appear() {
        // given
        givenSeededStore();
        WorkflowId noStart = WorkflowId.random();
        TestEvents ev = TestEvents.of(noStart);
        given(store, List.of(ev.signalReceived("x"), ev.paused(), ev.completed()));
        // then
        assertThat(ids(WorkflowFilter.all())).containsExactly(p, r, k, b);
        assertThat(ids(WorkflowFilter.all().withStatus(WorkflowStatus.COMPLETED)))
                .containsExactly(k);
    }

    @Test
    public void R24_empty_store_queries_empty() {
        // when / then
        StepVerifier.create(store.query(WorkflowFilter.all())).expectComplete().verify(TIMEOUT);
    }

    // ------------------------------------------------------------------ R25 / R26 summary values

    @Test
    public void R25_R15_C136_summary_uses_the_last_start() {
        // given: start checkout at t1, continue-as-new at t2, start checkout-v2 at t3
        WorkflowId w = WorkflowId.random();
        TestEvents ev = TestEvents.of(w);
        RunId first = RunId.random();
        given(
                store,
                List.of(
                        ev.started("checkout", first, null, t(1)),
                        ev.at(t(2)).continuedAsNew("checkout-v2", first),
                        ev.started("checkout-v2", RunId.random(), first, t(3))));
        // then
        assertThat(single(WorkflowFilter.all()))
                .isEqualTo(new WorkflowSummary(w, "checkout-v2", WorkflowStatus.RUNNING, t(3), null, null, null, null));
        assertThat(ids(WorkflowFilter.all().withWorkflowType("checkout"))).isEmpty();
        assertThat(ids(WorkflowFilter.all().withStartedBefore(t(2)))).isEmpty();
    }

    @Test
    public void R26_C16_C135_continued_as_new_summary_has_status_and_end_time() {
        // given
        WorkflowId w = WorkflowId.random();
        TestEvents ev = TestEvents.of(w);
        given(store, List.of(ev.started("checkout", t(10)), ev.at(t(12)).continuedAsNew()));
        // then
        WorkflowSummary expected =
                new WorkflowSummary(w, "checkout", WorkflowStatus.CONTINUED_AS_NEW, t(10), t(12), null, null, null);
        assertThat(single(WorkflowFilter.all())).isEqualTo(expected);
        assertThat(single(WorkflowFilter.all().withStatus(WorkflowStatus.CONTINUED_AS_NEW)))
                .isEqualTo(expected);
    }

    @Test
    public void R26_C131_C133_summary_of_a_twice_terminated_history_ends_at_the_later_terminal() {
        // given
        WorkflowId w = WorkflowId.random();
        TestEvents ev = TestEvents.of(w);
        given(
                store,
                List.of(
                        ev.started("checkout", t(1)),
                        ev.searchAttributesUpdated(Map.of("k", SearchAttributeValue.of(1L))),
                        ev.completed(t(2)),
                        ev.at(t(3)).timedOut("run")));
        // then
        assertThat(single(WorkflowFilter.all()))
                .isEqualTo(new WorkflowSummary(w, "checkout", WorkflowStatus.TIMED_OUT, t(1), t(3), null, null, null));
    }

    @Test
    public void R26_S13_start_and_end_times_keep_nanoseconds() {
        // given
        WorkflowId w = WorkflowId.random();
        Instant started = Instant.parse("2026-06-03T02:30:00.000000001Z");
        Instant ended = Instant.parse("2026-06-03T02:30:00.999999999Z");
        TestEvents ev = TestEvents.of(w);
        given(store, List.of(ev.started("checkout", started), ev.completed(ended)));
        // then
        WorkflowSummary s = single(WorkflowFilter.all());
        assertThat(s.startedAt()).isEqualTo(started);
        assertThat(s.endedAt()).isEqualTo(ended);
    }

    // ------------------------------------------------------------------ R27 / R28 failure fields

    @Test
    public void R27_R28_C137_failed_step_and_reason_of_a_failed_workflow() {
        // given: "scout" scheduled and completed, "dev_review" scheduled and failed, then the workflow fails
        WorkflowId w = WorkflowId.random();
        TestEvents ev = TestEvents.of(w);
        given(
                store,
                List.of(
                        ev.started("norn", t(1)),
                        ev.activityScheduled(2, "scout"),
                        ev.activityCompleted(2, 1),
                        ev.activityScheduled(4, "dev_review"),
                        ev.activityFailed(4, "review rejected", 1),
                        ev.failed("norn review failed", t(6))));
        // then
        assertThat(single(WorkflowFilter.all()))
                .isEqualTo(new WorkflowSummary(
                        w, "norn", WorkflowStatus.FAILED, t(1), t(6), null, "dev_review", "norn review failed"));
    }

    @Test
    public void R27_C138_no_failure_fields_for_a_completed_workflow() {
        // given: an activity failed, but the workflow completed
        WorkflowId w = WorkflowId.random();
        TestEvents ev = TestEvents.of(w);
        given(
                store,
                List.of(
                        ev.started("a"),
                        ev.activityScheduled(2, "step"),
                        ev.activityFailed(2, "x", 1),
                        ev.completed()));
        // then
        WorkflowSummary s = single(WorkflowFilter.all());
        assertThat(s.failedStep()).isNull();
        assertThat(s.failureReason()).isNull();
    }

    @Test
    public void R27_R28_C139_reopen_clears_the_failure_fields() {
        // given
        WorkflowId w = WorkflowId.random();
        TestEvents ev = TestEvents.of(w);
        given(
                store,
                List.of(
                        ev.started("a"),
                        ev.activityScheduled(2, "step"),
                        ev.activityFailed(2, "x", 1),
                        ev.failed("boom"),
                        ev.reopened(2)));
        // then
        WorkflowSummary s = single(WorkflowFilter.all());
        assertThat(s.status()).isEqualTo(WorkflowStatus.RUNNING);
        assertThat(s.failedStep()).isNull();
        assertThat(s.failureReason()).isNull();
        assertThat(s.endedAt()).isNull();
    }

    @Test
    public void R27_failure_reason_only_when_the_current_lease_terminal_is_a_failure() {
        // given: failed, reopened, then cancelled
        WorkflowId w = WorkflowId.random();
        TestEvents ev = TestEvents.of(w);
        given(store, List.of(ev.started("a"), ev.failed("first"), ev.reopened(), ev.cancelled("stop")));
        // then
        WorkflowSummary s = single(WorkflowFilter.all());
        assertThat(s.status()).isEqualTo(WorkflowStatus.CANCELLED);
        assertThat(s.failureReason()).isNull();
        assertThat(s.failedStep()).isNull();
    }

    @Test
    public void R27_failure_reason_survives_a_later_resume_marker() {
        // given: [started, failed, resumed] — Running, but the current-lease terminal is the failure
        WorkflowId w = WorkflowId.random();
        TestEvents ev = TestEvents.of(w);
        given(
                store,
                List.of(
                        ev.started("a", t(1)),
                        ev.failed("broke", t(2)),
                        ev.at(t(3)).resumed()));
        // then
        WorkflowSummary s = single(WorkflowFilter.all());
        assertThat(s.status()).isEqualTo(WorkflowStatus.RUNNING);
        assertThat(s.endedAt()).isEqualTo(t(2));
        assertThat(s.failureReason()).isEqualTo("broke");
    }

    @Test
    public void R28_C140_no_failed_step_without_an_activity_failure() {
        // given
        WorkflowId w = WorkflowId.random();
        TestEvents ev = TestEvents.of(w);
        given(store, List.of(ev.started("a"), ev.activityScheduled(2, "step"), ev.failed("plain failure")));
        // then
        WorkflowSummary s = single(WorkflowFilter.all());
        assertThat(s.failedStep()).isNull();
        assertThat(s.failureReason()).isEqualTo("plain failure");
    }

    @Test
    public void R28_C141_failed_step_that_later_succeeded_is_not_reported() {
        // given: dev_review failed on attempt 1, completed on attempt 2, then the workflow failed
        WorkflowId w = WorkflowId.random();
        TestEvents ev = TestEvents.of(w);
        given(
                store,
                List.of(
                        ev.started("a"),
                        ev.activityScheduled(2, "dev_review"),
                        ev.activityFailed(2, "x", 1),
                        ev.activityCompleted(2, 2),
                        ev.failed("later")));
        // then
        WorkflowSummary s = single(WorkflowFilter.all());
        assertThat(s.failedStep()).isNull();
        assertThat(s.failureReason()).isEqualTo("later");
    }

    @Test
    public void R28_no_fall_back_to_an_earlier_failed_activity() {
        // given: "first" fails for good; "second" fails later but is then cancelled
        WorkflowId w = WorkflowId.random();
        TestEvents ev = TestEvents.of(w);
        given(
                store,
                List.of(
                        ev.started("a"),
                        ev.activityScheduled(2, "first"),
                        ev.activityFailed(2, "x", 1),
                        ev.activityScheduled(4, "second"),
                        ev.activityFailed(4, "y", 1),
                        ev.activityCancelled(4, 1),
                        ev.failed("gave up")));
        // then: the latest failure is disqualified, and "first" is not reported instead
        assertThat(single(WorkflowFilter.all()).failedStep()).isNull();
    }

    @Test
    public void R28_failed_step_is_the_latest_failure_of_the_current_lease_only() {
        // given: activity 2 ("old") failed before a reopen; in the new lease only activity 5 fails
        WorkflowId w = WorkflowId.random();
        TestEvents ev = TestEvents.of(w);
        given(
                store,
                List.of(
                        ev.started("a"),
                        ev.activityScheduled(2, "old"),
                        ev.activityFailed(2, "x", 1),
                        ev.failed("first"),
                        ev.reopened(2),
                        ev.activityScheduled(6, "new"),
                        ev.activityFailed(6, "y", 1),
                        ev.failed("second")));
        // then
        WorkflowSummary s = single(WorkflowFilter.all());
        assertThat(s.failedStep()).isEqualTo("new");
        assertThat(s.failureReason()).isEqualTo("second");
    }

    @Test
    public void R28_a_scheduling_before_the_lease_does_not_count() {
        // given: activity 2 was scheduled before the reopen and fails after it
        WorkflowId w = WorkflowId.random();
        TestEvents ev = TestEvents.of(w);
        given(
                store,
                List.of(
                        ev.started("a"),
                        ev.activityScheduled(2, "before-reopen"),
                        ev.failed("first"),
                        ev.reopened(2),
                        ev.activityFailed(2, "x", 2),
                        ev.failed("second")));
        // then
        WorkflowSummary s = single(WorkflowFilter.all());
        assertThat(s.failedStep()).isNull();
        assertThat(s.failureReason()).isEqualTo("second");
    }

    @Test
    public void R28_the_most_recent_scheduling_before_the_failure_names_the_step() {
        // given: activity 2 scheduled as "v1" then "v2" before failing, and as "v3" after failing
        WorkflowId w = WorkflowId.random();
        TestEvents ev = TestEvents.of(w);
        given(
                store,
                List.of(
                        ev.started("a"),
                        ev.activityScheduled(2, "v1"),
                        ev.activityScheduled(2, "v2"),
                        ev.activityFailed(2, "x", 1),
                        ev.activityScheduled(2, "v3"),
                        ev.failed("boom")));
        // then
        assertThat(single(WorkflowFilter.all()).failedStep()).isEqualTo("v2");
    }

    @Test
    public void R28_a_scheduling_only_after_the_failure_or_with_an_empty_type_gives_no_step() {
        // given
        WorkflowId after = wid("00000000-0000-0000-0000-000000000001");
        WorkflowId empty = wid("00000000-0000-0000-0000-000000000002");
        TestEvents a = TestEvents.of(after);
        given(
                store,
                List.of(
                        a.started("a", t(1)),
                        a.activityFailed(2, "x", 1),
                        a.activityScheduled(2, "late"),
                        a.failed("boom")));
        TestEvents e = TestEvents.of(empty);
        given(
                store,
                List.of(
                        e.started("a", t(2)),
                        e.activityScheduled(2, ""),
                        e.activityFailed(2, "x", 1),
                        e.failed("boom")));
        // then
        assertThat(query(store, WorkflowFilter.all()))
                .extracting(WorkflowSummary::failedStep)
                .containsExactly(null, null);
    }

    @Test
    public void R28_any_error_kind_counts_and_a_completion_of_another_activity_does_not_disqualify() {
        // given: activity 2 fails terminally, activity 3 completes
        WorkflowId w = WorkflowId.random();
        TestEvents ev = TestEvents.of(w);
        given(
                store,
                List.of(
                        ev.started("a"),
                        ev.activityScheduled(2, "charge"),
                        ev.activityScheduled(3, "ship"),
                        ev.activityFailed(2, new ActivityError(ActivityError.Kind.TERMINAL, "declined", null), 1),
                        ev.activityCompleted(3, 1),
                        ev.failed("boom")));
        // then
        assertThat(single(WorkflowFilter.all()).failedStep()).isEqualTo("charge");
    }

    // ------------------------------------------------------------------ R30 parent

    @Test
    public void R30_R36_C72_parent_comes_from_the_child_started_event() {
        // given
        givenSeededStore();
        // then
        assertThat(summaryOf(r).parent()).isEqualTo(p);
        assertThat(summaryOf(p).parent()).isNull();
        assertThat(summaryOf(k).parent()).isNull();
        WorkflowSummary child = single(WorkflowFilter.all().withParent(p));
        assertThat(child.workflowId()).isEqualTo(r);
        assertThat(child.parent()).isEqualTo(p);
    }

    @Test
    public void R30_several_parents_naming_one_child_the_last_in_parent_id_then_seq_order_wins() {
        // given: parents p1 < p2 by text (but not by UUID#compareTo) both start the child
        WorkflowId child = wid("00000000-0000-0000-0000-0000000000cc");
        WorkflowId p1 = wid("00000000-0000-0000-0000-000000000001");
        WorkflowId p2 = wid("80000000-0000-0000-0000-000000000000");
        TestEvents c1 = TestEvents.of(p2);
        given(store, List.of(c1.started("parent", t(1)), c1.childStarted(child, "kid")));
        TestEvents c2 = TestEvents.of(p1);
        given(store, List.of(c2.started("parent", t(2)), c2.childStarted(child, "kid"), c2.signalReceived("x")));
        given(store, List.of(TestEvents.of(child).started("kid", t(3))));
        // then
        assertThat(summaryOf(child).parent()).isEqualTo(p2);
        assertThat(ids(WorkflowFilter.all().withParent(p2))).containsExactly(child);
        assertThat(ids(WorkflowFilter.all().withParent(p1))).isEmpty();
    }

    @Test
    public void R30_within_one_parent_the_later_child_started_is_the_one_that_counts() {
        // given: a parent starts the same child twice; another workflow only names it in a signal
        WorkflowId parent = WorkflowId.random();
        WorkflowId child = WorkflowId.random();
        TestEvents pe = TestEvents.of(parent);
        given(
                store,
                List.of(
                        pe.started("parent", t(1)),
                        pe.childStarted(child, "kid"),
                        pe.childStarted(child, "kid"),
                        pe.signalSent(child, "hello")));
        given(store, List.of(TestEvents.of(child).started("kid", t(2))));
        // then
        assertThat(summaryOf(child).parent()).isEqualTo(parent);
        assertThat(summaryOf(parent).parent()).isNull();
    }

    // ------------------------------------------------------------------ R32–R37 filters

    @Test
    public void R32_C69_type_filter_matches_exactly_and_case_sensitively() {
        // given
        givenSeededStore();
        given(store, List.of(TestEvents.of(WorkflowId.random()).started("Billing", t(40))));
        given(store, List.of(TestEvents.of(WorkflowId.random()).started("billing-v2", t(41))));
        // then
        assertThat(ids(WorkflowFilter.all().withWorkflowType("billing"))).containsExactly(b);
        assertThat(ids(WorkflowFilter.all().withWorkflowType("checkout"))).containsExactly(r, k);
        assertThat(ids(WorkflowFilter.all().withWorkflowType("bill"))).isEmpty();
    }

    @Test
    public void R32_M14_type_filter_ignores_child_types_recorded_by_the_parent() {
        // given: P's ChildWorkflowStarted records type "checkout", but P itself is "parent"
        givenSeededStore();
        // then
        assertThat(ids(WorkflowFilter.all().withWorkflowType("checkout"))).doesNotContain(p);
        assertThat(ids(WorkflowFilter.all().withWorkflowType("parent"))).containsExactly(p);
    }

    @Test
    public void R33_C70_C66_status_filter_matches_the_projected_status() {
        // given
        givenSeededStore();
        // then
        assertThat(ids(WorkflowFilter.all().withStatus(WorkflowStatus.COMPLETED)))
                .containsExactly(k);
        assertThat(ids(WorkflowFilter.all().withStatus(WorkflowStatus.RUNNING))).containsExactly(p, r);
        assertThat(ids(WorkflowFilter.all().withStatus(WorkflowStatus.FAILED))).containsExactly(b);
        assertThat(ids(WorkflowFilter.all().withStatus(WorkflowStatus.CANCELLED)))
                .isEmpty();
        assertThat(query(store, WorkflowFilter.all().withStatus(WorkflowStatus.RUNNING)))
                .allSatisfy(s -> assertThat(s.status()).isEqualTo(WorkflowStatus.RUNNING));
    }

    @Test
    public void R33_status_filter_matches_paused_and_every_terminal() {
        // given
        WorkflowId paused = WorkflowId.random();
        WorkflowId cancelled = WorkflowId.random();
        WorkflowId timedOut = WorkflowId.random();
        TestEvents pe = TestEvents.of(paused);
        given(store, List.of(pe.started("x"), pe.paused()));
        TestEvents ce = TestEvents.of(cancelled);
        given(store, List.of(ce.started("x"), ce.cancelled("user")));
        TestEvents te = TestEvents.of(timedOut);
        given(store, List.of(te.started("x"), te.timedOut("run")));
        // then
        assertThat(ids(WorkflowFilter.all().withStatus(WorkflowStatus.PAUSED))).containsExactly(paused);
        assertThat(ids(WorkflowFilter.all().withStatus(WorkflowStatus.CANCELLED)))
                .containsExactly(cancelled);
        assertThat(ids(WorkflowFilter.all().withStatus(WorkflowStatus.TIMED_OUT)))
                .containsExactly(timedOut);
        assertThat(ids(WorkflowFilter.all().withStatus(WorkflowStatus.RUNNING))).isEmpty();
    }

    @Test
    public void R34_R35_C71_start_bounds_are_inclusive() {
        // given
        givenSeededStore();
        // then
        assertThat(ids(WorkflowFilter.all().withStartedAfter(t(20)).withStartedBefore(t(20))))
                .containsExactly(k);
        assertThat(ids(WorkflowFilter.all().withStartedAfter(t(10)))).containsExactly(r, k, b);
        assertThat(ids(WorkflowFilter.all().withStartedBefore(t(10)))).containsExactly(p, r);
        assertThat(ids(WorkflowFilter.all().withStartedAfter(t(31)))).isEmpty();
        assertThat(ids(WorkflowFilter.all().withStartedBefore(t(0)))).isEmpty();
    }

    @Test
    public void R34_R35_S11_start_bounds_compare_at_nanosecond_precision() {
        // given: starts at a whole second, one nanosecond later, and half a second later
        Instant whole = Instant.parse("2026-06-03T10:00:00Z");
        WorkflowId atWhole = WorkflowId.random();
        WorkflowId oneNanoLater = WorkflowId.random();
        WorkflowId halfSecondLater = WorkflowId.random();
        given(store, List.of(TestEvents.of(halfSecondLater).started("x", whole.plusMillis(500))));
        given(store, List.of(TestEvents.of(atWhole).started("x", whole)));
        given(store, List.of(TestEvents.of(oneNanoLater).started("x", whole.plusNanos(1))));
        // then
        assertThat(ids(WorkflowFilter.all())).containsExactly(atWhole, oneNanoLater, halfSecondLater);
        assertThat(ids(WorkflowFilter.all().withStartedAfter(whole.plusNanos(1))))
                .containsExactly(oneNanoLater, halfSecondLater);
        assertThat(ids(WorkflowFilter.all().withStartedBefore(whole.plusNanos(1))))
                .containsExactly(atWhole, oneNanoLater);
        assertThat(ids(WorkflowFilter.all()
                        .withStartedAfter(whole.plusNanos(2))
                        .withStartedBefore(whole.plusMillis(499))))
                .isEmpty();
    }

    @Test
    public void R34_start_bounds_use_the_current_runs_start() {
        // given: first run started t1, continued, second run started t50
        WorkflowId w = WorkflowId.random();
        TestEvents ev = TestEvents.of(w);
        RunId first = RunId.random();
        given(
                store,
                List.of(
                        ev.started("x", first, null, t(1)),
                        ev.continuedAsNew(),
                        ev.started("x", RunId.random(), first, t(50))));
        // then
        assertThat(ids(WorkflowFilter.all().withStartedBefore(t(10)))).isEmpty();
        assertThat(ids(WorkflowFilter.all().withStartedAfter(t(50)))).containsExactly(w);
    }

    @Test
    public void R36_C129_parent_filter_does_not_match_the_parent_itself_or_unrelated_ids() {
        // given
        givenSeededStore();
        // then
        assertThat(ids(WorkflowFilter.all().withParent(p))).containsExactly(r);
        assertThat(ids(WorkflowFilter.all().withParent(r))).isEmpty();
        assertThat(ids(WorkflowFilter.all().withParent(WorkflowId.random()))).isEmpty();
    }

    @Test
    public void R37_C73_filters_combine_by_conjunction() {
        // given
        givenSeededStore();
        // then
        WorkflowFilter completedCheckout = WorkflowFilter.all()
                .withWorkflowType("checkout")
                .withStatus(WorkflowStatus.COMPLETED)
                .withStartedAfter(t(20))
                .withStartedBefore(t(20));
        assertThat(ids(completedCheckout)).containsExactly(k);
        assertThat(ids(completedCheckout.withStatus(WorkflowStatus.RUNNING))).isEmpty();
        assertThat(ids(completedCheckout.withWorkflowType("billing"))).isEmpty();
        assertThat(ids(completedCheckout.withStartedAfter(t(21)))).isEmpty();
    }

    @Test
    public void R37_C74_parent_combines_with_the_other_fields() {
        // given
        givenSeededStore();
        // then
        WorkflowFilter filter = WorkflowFilter.all()
                .withWorkflowType("checkout")
                .withStatus(WorkflowStatus.RUNNING)
                .withStartedAfter(t(10))
                .withStartedBefore(t(10))
                .withParent(p);
        WorkflowSummary s = single(filter);
        assertThat(s.workflowId()).isEqualTo(r);
        assertThat(s.parent()).isEqualTo(p);
        assertThat(ids(filter.withStatus(WorkflowStatus.COMPLETED))).isEmpty();
        assertThat(ids(filter.withParent(k))).isEmpty();
    }

    @Test
    public void R37_C15_query_applies_all_filters() {
        // given: running checkout t1; checkout t10 completed t11; billing t20 failed t21
        WorkflowId running = WorkflowId.random();
        WorkflowId completed = WorkflowId.random();
        WorkflowId failed = WorkflowId.random();
        given(store, List.of(TestEvents.of(running).started("checkout", t(1))));
        TestEvents c = TestEvents.of(completed);
        given(store, List.of(c.started("checkout", t(10)), c.completed(t(11))));
        TestEvents f = TestEvents.of(failed);
        given(store, List.of(f.started("billing", t(20)), f.failed("x", t(21))));
        // then
        assertThat(ids(WorkflowFilter.all())).containsExactly(running, completed, failed);
        WorkflowSummary s = single(WorkflowFilter.all()
                .withWorkflowType("checkout")
                .withStatus(WorkflowStatus.COMPLETED)
                .withStartedAfter(t(10))
                .withStartedBefore(t(10)));
        assertThat(s)
                .isEqualTo(new WorkflowSummary(
                        completed, "checkout", WorkflowStatus.COMPLETED, t(10), t(11), null, null, null));
        assertThat(ids(WorkflowFilter.all().withParent(WorkflowId.random()))).isEmpty();
    }

    // ------------------------------------------------------------------ R38 order

    @Test
    public void R38_M3_equal_start_times_are_ordered_by_canonical_id_text() {
        // given: four workflows started at the same instant; UUID#compareTo would order them differently
        List<WorkflowId> inTextOrder = List.of(
                wid("00000000-0000-0000-0000-000000000001"),
                wid("00000000-0000-0000-8000-000000000000"),
                wid("7fffffff-ffff-ffff-ffff-ffffffffffff"),
                wid("80000000-0000-0000-0000-000000000000"));
        for (int i = inTextOrder.size() - 1; i >= 0; i--) {
            given(store, List.of(TestEvents.of(inTextOrder.get(i)).started("same", t(5))));
        }
        // plus one earlier and one later start with extreme ids
        WorkflowId earliest = wid("ffffffff-ffff-ffff-ffff-ffffffffffff");
        WorkflowId latest = WorkflowId.nil();
        given(store, List.of(TestEvents.of(earliest).started("early", t(4))));
        given(store, List.of(TestEvents.of(latest).started("late", t(6))));
        // then
        assertThat(ids(WorkflowFilter.all()))
                .containsExactly(
                        earliest,
                        inTextOrder.get(0),
                        inTextOrder.get(1),
                        inTextOrder.get(2),
                        inTextOrder.get(3),
                        latest);
    }

    @Test
    public void R38_S11_start_order_is_time_order_across_the_epoch() {
        // given: one start before 1970, one at the epoch, one after
        WorkflowId before = wid("00000000-0000-0000-0000-00000000000c");
        WorkflowId at = wid("00000000-0000-0000-0000-00000000000b");
        WorkflowId after = wid("00000000-0000-0000-0000-00000000000a");
        given(store, List.of(TestEvents.of(after).started("x", Instant.parse("1970-01-01T00:00:00.000000001Z"))));
        given(store, List.of(TestEvents.of(at).started("x", Instant.EPOCH)));
        given(store, List.of(TestEvents.of(before).started("x", Instant.parse("1969-12-31T23:59:59.999999999Z"))));
        // then
        assertThat(ids(WorkflowFilter.all())).containsExactly(before, at, after);
        assertThat(ids(WorkflowFilter.all().withStartedBefore(Instant.EPOCH))).containsExactly(before, at);
    }

    // ------------------------------------------------------------------ R39 literal values

    @Test
    public void R39_C75_filter_values_with_sql_metacharacters_are_compared_literally() {
        // given
        String[] hostile = {
            "checkout' OR 1=1 --",
            "checkout\" OR \"1\"=\"1",
            "x'); DROP TABLE events; --",
            "%",
            "check_ut",
            "checkout%",
            "\\",
            "/* comment */ checkout",
        };
        WorkflowId plain = wid("00000000-0000-0000-0000-000000000000");
        given(store, List.of(TestEvents.of(plain).started("checkout", t(0))));
        WorkflowId[] ids = new WorkflowId[hostile.length];
        for (int i = 0; i < hostile.length; i++) {
            ids[i] = WorkflowId.random();
            given(store, List.of(TestEvents.of(ids[i]).started(hostile[i], t(i + 1))));
        }
        // then: each hostile type matches exactly its own workflow
        for (int i = 0; i < hostile.length; i++) {
            assertThat(ids(WorkflowFilter.all().withWorkflowType(hostile[i])))
                    .as(hostile[i])
                    .containsExactly(ids[i]);
        }
        assertThat(ids(WorkflowFilter.all().withWorkflowType("checkout"))).containsExactly(plain);
        // and the store is intact
        assertThat(query(store, WorkflowFilter.all())).hasSize(hostile.length + 1);
        List<Event> history = history(store, ids[2]);
        assertThat(history).hasSize(1);
    }
}
