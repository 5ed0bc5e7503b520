package dev.durablestore.core.projection;

import static dev.durablestore.core.projection.HistoryFixture.history;
import static dev.durablestore.core.projection.HistoryFixture.run;
import static dev.durablestore.core.projection.HistoryFixture.t;
import static dev.durablestore.core.projection.HistoryFixture.wf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.WorkflowStatus;
import dev.durablestore.api.WorkflowSummary;
import dev.durablestore.api.event.ActivityError;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.event.SearchAttributeValue;
import dev.durablestore.api.event.WorkflowCompleted;
import dev.durablestore.api.event.WorkflowFailed;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** Status (R10–R18), summary (R24–R29) and search-attribute (M19) projections. */
class HistoryProjectionTest {

    private static WorkflowSummary summary(List<Event> events) {
        return HistoryProjection.summarize(wf(1), events, null).orElseThrow();
    }

    @Nested
    class Status {

        @Test
        void C102_empty_history_projects_running() {
            // given
            List<Event> events = List.of();
            // when
            WorkflowStatus status = HistoryProjection.status(events);
            // then
            assertThat(status).isEqualTo(WorkflowStatus.RUNNING);
        }

        @Test
        void C103_replacement_start_after_continue_as_new_projects_running() {
            // given
            List<Event> events = history()
                    .started()
                    .continuedAsNew()
                    .started("checkout", run(2), run(1))
                    .events();
            // when / then
            assertThat(HistoryProjection.status(events)).isEqualTo(WorkflowStatus.RUNNING);
        }

        @Test
        void C104_completed_terminal_event_projects_completed() {
            List<Event> events = history().started().completed().events();
            assertThat(HistoryProjection.status(events)).isEqualTo(WorkflowStatus.COMPLETED);
        }

        @Test
        void C105_failed_terminal_event_projects_failed() {
            List<Event> events = history().started().failed("boom").events();
            assertThat(HistoryProjection.status(events)).isEqualTo(WorkflowStatus.FAILED);
        }

        @Test
        void C106_cancelled_terminal_event_projects_cancelled() {
            List<Event> events = history().started().cancelled().events();
            assertThat(HistoryProjection.status(events)).isEqualTo(WorkflowStatus.CANCELLED);
        }

        @Test
        void C107_timed_out_terminal_event_projects_timed_out() {
            List<Event> events = history().started().timedOut().events();
            assertThat(HistoryProjection.status(events)).isEqualTo(WorkflowStatus.TIMED_OUT);
        }

        @Test
        void C108_continued_as_new_with_type_override_projects_continued_as_new() {
            List<Event> events =
                    history().started().continuedAsNew("checkout-v2", run(2)).events();
            assertThat(HistoryProjection.status(events)).isEqualTo(WorkflowStatus.CONTINUED_AS_NEW);
        }

        @Test
        void C109_only_running_and_paused_are_non_terminal() {
            // given every status / when asked whether terminal / then
            assertThat(WorkflowStatus.values())
                    .filteredOn(WorkflowStatus::isTerminal)
                    .containsExactlyInAnyOrder(
                            WorkflowStatus.COMPLETED,
                            WorkflowStatus.FAILED,
                            WorkflowStatus.CANCELLED,
                            WorkflowStatus.TIMED_OUT,
                            WorkflowStatus.CONTINUED_AS_NEW);
            assertThat(WorkflowStatus.RUNNING.isTerminal()).isFalse();
            assertThat(WorkflowStatus.PAUSED.isTerminal()).isFalse();
        }

        @Test
        void C110_continued_as_new_without_override_projects_continued_as_new() {
            List<Event> events = history().started().continuedAsNew().events();
            assertThat(HistoryProjection.status(events)).isEqualTo(WorkflowStatus.CONTINUED_AS_NEW);
        }

        @Test
        void C111_non_terminal_history_projects_running() {
            // given start, search-attribute update, activity scheduled
            List<Event> events = history()
                    .started()
                    .attributes(Map.of("customer_id", SearchAttributeValue.of("customer-123")))
                    .scheduled(3, "charge-card")
                    .events();
            // when / then
            assertThat(HistoryProjection.status(events)).isEqualTo(WorkflowStatus.RUNNING);
        }

        @Test
        void C112_schedule_events_do_not_change_workflow_status() {
            List<Event> events = history().started().schedulePaused().events();
            assertThat(HistoryProjection.status(events)).isEqualTo(WorkflowStatus.RUNNING);
        }

        @Test
        void C113_projection_is_deterministic() {
            // given
            List<Event> events = history().started().completed().events();
            // when
            WorkflowStatus first = HistoryProjection.status(events);
            WorkflowStatus second = HistoryProjection.status(events);
            // then
            assertThat(first).isEqualTo(second).isEqualTo(WorkflowStatus.COMPLETED);
        }

        @Test
        void C114_last_terminal_lifecycle_event_determines_status() {
            List<Event> events = history().started().completed().timedOut().events();
            assertThat(HistoryProjection.status(events)).isEqualTo(WorkflowStatus.TIMED_OUT);
        }

        @Test
        void C115_reopen_after_failure_projects_running() {
            List<Event> events = history().started().failed("boom").reopened().events();
            assertThat(HistoryProjection.status(events)).isEqualTo(WorkflowStatus.RUNNING);
        }

        @Test
        void C116_reopen_then_new_terminal_projects_that_terminal() {
            List<Event> events =
                    history().started().failed("boom").reopened().completed().events();
            assertThat(HistoryProjection.status(events)).isEqualTo(WorkflowStatus.COMPLETED);
        }

        @Test
        void C119_pause_projects_paused_which_is_non_terminal_without_lease_terminal() {
            // given
            List<Event> events = history().started().paused().events();
            // when
            WorkflowStatus status = HistoryProjection.status(events);
            // then
            assertThat(status).isEqualTo(WorkflowStatus.PAUSED);
            assertThat(status.isTerminal()).isFalse();
            assertThat(HistoryProjection.currentLeaseTerminal(events)).isEmpty();
        }

        @Test
        void C120_resume_after_pause_projects_running_without_lease_terminal() {
            List<Event> events = history().started().paused().resumed().events();
            assertThat(HistoryProjection.status(events)).isEqualTo(WorkflowStatus.RUNNING);
            assertThat(HistoryProjection.currentLeaseTerminal(events)).isEmpty();
        }

        @Test
        void C121_complete_after_resume_projects_completed_with_completion_as_terminal() {
            // given
            HistoryFixture history = history().started().paused().resumed().completed();
            List<Event> events = history.events();
            // when / then
            assertThat(HistoryProjection.status(events)).isEqualTo(WorkflowStatus.COMPLETED);
            assertThat(HistoryProjection.currentLeaseTerminal(events)).contains(history.last());
        }

        @Test
        void C122_complete_while_paused_still_projects_completed() {
            List<Event> events = history().started().paused().completed().events();
            assertThat(HistoryProjection.status(events)).isEqualTo(WorkflowStatus.COMPLETED);
        }

        @Test
        void R11_history_without_lifecycle_events_projects_running() {
            // given only non-lifecycle events (no WorkflowStarted, R23)
            List<Event> events =
                    history().signal().scheduled(2, "a").activityFailed(2, 1).events();
            // when / then
            assertThat(HistoryProjection.status(events)).isEqualTo(WorkflowStatus.RUNNING);
        }

        @Test
        void R10_history_without_start_projects_its_last_lifecycle_event() {
            // given a history that never started but was paused (R23: listed by listPaused)
            List<Event> events = history().signal().paused().signal().events();
            // when / then
            assertThat(HistoryProjection.status(events)).isEqualTo(WorkflowStatus.PAUSED);
        }

        @Test
        void R13_pause_after_reopen_projects_paused() {
            List<Event> events =
                    history().started().failed("boom").reopened().paused().events();
            assertThat(HistoryProjection.status(events)).isEqualTo(WorkflowStatus.PAUSED);
        }

        @Test
        void R10_non_lifecycle_events_after_the_last_lifecycle_event_are_skipped() {
            List<Event> events = history()
                    .started()
                    .cancelled()
                    .signal()
                    .scheduleTriggered()
                    .childStarted(wf(9))
                    .events();
            assertThat(HistoryProjection.status(events)).isEqualTo(WorkflowStatus.CANCELLED);
        }

        @Test
        void R10_accepts_lists_without_random_access() {
            // given
            List<Event> events = new LinkedList<>(
                    history().started().paused().completed().signal().events());
            // when / then
            assertThat(HistoryProjection.status(events)).isEqualTo(WorkflowStatus.COMPLETED);
            assertThat(HistoryProjection.currentLeaseTerminal(events)).containsInstanceOf(WorkflowCompleted.class);
        }

        @Test
        void null_events_are_rejected() {
            assertThatThrownBy(() -> HistoryProjection.status(null)).isInstanceOf(InvalidArgumentException.class);
            assertThatThrownBy(() -> HistoryProjection.currentLeaseTerminal(null))
                    .isInstanceOf(InvalidArgumentException.class);
            assertThatThrownBy(() -> HistoryProjection.summarize(null, List.of(), null))
                    .isInstanceOf(InvalidArgumentException.class);
            assertThatThrownBy(() -> HistoryProjection.summarize(wf(1), null, null))
                    .isInstanceOf(InvalidArgumentException.class);
            assertThatThrownBy(() -> HistoryProjection.searchAttributes(null))
                    .isInstanceOf(InvalidArgumentException.class);
        }
    }

    @Nested
    class CurrentLeaseTerminal {

        @Test
        void C117_current_lease_terminal_is_none_for_running_and_reopened() {
            // given a running history, a failed history and the failed history plus a reopen
            List<Event> running = history().started().events();
            HistoryFixture failedHistory = history().started().failed("boom");
            List<Event> failed = failedHistory.events();
            List<Event> reopened = failedHistory.reopened().events();
            // when / then
            assertThat(HistoryProjection.currentLeaseTerminal(running)).isEmpty();
            assertThat(HistoryProjection.currentLeaseTerminal(failed)).containsInstanceOf(WorkflowFailed.class);
            assertThat(HistoryProjection.currentLeaseTerminal(failed)).contains(failed.get(1));
            assertThat(HistoryProjection.currentLeaseTerminal(reopened)).isEmpty();
        }

        @Test
        void C118_current_lease_terminal_returns_terminal_after_reopen_and_retermination() {
            // given
            HistoryFixture history =
                    history().started().failed("boom").reopened().completed();
            // when
            Optional<Event> terminal = HistoryProjection.currentLeaseTerminal(history.events());
            // then
            assertThat(terminal).contains(history.last());
        }

        @Test
        void R18_resume_after_completion_projects_running_but_the_completion_stays_the_terminal() {
            // given [WorkflowStarted, WorkflowCompleted, WorkflowResumed]
            List<Event> events = history().started().completed().resumed().events();
            // when
            WorkflowStatus status = HistoryProjection.status(events);
            Optional<Event> terminal = HistoryProjection.currentLeaseTerminal(events);
            // then
            assertThat(status).isEqualTo(WorkflowStatus.RUNNING);
            assertThat(terminal).contains(events.get(1));
        }

        @Test
        void R18_pause_marker_after_terminal_is_skipped() {
            List<Event> events =
                    history().started().timedOut().paused().signal().events();
            assertThat(HistoryProjection.status(events)).isEqualTo(WorkflowStatus.PAUSED);
            assertThat(HistoryProjection.currentLeaseTerminal(events)).contains(events.get(1));
        }

        @Test
        void R18_new_start_after_terminal_means_no_terminal() {
            List<Event> events = history()
                    .started()
                    .continuedAsNew()
                    .started("checkout", run(2), run(1))
                    .signal()
                    .events();
            assertThat(HistoryProjection.currentLeaseTerminal(events)).isEmpty();
        }

        @Test
        void R18_reaching_the_beginning_without_terminal_or_reset_means_none() {
            assertThat(HistoryProjection.currentLeaseTerminal(List.of())).isEmpty();
            assertThat(HistoryProjection.currentLeaseTerminal(
                            history().signal().paused().events()))
                    .isEmpty();
        }

        @Test
        void R18_terminal_without_any_start_is_still_the_terminal() {
            List<Event> events = history().signal().completed().signal().events();
            assertThat(HistoryProjection.currentLeaseTerminal(events)).contains(events.get(1));
        }

        @Test
        void R16_of_two_terminals_the_later_is_the_lease_terminal() {
            List<Event> events = history().started().completed().timedOut().events();
            assertThat(HistoryProjection.currentLeaseTerminal(events)).contains(events.get(2));
        }
    }

    @Nested
    class Summary {

        @Test
        void C131_summary_from_history_projects_required_fields() {
            // given start (t1), attribute update (t2), completion (t3)
            List<Event> events = history()
                    .started()
                    .attributes(Map.of("customer_id", SearchAttributeValue.of("customer-123")))
                    .completed()
                    .events();
            // when
            Optional<WorkflowSummary> summary = HistoryProjection.summarize(wf(1), events, null);
            // then
            assertThat(summary)
                    .contains(new WorkflowSummary(
                            wf(1), "checkout", WorkflowStatus.COMPLETED, t(1), t(3), null, null, null));
        }

        @Test
        void C132_summary_from_history_without_start_is_empty() {
            assertThat(HistoryProjection.summarize(wf(1), List.of(), null)).isEmpty();
        }

        @Test
        void R24_history_with_events_but_no_start_has_no_summary() {
            // given events, including lifecycle ones, but no WorkflowStarted
            List<Event> events =
                    history().signal().failed("boom").reopened().completed().events();
            // when / then
            assertThat(HistoryProjection.summarize(wf(1), events, null)).isEmpty();
        }

        @Test
        void C133_summary_end_time_uses_last_terminal_event() {
            // given start, completed (t2), timed out (t3)
            List<Event> events = history().started().completed().timedOut().events();
            // when
            WorkflowSummary summary = summary(events);
            // then
            assertThat(summary.status()).isEqualTo(WorkflowStatus.TIMED_OUT);
            assertThat(summary.endedAt()).isEqualTo(t(3));
        }

        @Test
        void C134_schedule_events_do_not_set_summary_end_time() {
            List<Event> events = history().started().scheduleTriggered().events();
            WorkflowSummary summary = summary(events);
            assertThat(summary.status()).isEqualTo(WorkflowStatus.RUNNING);
            assertThat(summary.endedAt()).isNull();
        }

        @Test
        void C135_summary_projects_continued_as_new() {
            // given start then continued-as-new at t2
            List<Event> events = history().started().continuedAsNew().events();
            // when
            WorkflowSummary summary = summary(events);
            // then
            assertThat(summary.status()).isEqualTo(WorkflowStatus.CONTINUED_AS_NEW);
            assertThat(summary.endedAt()).isEqualTo(t(2));
        }

        @Test
        void C136_summary_projects_current_run_after_continue_as_new() {
            // given start ("checkout", t1), continued-as-new, start ("checkout-v2", t3)
            List<Event> events = history()
                    .started()
                    .continuedAsNew("checkout-v2", run(1))
                    .started("checkout-v2", run(2), run(1))
                    .events();
            // when
            WorkflowSummary summary = summary(events);
            // then
            assertThat(summary.workflowType()).isEqualTo("checkout-v2");
            assertThat(summary.status()).isEqualTo(WorkflowStatus.RUNNING);
            assertThat(summary.startedAt()).isEqualTo(t(3));
            assertThat(summary.endedAt()).isNull();
        }

        @Test
        void R25_type_and_start_come_from_the_last_start_even_behind_a_reopen() {
            // given two runs, the second failed and reopened
            List<Event> events = history()
                    .started("a", run(1), null)
                    .continuedAsNew()
                    .started("b", run(2), run(1))
                    .failed("boom")
                    .reopened()
                    .signal()
                    .events();
            // when
            WorkflowSummary summary = summary(events);
            // then
            assertThat(summary)
                    .isEqualTo(new WorkflowSummary(wf(1), "b", WorkflowStatus.RUNNING, t(3), null, null, null, null));
        }

        @Test
        void R26_end_time_survives_a_resume_after_the_terminal() {
            // given [start, completed (t2), resumed]
            List<Event> events = history().started().completed().resumed().events();
            // when
            WorkflowSummary summary = summary(events);
            // then
            assertThat(summary.status()).isEqualTo(WorkflowStatus.RUNNING);
            assertThat(summary.endedAt()).isEqualTo(t(2));
        }

        @Test
        void R30_summary_carries_the_given_workflow_id_and_parent() {
            // given
            List<Event> events = history(wf(7)).started().events();
            // when
            WorkflowSummary summary =
                    HistoryProjection.summarize(wf(7), events, wf(5)).orElseThrow();
            // then
            assertThat(summary.workflowId()).isEqualTo(wf(7));
            assertThat(summary.parent()).isEqualTo(wf(5));
        }
    }

    @Nested
    class FailureProjection {

        @Test
        void C137_failure_projection_attributes_failed_step_and_reason() {
            // given "scout" scheduled and completed, "dev_review" scheduled and failed, then WorkflowFailed
            List<Event> events = history()
                    .started()
                    .scheduled(2, "scout")
                    .activityCompleted(2, 1)
                    .scheduled(4, "dev_review")
                    .activityFailed(4, 1)
                    .failed("norn review failed")
                    .events();
            // when
            WorkflowSummary summary = summary(events);
            // then
            assertThat(summary.failedStep()).isEqualTo("dev_review");
            assertThat(summary.failureReason()).isEqualTo("norn review failed");
            assertThat(summary.status()).isEqualTo(WorkflowStatus.FAILED);
        }

        @Test
        void C138_failure_projection_is_none_for_non_failed() {
            List<Event> events =
                    history().started().scheduled(2, "scout").completed().events();
            WorkflowSummary summary = summary(events);
            assertThat(summary.failedStep()).isNull();
            assertThat(summary.failureReason()).isNull();
        }

        @Test
        void C139_failure_projection_is_reset_by_reopen() {
            // given an activity failure, a workflow failure, then a reopen
            List<Event> events = history()
                    .started()
                    .scheduled(2, "dev_review")
                    .activityFailed(2, 1)
                    .failed("norn review failed")
                    .reopened()
                    .events();
            // when
            WorkflowSummary summary = summary(events);
            // then
            assertThat(summary.failedStep()).isNull();
            assertThat(summary.failureReason()).isNull();
            assertThat(summary.status()).isEqualTo(WorkflowStatus.RUNNING);
        }

        @Test
        void C140_failure_projection_has_reason_but_no_step_when_no_activity_failed() {
            List<Event> events =
                    history().started().failed("no activity involved").events();
            WorkflowSummary summary = summary(events);
            assertThat(summary.failedStep()).isNull();
            assertThat(summary.failureReason()).isEqualTo("no activity involved");
        }

        @Test
        void C141_failure_projection_ignores_a_failed_step_that_later_succeeded() {
            // given "dev_review" failed on attempt 1 then completed on attempt 2, then the workflow failed
            List<Event> events = history()
                    .started()
                    .scheduled(2, "dev_review")
                    .activityFailed(2, 1)
                    .activityCompleted(2, 2)
                    .failed("later failure")
                    .events();
            // when
            WorkflowSummary summary = summary(events);
            // then
            assertThat(summary.failedStep()).isNull();
            assertThat(summary.failureReason()).isEqualTo("later failure");
        }

        @Test
        void R27_reason_and_step_stay_when_a_resume_follows_the_failure() {
            // given the current-lease terminal is WorkflowFailed although the status is RUNNING
            List<Event> events = history()
                    .started()
                    .scheduled(2, "dev_review")
                    .activityFailed(2, 1)
                    .failed("boom")
                    .resumed()
                    .events();
            // when
            WorkflowSummary summary = summary(events);
            // then
            assertThat(summary.status()).isEqualTo(WorkflowStatus.RUNNING);
            assertThat(summary.endedAt()).isEqualTo(t(4));
            assertThat(summary.failureReason()).isEqualTo("boom");
            assertThat(summary.failedStep()).isEqualTo("dev_review");
        }

        @Test
        void R27_later_non_failed_terminal_clears_the_failure_fields() {
            List<Event> events = history()
                    .started()
                    .scheduled(2, "a")
                    .activityFailed(2, 1)
                    .failed("boom")
                    .completed()
                    .events();
            WorkflowSummary summary = summary(events);
            assertThat(summary.status()).isEqualTo(WorkflowStatus.COMPLETED);
            assertThat(summary.failureReason()).isNull();
            assertThat(summary.failedStep()).isNull();
        }

        @Test
        void R27_failure_after_reopen_reports_the_new_reason() {
            List<Event> events = history()
                    .started()
                    .failed("first")
                    .reopened()
                    .failed("second")
                    .events();
            WorkflowSummary summary = summary(events);
            assertThat(summary.failureReason()).isEqualTo("second");
            assertThat(summary.endedAt()).isEqualTo(t(4));
        }

        @Test
        void R28_activity_failures_before_the_current_lease_are_ignored() {
            // given the only activity failure precedes the reopen
            List<Event> events = history()
                    .started()
                    .scheduled(2, "dev_review")
                    .activityFailed(2, 1)
                    .failed("first")
                    .reopened()
                    .failed("second")
                    .events();
            // when
            WorkflowSummary summary = summary(events);
            // then
            assertThat(summary.failureReason()).isEqualTo("second");
            assertThat(summary.failedStep()).isNull();
        }

        @Test
        void R28_schedule_before_the_current_lease_does_not_name_the_step() {
            // given the activity was scheduled before the reopen and failed after it
            List<Event> events = history()
                    .started()
                    .scheduled(2, "dev_review")
                    .failed("first")
                    .reopened()
                    .activityFailed(2, 2)
                    .failed("second")
                    .events();
            // when / then
            assertThat(summary(events).failedStep()).isNull();
        }

        @Test
        void R28_failure_without_any_schedule_has_no_step() {
            List<Event> events =
                    history().started().activityFailed(2, 1).failed("boom").events();
            assertThat(summary(events).failedStep()).isNull();
        }

        @Test
        void R28_schedule_after_the_failure_is_not_a_candidate() {
            List<Event> events = history()
                    .started()
                    .activityFailed(2, 1)
                    .scheduled(2, "late")
                    .failed("boom")
                    .events();
            assertThat(summary(events).failedStep()).isNull();
        }

        @Test
        void R28_most_recent_schedule_before_the_failure_names_the_step() {
            // given the same activity id scheduled three times, failing after the second
            List<Event> events = history()
                    .started()
                    .scheduled(2, "first")
                    .scheduled(2, "second")
                    .activityFailed(2, 1)
                    .scheduled(2, "third")
                    .failed("boom")
                    .events();
            // when / then
            assertThat(summary(events).failedStep()).isEqualTo("second");
        }

        @Test
        void R28_empty_activity_type_means_no_step() {
            List<Event> events = history()
                    .started()
                    .scheduled(2, "")
                    .activityFailed(2, 1)
                    .failed("boom")
                    .events();
            WorkflowSummary summary = summary(events);
            assertThat(summary.failedStep()).isNull();
            assertThat(summary.failureReason()).isEqualTo("boom");
        }

        @Test
        void R28_cancelled_activity_is_not_the_failed_step() {
            List<Event> events = history()
                    .started()
                    .scheduled(2, "dev_review")
                    .activityFailed(2, 1)
                    .activityCancelled(2, 1)
                    .failed("boom")
                    .events();
            assertThat(summary(events).failedStep()).isNull();
        }

        @Test
        void R28_completion_before_the_failure_also_disqualifies() {
            List<Event> events = history()
                    .started()
                    .scheduled(2, "dev_review")
                    .activityCompleted(2, 1)
                    .activityFailed(2, 2)
                    .failed("boom")
                    .events();
            assertThat(summary(events).failedStep()).isNull();
        }

        @Test
        void R28_disqualified_latest_failure_has_no_fallback_to_an_earlier_one() {
            // given "a" failed, then "b" failed and later succeeded
            List<Event> events = history()
                    .started()
                    .scheduled(2, "a")
                    .activityFailed(2, 1)
                    .scheduled(4, "b")
                    .activityFailed(4, 1)
                    .activityCompleted(4, 2)
                    .failed("boom")
                    .events();
            // when / then: "a" is not reported instead
            assertThat(summary(events).failedStep()).isNull();
        }

        @Test
        void R28_the_latest_failure_wins_over_earlier_ones() {
            List<Event> events = history()
                    .started()
                    .scheduled(2, "a")
                    .scheduled(3, "b")
                    .activityFailed(3, 1)
                    .activityFailed(2, 1)
                    .failed("boom")
                    .events();
            assertThat(summary(events).failedStep()).isEqualTo("a");
        }

        @Test
        void R28_terminal_activity_errors_count_like_retryable_ones() {
            List<Event> events = history()
                    .started()
                    .scheduled(2, "charge")
                    .activityStarted(2, 1)
                    .activityFailed(2, 1, ActivityError.Kind.TERMINAL)
                    .failed("boom")
                    .events();
            assertThat(summary(events).failedStep()).isEqualTo("charge");
        }

        @Test
        void R28_the_lease_runs_to_the_end_of_the_history() {
            // given an activity failure recorded after the WorkflowFailed, still inside the lease
            List<Event> events = history()
                    .started()
                    .scheduled(2, "a")
                    .activityFailed(2, 1)
                    .scheduled(4, "b")
                    .failed("boom")
                    .activityFailed(4, 1)
                    .events();
            // when / then
            assertThat(summary(events).failedStep()).isEqualTo("b");
        }

        @Test
        void R28_lease_after_a_reopen_reports_failures_inside_it() {
            List<Event> events = history()
                    .started()
                    .scheduled(2, "before")
                    .activityFailed(2, 1)
                    .failed("first")
                    .reopened()
                    .scheduled(2, "after")
                    .activityFailed(2, 2)
                    .failed("second")
                    .events();
            WorkflowSummary summary = summary(events);
            assertThat(summary.failedStep()).isEqualTo("after");
            assertThat(summary.failureReason()).isEqualTo("second");
        }
    }

    @Nested
    class SearchAttributes {

        @Test
        void C151_start_time_task_queue_projects_from_recorded_attribute() {
            // given a start and an update setting "aion.task_queue" to "gpu"
            List<Event> events = history()
                    .started()
                    .attributes(Map.of("aion.task_queue", SearchAttributeValue.of("gpu")))
                    .events();
            // when
            Map<String, SearchAttributeValue> attributes = HistoryProjection.searchAttributes(events);
            // then
            assertThat(attributes).containsExactly(Map.entry("aion.task_queue", SearchAttributeValue.of("gpu")));
        }

        @Test
        void C152_no_attribute_without_an_update() {
            assertThat(HistoryProjection.searchAttributes(history().started().events()))
                    .isEmpty();
        }

        @Test
        void M19_updates_overwrite_named_keys_and_never_remove_others() {
            // given three updates in seq order
            List<Event> events = history()
                    .started()
                    .attributes(
                            Map.of("customer", SearchAttributeValue.of("c-1"), "attempts", SearchAttributeValue.of(1L)))
                    .signal()
                    .attributes(Map.of("attempts", SearchAttributeValue.of(2L), "vip", SearchAttributeValue.of(true)))
                    .attributes(Map.of("tags", SearchAttributeValue.of(List.of("west"))))
                    .events();
            // when
            Map<String, SearchAttributeValue> attributes = HistoryProjection.searchAttributes(events);
            // then
            assertThat(attributes)
                    .containsExactly(
                            Map.entry("attempts", SearchAttributeValue.of(2L)),
                            Map.entry("customer", SearchAttributeValue.of("c-1")),
                            Map.entry("tags", SearchAttributeValue.of(List.of("west"))),
                            Map.entry("vip", SearchAttributeValue.of(true)));
            assertThatThrownBy(() -> attributes.put("x", SearchAttributeValue.of(1L)))
                    .isInstanceOf(UnsupportedOperationException.class);
        }
    }

    @Nested
    class LongHistories {

        @Test
        void long_histories_are_projected_in_linear_time() {
            // given 200 000 events: many activities, a few reopens, a failure at the end
            HistoryFixture history = history().started();
            for (int i = 0; i < 50_000; i++) {
                long activity = 10L + i;
                history.scheduled(activity, "step-" + i).activityStarted(activity, 1);
                if (i % 2 == 0) {
                    history.activityCompleted(activity, 1).signal();
                } else {
                    history.activityFailed(activity, 1).signal();
                }
                if (i % 10_000 == 4_999) {
                    history.failed("interim").reopened();
                }
            }
            List<Event> events = new ArrayList<>(history.failed("final").events());
            assertThat(events).hasSizeGreaterThan(200_000);
            // when / then: a quadratic scan would not finish in time
            Assertions.assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
                for (int round = 0; round < 5; round++) {
                    WorkflowSummary summary = summary(events);
                    assertThat(summary.failedStep()).isEqualTo("step-49999");
                    assertThat(HistoryProjection.status(events)).isEqualTo(WorkflowStatus.FAILED);
                    assertThat(HistoryProjection.runChain(events)).hasSize(1);
                    assertThat(HistoryProjection.searchAttributes(events)).isEmpty();
                    assertThat(HistoryProjection.parents(events)).isEmpty();
                }
            });
        }
    }
}
