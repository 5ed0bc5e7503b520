package dev.durablestore.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.ActivityId;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.Payload;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.ActivityCompleted;
import dev.durablestore.api.event.ActivityError;
import dev.durablestore.api.event.ActivityFailed;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.event.EventEnvelope;
import dev.durablestore.api.event.WorkflowCompleted;
import dev.durablestore.api.event.WorkflowError;
import dev.durablestore.api.event.WorkflowFailed;
import dev.durablestore.examples.demo.Verifier.Check;
import dev.durablestore.examples.demo.Verifier.Snapshot;
import dev.durablestore.examples.demo.Verifier.WorkflowSnapshot;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The verification logic on hand-made snapshots, including states the store would refuse to produce. */
class VerifierTest {

    private static final Instant T = Instant.parse("2025-01-01T00:00:00Z");

    @Test
    void aFinishedRunVerifies() {
        Verifier.Result r = Verifier.check(snapshot(completed(0, 3), failedOne(1, 3)));
        assertThat(r.verified()).as("%s", r.problems()).isTrue();
        assertThat(r.firstProblem()).isEmpty();
        assertThat(r.workflows()).isEqualTo(2);
        assertThat(r.completedWorkflows()).isEqualTo(1);
        assertThat(r.failedWorkflows()).isEqualTo(1);
        assertThat(r.rowCounts()).containsEntry(OutboxStatus.DONE, 5L).containsEntry(OutboxStatus.FAILED, 1L);
    }

    @Test
    void aGapInAHistoryFails() {
        WorkflowSnapshot w = completed(0, 3);
        List<Event> events = new ArrayList<>(w.events());
        events.remove(2); // seq 3 gone: 1, 2, 4, 5, ...
        WorkflowSnapshot gap = new WorkflowSnapshot(w.id(), w.head(), events, w.rows());
        Verifier.Result r = Verifier.check(snapshot(gap));
        assertThat(r.verified()).isFalse();
        assertThat(r.problems().get(Check.HISTORIES_CONTIGUOUS))
                .singleElement()
                .asString()
                .contains("expected seq 3")
                .contains("found seq 4");
    }

    @Test
    void aHeadThatDisagreesWithTheHistoryFails() {
        WorkflowSnapshot w = completed(0, 2);
        Verifier.Result r = Verifier.check(snapshot(new WorkflowSnapshot(w.id(), w.head() + 1, w.events(), w.rows())));
        assertThat(r.problems().get(Check.HISTORIES_CONTIGUOUS))
                .singleElement()
                .asString()
                .contains("head is");
    }

    @Test
    void anUnsettledRowFails() {
        WorkflowSnapshot w = completed(0, 3);
        Map<String, OutboxStatus> rows = new HashMap<>(w.rows());
        String key = Workload.dispatchKey(w.id(), Workload.activityId(2));
        rows.put(key, OutboxStatus.CLAIMED);
        Verifier.Result r = Verifier.check(new Snapshot(
                List.of(new WorkflowSnapshot(w.id(), w.head(), w.events(), rows)), 1, List.of(w.id()), null));
        assertThat(r.verified()).isFalse();
        assertThat(r.problems().get(Check.ROWS_SETTLED))
                .anySatisfy(p -> assertThat(p).contains(key).contains("claimed"))
                .anySatisfy(p -> assertThat(p).contains("1 rows are still pending or claimed"));
        assertThat(r.rowCounts()).containsEntry(OutboxStatus.CLAIMED, 1L);
    }

    @Test
    void aMissingRowFails() {
        WorkflowSnapshot w = completed(0, 2);
        Map<String, OutboxStatus> rows = new HashMap<>(w.rows());
        rows.remove(Workload.dispatchKey(w.id(), Workload.activityId(1)));
        Verifier.Result r = Verifier.check(snapshot(new WorkflowSnapshot(w.id(), w.head(), w.events(), rows)));
        assertThat(r.problems().get(Check.ROWS_SETTLED))
                .singleElement()
                .asString()
                .contains("missing");
    }

    @Test
    void aDuplicateActivityCompletedFails() {
        WorkflowSnapshot w = completed(0, 2);
        List<Event> events = new ArrayList<>(w.events());
        Event terminal = events.remove(events.size() - 1);
        ActivityId first = Workload.activityId(1);
        events.add(new ActivityCompleted(env(w.id(), events.size() + 1), first, Payload.json("{}"), 2));
        events.add(new WorkflowCompleted(env(w.id(), events.size() + 1), Payload.json("{}")));
        assertThat(terminal).isInstanceOf(WorkflowCompleted.class);
        Verifier.Result r = Verifier.check(snapshot(new WorkflowSnapshot(w.id(), events.size(), events, w.rows())));
        assertThat(r.verified()).isFalse();
        assertThat(r.problems().get(Check.COMPLETED_ONCE))
                .singleElement()
                .asString()
                .contains(first.toString())
                .contains("2 ActivityCompleted");
        assertThat(r.problems().get(Check.HISTORIES_CONTIGUOUS)).isEmpty();
    }

    @Test
    void aDoneRowWithoutACompletionFails() {
        WorkflowSnapshot w = completed(0, 2);
        List<Event> events = new ArrayList<>(w.events().subList(0, 3)); // started + 2 scheduled
        events.add(new WorkflowCompleted(env(w.id(), 4), Payload.json("{}")));
        Verifier.Result r = Verifier.check(snapshot(new WorkflowSnapshot(w.id(), 4, events, w.rows())));
        assertThat(r.problems().get(Check.OUTCOMES_MATCH_ROWS))
                .hasSize(2)
                .allSatisfy(p -> assertThat(p).contains("is done but").contains("no ActivityCompleted"));
    }

    @Test
    void aFailedRowWithoutATerminalFailureFails() {
        WorkflowSnapshot w = failedOne(0, 2);
        List<Event> events = new ArrayList<>();
        for (Event e : w.events()) {
            events.add(
                    e instanceof ActivityFailed f
                            ? new ActivityFailed(
                                    f.envelope(),
                                    f.activityId(),
                                    new ActivityError(ActivityError.Kind.RETRYABLE, "flaky", null),
                                    f.attempt())
                            : e);
        }
        Verifier.Result r = Verifier.check(snapshot(new WorkflowSnapshot(w.id(), w.head(), events, w.rows())));
        assertThat(r.problems().get(Check.OUTCOMES_MATCH_ROWS))
                .singleElement()
                .asString()
                .contains("no terminal ActivityFailed");
    }

    @Test
    void aWorkflowThatNeverEndedFails() {
        WorkflowSnapshot w = completed(0, 2);
        List<Event> events = w.events().subList(0, w.events().size() - 1);
        Verifier.Result r = Verifier.check(snapshot(new WorkflowSnapshot(w.id(), events.size(), events, w.rows())));
        assertThat(r.problems().get(Check.WORKFLOWS_TERMINAL))
                .singleElement()
                .asString()
                .contains("still running");
    }

    @Test
    void aCompletedWorkflowWithADeadLetterFails() {
        WorkflowSnapshot w = failedOne(0, 2);
        List<Event> events = new ArrayList<>(w.events().subList(0, w.events().size() - 1));
        events.add(new WorkflowCompleted(env(w.id(), events.size() + 1), Payload.json("{}")));
        Verifier.Result r = Verifier.check(snapshot(new WorkflowSnapshot(w.id(), events.size(), events, w.rows())));
        assertThat(r.problems().get(Check.WORKFLOWS_TERMINAL))
                .singleElement()
                .asString()
                .contains("a row was dead-lettered");
    }

    @Test
    void anUndecodableEventFails() {
        Verifier.Result r = Verifier.check(new Snapshot(List.of(completed(0, 1)), 0, List.of(), "bad event at seq 2"));
        assertThat(r.problems().get(Check.EVENTS_DECODE)).containsExactly("bad event at seq 2");
        assertThat(r.verified()).isFalse();
    }

    // --- hand-made histories, as the demo writes them ---

    static Snapshot snapshot(WorkflowSnapshot... workflows) {
        return new Snapshot(List.of(workflows), 0, List.of(), null);
    }

    /** Workflow {@code index} with {@code k} activities, all completed on the first attempt. */
    static WorkflowSnapshot completed(int index, int k) {
        WorkflowId id = Workload.workflowId(index);
        List<Event> events = new ArrayList<>(Workload.startEvents(index, k, T));
        Map<String, OutboxStatus> rows = new HashMap<>();
        for (int o = 1; o <= k; o++) {
            ActivityId a = Workload.activityId(o);
            events.add(new ActivityCompleted(env(id, events.size() + 1), a, Payload.json("{}"), 1));
            rows.put(Workload.dispatchKey(id, a), OutboxStatus.DONE);
        }
        events.add(new WorkflowCompleted(env(id, events.size() + 1), Payload.json("{}")));
        return new WorkflowSnapshot(id, events.size(), events, rows);
    }

    /** Workflow {@code index} whose first activity was dead-lettered and the others completed. */
    static WorkflowSnapshot failedOne(int index, int k) {
        WorkflowId id = Workload.workflowId(index);
        List<Event> events = new ArrayList<>(Workload.startEvents(index, k, T));
        Map<String, OutboxStatus> rows = new HashMap<>();
        for (int o = 1; o <= k; o++) {
            ActivityId a = Workload.activityId(o);
            if (o == 1) {
                events.add(new ActivityFailed(
                        env(id, events.size() + 1),
                        a,
                        new ActivityError(ActivityError.Kind.TERMINAL, "poison activity", null),
                        4));
                rows.put(Workload.dispatchKey(id, a), OutboxStatus.FAILED);
            } else {
                events.add(new ActivityCompleted(env(id, events.size() + 1), a, Payload.json("{}"), 1));
                rows.put(Workload.dispatchKey(id, a), OutboxStatus.DONE);
            }
        }
        events.add(new WorkflowFailed(env(id, events.size() + 1), new WorkflowError("1 dead-lettered", null)));
        return new WorkflowSnapshot(id, events.size(), events, rows);
    }

    static EventEnvelope env(WorkflowId id, long seq) {
        return new EventEnvelope(seq, T, id);
    }
}
