package dev.durablestore.core.projection;

import static dev.durablestore.core.projection.HistoryFixture.history;
import static dev.durablestore.core.projection.HistoryFixture.run;
import static dev.durablestore.core.projection.HistoryFixture.t;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durablestore.api.BackendException;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.RunSummary;
import dev.durablestore.api.WorkflowStatus;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.event.EventKind;
import dev.durablestore.api.event.WorkflowCompleted;
import dev.durablestore.api.event.WorkflowContinuedAsNew;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Run chains (R40–R45) and run segments (R41). */
class RunChainProjectionTest {

    @Test
    void C17_read_run_chain_orders_continuations() {
        // given an unknown workflow, and one with runs 101 -> 102
        List<Event> unknown = List.of();
        List<Event> events = history()
                .started("checkout", run(101), null)
                .continuedAsNew("checkout-v2", run(101))
                .started("checkout-v2", run(102), run(101))
                .events();
        // when
        List<RunSummary> emptyChain = HistoryProjection.runChain(unknown);
        List<RunSummary> chain = HistoryProjection.runChain(events);
        // then
        assertThat(emptyChain).isEmpty();
        assertThat(chain)
                .containsExactly(
                        new RunSummary(run(101), null, WorkflowStatus.CONTINUED_AS_NEW, t(1), t(2)),
                        new RunSummary(run(102), run(101), WorkflowStatus.RUNNING, t(3), null));
    }

    @Test
    void C18_read_run_chain_single_and_multi_continuations() {
        // given a single start, and runs 11 -> 12 -> 13 ending in a completion at t6
        List<Event> single = history().started("checkout", run(1), null).events();
        List<Event> multi = history()
                .started("checkout", run(11), null)
                .continuedAsNew()
                .started("checkout", run(12), run(11))
                .continuedAsNew()
                .started("checkout", run(13), run(12))
                .completed()
                .events();
        // when / then
        assertThat(HistoryProjection.runChain(single))
                .containsExactly(new RunSummary(run(1), null, WorkflowStatus.RUNNING, t(1), null));
        assertThat(HistoryProjection.runChain(multi))
                .containsExactly(
                        new RunSummary(run(11), null, WorkflowStatus.CONTINUED_AS_NEW, t(1), t(2)),
                        new RunSummary(run(12), run(11), WorkflowStatus.CONTINUED_AS_NEW, t(3), t(4)),
                        new RunSummary(run(13), run(12), WorkflowStatus.COMPLETED, t(5), t(6)));
    }

    @Test
    void C88_read_run_chain_projects_run_id_from_started_event() {
        // given a start (run 1) and a completion at t2
        List<Event> events =
                history().started("checkout", run(1), null).completed().events();
        // when
        List<RunSummary> chain = HistoryProjection.runChain(events);
        // then
        assertThat(chain).containsExactly(new RunSummary(run(1), null, WorkflowStatus.COMPLETED, t(1), t(2)));
    }

    @Test
    void C123_run_segment_scopes_to_the_named_run() {
        // given run A (start, continue-as-new) followed by run B (start, completed)
        List<Event> events = history()
                .started("checkout", run(1), null)
                .continuedAsNew()
                .started("checkout", run(2), run(1))
                .completed()
                .events();
        // when
        List<Event> a = HistoryProjection.runSegment(events, run(1));
        List<Event> b = HistoryProjection.runSegment(events, run(2));
        List<Event> unknown = HistoryProjection.runSegment(events, run(3));
        // then
        assertThat(a).hasSize(2).last().isInstanceOf(WorkflowContinuedAsNew.class);
        assertThat(a).containsExactlyElementsOf(events.subList(0, 2));
        assertThat(b).hasSize(2).last().isInstanceOf(WorkflowCompleted.class);
        assertThat(b).containsExactlyElementsOf(events.subList(2, 4));
        assertThat(unknown).isEmpty();
    }

    @Test
    void R40_history_without_start_has_an_empty_chain() {
        List<Event> events = history().signal().completed().reopened().events();
        assertThat(HistoryProjection.runChain(events)).isEmpty();
    }

    @Test
    void R41_events_before_the_first_start_belong_to_no_run() {
        // given a terminal recorded before the first start
        List<Event> events = history()
                .signal()
                .completed()
                .started("checkout", run(1), null)
                .signal()
                .events();
        // when
        List<RunSummary> chain = HistoryProjection.runChain(events);
        // then
        assertThat(chain).containsExactly(new RunSummary(run(1), null, WorkflowStatus.RUNNING, t(3), null));
        assertThat(HistoryProjection.runSegment(events, run(1)))
                .first()
                .extracting(Event::kind)
                .isEqualTo(EventKind.WORKFLOW_STARTED);
    }

    @Test
    void R42_each_slice_uses_its_own_status_and_lease_terminal() {
        // given run 1 failed, reopened and paused; then run 2 completed and resumed
        List<Event> events = history()
                .started("checkout", run(1), null)
                .failed("boom")
                .reopened()
                .paused()
                .started("checkout", run(2), run(1))
                .completed()
                .resumed()
                .events();
        // when
        List<RunSummary> chain = HistoryProjection.runChain(events);
        // then: the reopen clears run 1's close time; the resume keeps run 2's
        assertThat(chain)
                .containsExactly(
                        new RunSummary(run(1), null, WorkflowStatus.PAUSED, t(1), null),
                        new RunSummary(run(2), run(1), WorkflowStatus.RUNNING, t(5), t(6)));
    }

    @Test
    void R43_chain_is_ordered_by_parent_links_not_by_seq() {
        // given starts recorded in the order run 3 (parent 2), run 1 (root), run 2 (parent 1)
        List<Event> events = history()
                .started("checkout", run(3), run(2))
                .started("checkout", run(1), null)
                .completed()
                .started("checkout", run(2), run(1))
                .events();
        // when
        List<RunSummary> chain = HistoryProjection.runChain(events);
        // then
        assertThat(chain).extracting(RunSummary::runId).containsExactly(run(1), run(2), run(3));
        assertThat(chain).extracting(RunSummary::startedAt).containsExactly(t(2), t(4), t(1));
        assertThat(chain.get(0).closedAt()).isEqualTo(t(3));
    }

    @Test
    void R45_continued_as_new_parent_run_id_is_not_consulted() {
        // given continue-as-new events whose parentRunId names runs that do not exist
        List<Event> events = history()
                .started("checkout", run(1), null)
                .continuedAsNew(null, run(77))
                .started("checkout", run(2), run(1))
                .continuedAsNew(null, run(88))
                .events();
        // when
        List<RunSummary> chain = HistoryProjection.runChain(events);
        // then
        assertThat(chain).extracting(RunSummary::runId).containsExactly(run(1), run(2));
        assertThat(chain).extracting(RunSummary::parentRunId).containsExactly(null, run(1));
    }

    @Test
    void R44_chain_without_a_root_fails() {
        // given every run names a parent
        List<Event> events = history()
                .started("checkout", run(1), run(2))
                .started("checkout", run(2), run(1))
                .events();
        // when / then
        assertThatThrownBy(() -> HistoryProjection.runChain(events))
                .isInstanceOf(BackendException.class)
                .hasMessageContaining("no root")
                .hasMessageContaining(run(1).toString())
                .hasMessageContaining(run(2).toString());
    }

    @Test
    void R44_single_run_naming_a_missing_parent_has_no_root() {
        List<Event> events = history().started("checkout", run(2), run(1)).events();
        assertThatThrownBy(() -> HistoryProjection.runChain(events))
                .isInstanceOf(BackendException.class)
                .hasMessageContaining("no root")
                .hasMessageContaining(run(2).toString());
    }

    @Test
    void R44_chain_with_two_roots_fails() {
        List<Event> events = history()
                .started("checkout", run(1), null)
                .continuedAsNew()
                .started("checkout", run(2), null)
                .events();
        assertThatThrownBy(() -> HistoryProjection.runChain(events))
                .isInstanceOf(BackendException.class)
                .hasMessageContaining("more than one root")
                .hasMessageContaining(run(1).toString())
                .hasMessageContaining(run(2).toString());
    }

    @Test
    void R44_two_runs_naming_the_same_parent_fail() {
        List<Event> events = history()
                .started("checkout", run(1), null)
                .started("checkout", run(2), run(1))
                .started("checkout", run(3), run(1))
                .events();
        assertThatThrownBy(() -> HistoryProjection.runChain(events))
                .isInstanceOf(BackendException.class)
                .hasMessageContaining("both continue run " + run(1))
                .hasMessageContaining(run(2).toString())
                .hasMessageContaining(run(3).toString());
    }

    @Test
    void R44_cycle_beside_the_root_fails() {
        // given root 1 and runs 2 and 3 naming each other
        List<Event> events = history()
                .started("checkout", run(1), null)
                .started("checkout", run(2), run(3))
                .started("checkout", run(3), run(2))
                .events();
        // when / then
        assertThatThrownBy(() -> HistoryProjection.runChain(events))
                .isInstanceOf(BackendException.class)
                .hasMessageContaining("cycle")
                .hasMessageContaining(run(2).toString())
                .hasMessageContaining(run(3).toString());
    }

    @Test
    void R44_run_continuing_itself_is_a_cycle() {
        List<Event> events = history()
                .started("checkout", run(1), null)
                .started("checkout", run(2), run(2))
                .events();
        assertThatThrownBy(() -> HistoryProjection.runChain(events))
                .isInstanceOf(BackendException.class)
                .hasMessageContaining("cycle")
                .hasMessageContaining(run(2) + " -> " + run(2));
    }

    @Test
    void R44_run_unreachable_from_the_root_fails() {
        // given root 1 -> 2, and run 4 continuing run 3, which never started
        List<Event> events = history()
                .started("checkout", run(1), null)
                .started("checkout", run(2), run(1))
                .started("checkout", run(4), run(3))
                .events();
        // when / then
        assertThatThrownBy(() -> HistoryProjection.runChain(events))
                .isInstanceOf(BackendException.class)
                .hasMessageContaining("not reachable from root " + run(1))
                .hasMessageContaining(run(4) + " names unknown parent run " + run(3));
    }

    @Test
    void R44_run_started_twice_fails() {
        List<Event> events = history()
                .started("checkout", run(1), null)
                .started("checkout", run(2), run(1))
                .started("checkout", run(2), run(1))
                .events();
        assertThatThrownBy(() -> HistoryProjection.runChain(events))
                .isInstanceOf(BackendException.class)
                .hasMessageContaining("run " + run(2) + " is started more than once (seq 2 and seq 3)");
    }

    @Test
    void R44_failures_start_with_a_common_prefix() {
        List<Event> events = history().started("checkout", run(2), run(1)).events();
        assertThatThrownBy(() -> HistoryProjection.runChain(events))
                .isInstanceOf(BackendException.class)
                .hasMessageStartingWith("malformed run chain: ");
    }

    @Test
    void R43_long_chain_is_ordered_in_linear_time() {
        // given 20 000 runs recorded in reverse chain order
        HistoryFixture history = history();
        int runs = 20_000;
        for (int n = runs; n >= 1; n--) {
            history.started("checkout", run(n), n == 1 ? null : run(n - 1))
                    .signal()
                    .continuedAsNew(null, run(n));
        }
        List<Event> events = history.events();
        // when
        List<RunSummary> chain = HistoryProjection.runChain(events);
        // then
        assertThat(chain).hasSize(runs);
        assertThat(chain.get(0).runId()).isEqualTo(run(1));
        assertThat(chain.get(runs - 1).runId()).isEqualTo(run(runs));
        assertThat(chain).allMatch(r -> r.status() == WorkflowStatus.CONTINUED_AS_NEW && r.closedAt() != null);
    }

    @Test
    void null_arguments_are_rejected() {
        assertThatThrownBy(() -> HistoryProjection.runChain(null)).isInstanceOf(InvalidArgumentException.class);
        assertThatThrownBy(() -> HistoryProjection.runSegment(null, run(1)))
                .isInstanceOf(InvalidArgumentException.class);
        assertThatThrownBy(() -> HistoryProjection.runSegment(List.of(), null))
                .isInstanceOf(InvalidArgumentException.class);
    }
}
