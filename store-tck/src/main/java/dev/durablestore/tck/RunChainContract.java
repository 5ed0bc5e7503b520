package dev.durablestore.tck;

import static dev.durablestore.tck.KitSupport.TIMEOUT;
import static dev.durablestore.tck.KitSupport.failure;
import static dev.durablestore.tck.KitSupport.given;
import static dev.durablestore.tck.KitSupport.runChain;
import static dev.durablestore.tck.TestEvents.t;
import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.BackendException;
import dev.durablestore.api.RunId;
import dev.durablestore.api.RunSummary;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.WorkflowStatus;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

/** Contract group R, run chains (R40–R45). */
public abstract class RunChainContract extends ContractTestSupport {

    private final WorkflowId w = WorkflowId.random();

    private static RunId run(int n) {
        return RunId.parse(String.format("00000000-0000-4000-8000-%012d", n));
    }

    // ------------------------------------------------------------------ R40 empty

    @Test
    public void R40_C17_unknown_workflow_has_an_empty_chain() {
        // when / then
        StepVerifier.create(store.readRunChain(w))
                .expectNext(List.of())
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    public void R40_history_without_a_start_has_an_empty_chain() {
        // given
        TestEvents ev = TestEvents.of(w);
        given(store, List.of(ev.signalReceived("a"), ev.paused(), ev.completed()));
        // then
        assertThat(runChain(store, w)).isEmpty();
    }

    // ------------------------------------------------------------------ R41 / R42 slices

    @Test
    public void R41_R42_C18_single_run_is_one_running_slice() {
        // given
        given(store, List.of(TestEvents.of(w).started("checkout", run(1), null, t(1))));
        // then
        assertThat(runChain(store, w))
                .containsExactly(new RunSummary(run(1), null, WorkflowStatus.RUNNING, t(1), null));
    }

    @Test
    public void R42_C88_completed_run_is_closed_at_its_completion() {
        // given
        TestEvents ev = TestEvents.of(w);
        given(store, List.of(ev.started("checkout", run(1), null, t(1)), ev.completed(t(2))));
        // then
        assertThat(runChain(store, w))
                .containsExactly(new RunSummary(run(1), null, WorkflowStatus.COMPLETED, t(1), t(2)));
    }

    @Test
    public void R41_events_before_the_first_start_belong_to_no_run() {
        // given: a completion and a pause before the only start
        TestEvents ev = TestEvents.of(w);
        given(
                store,
                List.of(
                        ev.at(t(1)).completed(),
                        ev.paused(),
                        ev.started("checkout", run(1), null, t(5)),
                        ev.signalReceived("x")));
        // then
        assertThat(runChain(store, w))
                .containsExactly(new RunSummary(run(1), null, WorkflowStatus.RUNNING, t(5), null));
    }

    @Test
    public void R42_each_slice_projects_its_own_status_and_close_time() {
        // given: run 1 failed then reopened and continued-as-new; run 2 paused
        TestEvents ev = TestEvents.of(w);
        Instant closed = Instant.parse("2026-06-03T02:30:00.123456789Z");
        given(
                store,
                List.of(
                        ev.started("checkout", run(1), null, t(1)),
                        ev.failed("boom", t(2)),
                        ev.at(t(3)).reopened(),
                        ev.at(closed).continuedAsNew(),
                        ev.started("checkout", run(2), run(1), t(5)),
                        ev.at(t(6)).paused()));
        // then
        assertThat(runChain(store, w))
                .containsExactly(
                        new RunSummary(run(1), null, WorkflowStatus.CONTINUED_AS_NEW, t(1), closed),
                        new RunSummary(run(2), run(1), WorkflowStatus.PAUSED, t(5), null));
    }

    @Test
    public void R42_reopened_slice_is_running_without_close_time() {
        // given
        TestEvents ev = TestEvents.of(w);
        given(
                store,
                List.of(
                        ev.started("checkout", run(1), null, t(1)),
                        ev.failed("boom", t(2)),
                        ev.at(t(3)).reopened()));
        // then
        assertThat(runChain(store, w))
                .containsExactly(new RunSummary(run(1), null, WorkflowStatus.RUNNING, t(1), null));
    }

    // ------------------------------------------------------------------ R43 order by links

    @Test
    public void R43_R45_C17_continuation_follows_the_parent_link() {
        // given: run 101 at t1, continued at t2, run 102 (parent 101, "checkout-v2") at t3
        TestEvents ev = TestEvents.of(w);
        given(
                store,
                List.of(
                        ev.started("checkout", run(101), null, t(1)),
                        ev.at(t(2)).continuedAsNew()));
        given(store, List.of(ev.started("checkout-v2", run(102), run(101), t(3))));
        // then
        assertThat(runChain(store, w))
                .containsExactly(
                        new RunSummary(run(101), null, WorkflowStatus.CONTINUED_AS_NEW, t(1), t(2)),
                        new RunSummary(run(102), run(101), WorkflowStatus.RUNNING, t(3), null));
    }

    @Test
    public void R43_C18_three_runs_in_chain_order() {
        // given: 11 → 12 → 13
        TestEvents ev = TestEvents.of(w);
        given(
                store,
                List.of(
                        ev.started("a", run(11), null, t(1)), ev.at(t(2)).continuedAsNew(),
                        ev.started("a", run(12), run(11), t(3)), ev.at(t(4)).continuedAsNew(),
                        ev.started("a", run(13), run(12), t(5)), ev.completed(t(6))));
        // then
        assertThat(runChain(store, w))
                .containsExactly(
                        new RunSummary(run(11), null, WorkflowStatus.CONTINUED_AS_NEW, t(1), t(2)),
                        new RunSummary(run(12), run(11), WorkflowStatus.CONTINUED_AS_NEW, t(3), t(4)),
                        new RunSummary(run(13), run(12), WorkflowStatus.COMPLETED, t(5), t(6)));
    }

    @Test
    public void R43_chain_order_follows_links_not_seq_order() {
        // given: by seq the starts are A, C, B; by parent links the chain is A → B → C
        TestEvents ev = TestEvents.of(w);
        given(
                store,
                List.of(
                        ev.started("a", run(1), null, t(1)),
                        ev.started("c", run(3), run(2), t(2)),
                        ev.started("b", run(2), run(1), t(3))));
        // then
        assertThat(runChain(store, w)).extracting(RunSummary::runId).containsExactly(run(1), run(2), run(3));
        assertThat(runChain(store, w)).extracting(RunSummary::startedAt).containsExactly(t(1), t(3), t(2));
    }

    // ------------------------------------------------------------------ R44 malformed chains

    @Test
    public void R44_two_roots_fail_with_backend() {
        // given
        TestEvents ev = TestEvents.of(w);
        given(store, List.of(ev.started("a", run(1), null, t(1)), ev.started("a", run(2), null, t(2))));
        // then
        failure(store.readRunChain(w), BackendException.class);
    }

    @Test
    public void R44_no_root_fails_with_backend() {
        // given: two runs naming each other
        TestEvents ev = TestEvents.of(w);
        given(store, List.of(ev.started("a", run(1), run(2), t(1)), ev.started("a", run(2), run(1), t(2))));
        // then
        failure(store.readRunChain(w), BackendException.class);
    }

    @Test
    public void R44_two_runs_continuing_the_same_parent_fail_with_backend() {
        // given
        TestEvents ev = TestEvents.of(w);
        given(
                store,
                List.of(
                        ev.started("a", run(1), null, t(1)),
                        ev.started("a", run(2), run(1), t(2)),
                        ev.started("a", run(3), run(1), t(3))));
        // then
        failure(store.readRunChain(w), BackendException.class);
    }

    @Test
    public void R44_a_cycle_beside_the_root_fails_with_backend() {
        // given: root 1 → 2, and 3 ↔ 4 unreachable from the root
        TestEvents ev = TestEvents.of(w);
        given(
                store,
                List.of(
                        ev.started("a", run(1), null, t(1)),
                        ev.started("a", run(2), run(1), t(2)),
                        ev.started("a", run(3), run(4), t(3)),
                        ev.started("a", run(4), run(3), t(4))));
        // then
        failure(store.readRunChain(w), BackendException.class);
    }

    @Test
    public void R44_a_run_unreachable_from_the_root_fails_with_backend() {
        // given: run 3 continues run 9, which never started
        TestEvents ev = TestEvents.of(w);
        given(
                store,
                List.of(
                        ev.started("a", run(1), null, t(1)),
                        ev.started("a", run(2), run(1), t(2)),
                        ev.started("a", run(3), run(9), t(3))));
        // then
        failure(store.readRunChain(w), BackendException.class);
    }

    // ------------------------------------------------------------------ R45 parent source

    @Test
    public void R45_continued_as_new_parent_run_id_is_not_consulted() {
        // given: the continue-as-new names runs that do not exist; the starts alone link 1 → 2
        TestEvents ev = TestEvents.of(w);
        given(
                store,
                List.of(
                        ev.started("a", run(1), null, t(1)),
                        ev.at(t(2)).continuedAsNew(null, run(77)),
                        ev.started("a", run(2), run(1), t(3)),
                        ev.at(t(4)).continuedAsNew("b", run(88))));
        // then
        assertThat(runChain(store, w))
                .containsExactly(
                        new RunSummary(run(1), null, WorkflowStatus.CONTINUED_AS_NEW, t(1), t(2)),
                        new RunSummary(run(2), run(1), WorkflowStatus.CONTINUED_AS_NEW, t(3), t(4)));
    }

    @Test
    public void R40_to_R45_chains_of_different_workflows_are_independent() {
        // given
        WorkflowId other = WorkflowId.random();
        TestEvents ev = TestEvents.of(w);
        given(store, List.of(ev.started("a", run(1), null, t(1))));
        TestEvents ov = TestEvents.of(other);
        given(store, List.of(ov.started("b", run(2), null, t(2)), ov.completed(t(3))));
        // then
        assertThat(runChain(store, w)).extracting(RunSummary::runId).containsExactly(run(1));
        assertThat(runChain(store, other)).extracting(RunSummary::runId).containsExactly(run(2));
    }
}
