package dev.durablestore.tck;

import static dev.durablestore.tck.KitSupport.TIMEOUT;
import static dev.durablestore.tck.KitSupport.given;
import static dev.durablestore.tck.KitSupport.invalidArgument;
import static dev.durablestore.tck.KitSupport.query;
import static dev.durablestore.tck.KitSupport.wid;
import static dev.durablestore.tck.TestEvents.t;
import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.WorkflowFilter;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.WorkflowStatus;
import dev.durablestore.api.WorkflowSummary;
import java.util.List;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

/**
 * Contract of {@code readSummary} (R46), the Java addition of issue 19: the summary of one workflow
 * is exactly the element {@code query(WorkflowFilter.all())} emits for it (R24–R31), or nothing.
 */
public abstract class ReadSummaryContract extends ContractTestSupport {

    private final WorkflowId parent = wid("d0000000-0000-0000-0000-000000000001");
    private final WorkflowId child = wid("c0000000-0000-0000-0000-000000000002");
    private final WorkflowId completed = wid("b0000000-0000-0000-0000-000000000003");
    private final WorkflowId failed = wid("a0000000-0000-0000-0000-000000000004");

    /**
     * The parent ("parent", started t1, then starts the child), the child ("checkout", started t10),
     * a completed workflow (t20 to t21) and a failed one whose step "charge" failed (t30 to t31).
     */
    private void givenFourWorkflows() {
        TestEvents pe = TestEvents.of(parent);
        given(store, List.of(pe.started("parent", t(1)), pe.childStarted(child, "checkout")));
        given(store, List.of(TestEvents.of(child).started("checkout", t(10))));
        TestEvents ce = TestEvents.of(completed);
        given(store, List.of(ce.started("checkout", t(20)), ce.completed(t(21))));
        TestEvents fe = TestEvents.of(failed);
        given(
                store,
                List.of(
                        fe.started("billing", t(30)),
                        fe.activityScheduled(2, "charge"),
                        fe.activityFailed(2, "card declined", 1),
                        fe.failed("billing failed", t(31))));
    }

    /** @return the element of {@code query(all())} for {@code w}, which must be there once */
    private WorkflowSummary queried(WorkflowId w) {
        List<WorkflowSummary> matches = query(store, WorkflowFilter.all()).stream()
                .filter(s -> s.workflowId().equals(w))
                .toList();
        assertThat(matches).as("summaries of %s", w).hasSize(1);
        return matches.get(0);
    }

    private void assertSummaryIs(WorkflowId w, WorkflowSummary expected) {
        StepVerifier.create(store.readSummary(w))
                .expectNext(expected)
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void R46_R30_summaries_of_a_running_parent_and_its_child_equal_their_query_elements() {
        // given
        givenFourWorkflows();
        // when / then: the running parent has no parent, the running child has the parent
        assertSummaryIs(parent, queried(parent));
        assertSummaryIs(
                parent, new WorkflowSummary(parent, "parent", WorkflowStatus.RUNNING, t(1), null, null, null, null));
        assertSummaryIs(child, queried(child));
        assertSummaryIs(
                child, new WorkflowSummary(child, "checkout", WorkflowStatus.RUNNING, t(10), null, parent, null, null));
    }

    @Test
    void R46_R26_R28_summaries_of_a_completed_and_a_failed_workflow_equal_their_query_elements() {
        // given
        givenFourWorkflows();
        // when / then: end times, failed step and failure reason as the query projects them
        assertSummaryIs(completed, queried(completed));
        assertSummaryIs(
                completed,
                new WorkflowSummary(completed, "checkout", WorkflowStatus.COMPLETED, t(20), t(21), null, null, null));
        assertSummaryIs(failed, queried(failed));
        assertSummaryIs(
                failed,
                new WorkflowSummary(
                        failed, "billing", WorkflowStatus.FAILED, t(30), t(31), null, "charge", "billing failed"));
    }

    @Test
    void R46_R27_R28_a_failure_followed_by_a_resume_or_a_reopen_projects_as_the_query_does() {
        // given: one workflow resumed after its failure (running, failure fields kept), one reopened (cleared)
        WorkflowId resumed = WorkflowId.random();
        TestEvents re = TestEvents.of(resumed);
        given(
                store,
                List.of(
                        re.started("a", t(1)),
                        re.activityScheduled(2, "step"),
                        re.activityFailed(2, "x", 1),
                        re.failed("broke", t(3)),
                        re.at(t(4)).resumed()));
        WorkflowId reopened = WorkflowId.random();
        TestEvents oe = TestEvents.of(reopened);
        given(
                store,
                List.of(
                        oe.started("b", t(5)),
                        oe.activityScheduled(2, "step"),
                        oe.activityFailed(2, "y", 1),
                        oe.failed("boom", t(6)),
                        oe.reopened(2)));
        // when / then
        assertSummaryIs(resumed, queried(resumed));
        assertSummaryIs(
                resumed, new WorkflowSummary(resumed, "a", WorkflowStatus.RUNNING, t(1), t(3), null, "step", "broke"));
        assertSummaryIs(reopened, queried(reopened));
        assertThat(store.readSummary(reopened).block(TIMEOUT).failureReason()).isNull();
    }

    @Test
    void R46_R30_with_several_parents_naming_the_child_the_one_the_query_picks_wins() {
        // given: parents p1 < p2 by text both start the child, p1 later in time
        WorkflowId kid = wid("00000000-0000-0000-0000-0000000000cc");
        WorkflowId p1 = wid("00000000-0000-0000-0000-000000000001");
        WorkflowId p2 = wid("80000000-0000-0000-0000-000000000000");
        TestEvents e2 = TestEvents.of(p2);
        given(store, List.of(e2.started("parent", t(1)), e2.childStarted(kid, "kid")));
        TestEvents e1 = TestEvents.of(p1);
        given(store, List.of(e1.started("parent", t(2)), e1.childStarted(kid, "kid"), e1.signalReceived("x")));
        given(store, List.of(TestEvents.of(kid).started("kid", t(3))));
        // when / then
        assertSummaryIs(kid, queried(kid));
        assertThat(store.readSummary(kid).block(TIMEOUT).parent()).isEqualTo(p2);
    }

    @Test
    void R46_R24_an_unknown_workflow_and_one_without_a_start_have_no_summary() {
        // given the four workflows and one whose history has no start event
        givenFourWorkflows();
        WorkflowId noStart = WorkflowId.random();
        TestEvents ev = TestEvents.of(noStart);
        given(store, List.of(ev.signalReceived("x"), ev.paused(), ev.completed()));
        // when / then
        StepVerifier.create(store.readSummary(noStart)).expectComplete().verify(TIMEOUT);
        StepVerifier.create(store.readSummary(WorkflowId.random()))
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void R46_X10_a_null_workflow_id_is_rejected() {
        // when / then
        invalidArgument(() -> store.readSummary(null), "workflowId");
    }
}
