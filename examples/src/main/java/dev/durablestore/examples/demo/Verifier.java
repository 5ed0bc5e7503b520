package dev.durablestore.examples.demo;

import dev.durablestore.api.ActivityId;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.SerializationException;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.ActivityCompleted;
import dev.durablestore.api.event.ActivityError;
import dev.durablestore.api.event.ActivityFailed;
import dev.durablestore.api.event.ActivityScheduled;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.event.WorkflowCompleted;
import dev.durablestore.api.event.WorkflowFailed;
import dev.durablestore.api.event.WorkflowStarted;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Checks, after a run, every workflow history and outbox row in the file.
 *
 * <p>{@link #collect} reads a {@link Snapshot} from the store (every history, the state of every
 * scheduled activity's row, the live-row counts, whether every history decodes);
 * {@link #check} is a pure function of the snapshot, so tests can feed it broken states that the
 * store itself would refuse to produce (such as a gap in a history).
 */
public final class Verifier {

    private static final int MAX_PROBLEMS_KEPT = 1_000;

    private Verifier() {}

    /** The properties checked, each with the sentence the report prints. */
    public enum Check {
        /** Each history is seq 1 … head with no gap, and its head equals its last seq. */
        HISTORIES_CONTIGUOUS("every history is contiguous: seq 1..head, no gap"),
        /** No row is pending, claimed, cancelled or missing. */
        ROWS_SETTLED("every outbox row is settled: done or failed, none pending or claimed"),
        /** A done row has an ActivityCompleted; a failed row has none and has a terminal ActivityFailed. */
        OUTCOMES_MATCH_ROWS("each activity has an ActivityCompleted (row done) or a terminal failure (row failed)"),
        /** No activity has more than one ActivityCompleted. */
        COMPLETED_ONCE("every row was completed exactly once: no duplicate ActivityCompleted"),
        /** Each history starts with WorkflowStarted and ends with one terminal event that fits its rows. */
        WORKFLOWS_TERMINAL("every workflow ends terminal: WorkflowCompleted, or WorkflowFailed iff a row failed"),
        /** Every stored event decodes. */
        EVENTS_DECODE("every stored event decodes");

        private final String description;

        Check(String description) {
            this.description = description;
        }

        /** @return the sentence the report prints */
        public String description() {
            return description;
        }
    }

    /**
     * One workflow as stored.
     *
     * @param id the workflow
     * @param head the head the store reports
     * @param events its history
     * @param rows the status of each scheduled activity's row, by dispatch key; a key with no row is absent
     */
    public record WorkflowSnapshot(WorkflowId id, long head, List<Event> events, Map<String, OutboxStatus> rows) {}

    /**
     * The whole file.
     *
     * @param workflows every workflow with a history
     * @param liveRows pending or claimed rows in the demo's namespace ({@code countInflight})
     * @param unsettledWorkflows workflows that still have live rows ({@code listUnsettledWorkflowIds})
     * @param decodeError why a stored event does not decode, or null when all do
     */
    public record Snapshot(
            List<WorkflowSnapshot> workflows, long liveRows, List<WorkflowId> unsettledWorkflows, String decodeError) {}

    /**
     * The verdict.
     *
     * @param problems for each check, what is wrong (empty when it holds); at most 1,000 kept per check
     * @param problemCounts for each check, how many problems were found
     * @param rowCounts outbox rows by status; a row that should exist but does not counts under {@code null}
     * @param workflows workflows checked
     * @param completedWorkflows workflows whose last event is WorkflowCompleted
     * @param failedWorkflows workflows whose last event is WorkflowFailed
     * @param events events checked
     */
    public record Result(
            Map<Check, List<String>> problems,
            Map<Check, Integer> problemCounts,
            Map<OutboxStatus, Long> rowCounts,
            long workflows,
            long completedWorkflows,
            long failedWorkflows,
            long events) {

        /** @return true when every check holds */
        public boolean verified() {
            return problemCounts.values().stream().allMatch(n -> n == 0);
        }

        /** @return the first problem found, if any */
        public Optional<String> firstProblem() {
            return problems.values().stream().flatMap(List::stream).findFirst();
        }
    }

    /**
     * Reads every history and the state of every scheduled activity's row.
     *
     * @param store the store
     * @return the snapshot
     */
    public static Mono<Snapshot> collect(ReactiveStore store) {
        return Mono.defer(() -> {
            // Reading a history decodes each of its events, so a history that does not decode is
            // the decode check (no separate validateStoredEvents pass over the whole file).
            Queue<String> unreadable = new ConcurrentLinkedQueue<>();
            Mono<List<WorkflowSnapshot>> workflows = store.listWorkflowIds()
                    .flatMapSequential(
                            id -> collectOne(store, id).onErrorResume(SerializationException.class, e -> {
                                unreadable.add(id + ": " + e.getMessage());
                                return Mono.empty();
                            }),
                            8)
                    .collectList();
            return Mono.zip(
                            workflows,
                            store.countInflight(Workload.NAMESPACE),
                            store.listUnsettledWorkflowIds().collectList())
                    .map(t -> new Snapshot(
                            t.getT1(),
                            t.getT2(),
                            t.getT3(),
                            unreadable.isEmpty()
                                    ? null
                                    : unreadable.size() + " histories cannot be read, e.g. " + unreadable.peek()));
        });
    }

    private static Mono<WorkflowSnapshot> collectOne(ReactiveStore store, WorkflowId id) {
        return Mono.zip(store.readHistory(id).collectList(), store.readHead(id)).flatMap(t -> {
            List<String> keys = new ArrayList<>();
            for (Event e : t.getT1()) {
                if (e instanceof ActivityScheduled s) {
                    keys.add(Workload.dispatchKey(id, s.activityId()));
                }
            }
            return Flux.fromIterable(keys)
                    .flatMap(key -> store.rowState(key).map(state -> Map.entry(key, state.status())), 4)
                    .collectMap(Map.Entry::getKey, Map.Entry::getValue)
                    .map(rows -> new WorkflowSnapshot(id, t.getT2(), t.getT1(), rows));
        });
    }

    /**
     * Checks a snapshot.
     *
     * @param snapshot the snapshot
     * @return the verdict
     */
    public static Result check(Snapshot snapshot) {
        Map<Check, List<String>> problems = new EnumMap<>(Check.class);
        Map<Check, Integer> counts = new EnumMap<>(Check.class);
        for (Check c : Check.values()) {
            problems.put(c, new ArrayList<>());
            counts.put(c, 0);
        }
        Problems p = (check, text) -> {
            counts.merge(check, 1, Integer::sum);
            if (problems.get(check).size() < MAX_PROBLEMS_KEPT) {
                problems.get(check).add(text);
            }
        };
        Map<OutboxStatus, Long> rowCounts = new LinkedHashMap<>();
        for (OutboxStatus s : OutboxStatus.values()) {
            rowCounts.put(s, 0L);
        }
        long completedWorkflows = 0;
        long failedWorkflows = 0;
        long events = 0;
        for (WorkflowSnapshot w : snapshot.workflows()) {
            events += w.events().size();
            checkContiguous(w, p);
            boolean anyFailed = checkActivities(w, p, rowCounts);
            Event last = w.events().isEmpty() ? null : w.events().get(w.events().size() - 1);
            completedWorkflows += last instanceof WorkflowCompleted ? 1 : 0;
            failedWorkflows += last instanceof WorkflowFailed ? 1 : 0;
            checkLifecycle(w, anyFailed, p);
        }
        if (snapshot.liveRows() > 0) {
            p.add(Check.ROWS_SETTLED, snapshot.liveRows() + " rows are still pending or claimed (countInflight)");
        }
        if (!snapshot.unsettledWorkflows().isEmpty()) {
            p.add(
                    Check.ROWS_SETTLED,
                    snapshot.unsettledWorkflows().size() + " workflows still have live rows, e.g. "
                            + snapshot.unsettledWorkflows().get(0));
        }
        if (snapshot.decodeError() != null) {
            p.add(Check.EVENTS_DECODE, snapshot.decodeError());
        }
        return new Result(
                problems, counts, rowCounts, snapshot.workflows().size(), completedWorkflows, failedWorkflows, events);
    }

    @FunctionalInterface
    private interface Problems {
        void add(Check check, String text);
    }

    private static void checkContiguous(WorkflowSnapshot w, Problems p) {
        List<Event> events = w.events();
        if (events.isEmpty()) {
            p.add(Check.HISTORIES_CONTIGUOUS, w.id() + ": empty history");
            return;
        }
        for (int i = 0; i < events.size(); i++) {
            if (events.get(i).seq() != i + 1) {
                p.add(
                        Check.HISTORIES_CONTIGUOUS,
                        w.id() + ": expected seq " + (i + 1) + " at position " + (i + 1) + " but found seq "
                                + events.get(i).seq());
                return;
            }
        }
        if (w.head() != events.size()) {
            p.add(
                    Check.HISTORIES_CONTIGUOUS,
                    w.id() + ": head is " + w.head() + " but the history has " + events.size() + " events");
        }
    }

    /** @return true when some activity's row is dead-lettered */
    private static boolean checkActivities(WorkflowSnapshot w, Problems p, Map<OutboxStatus, Long> rowCounts) {
        Map<Long, Integer> completions = new HashMap<>();
        Map<Long, Boolean> terminalFailure = new HashMap<>();
        List<ActivityId> scheduled = new ArrayList<>();
        for (Event e : w.events()) {
            if (e instanceof ActivityScheduled s) {
                scheduled.add(s.activityId());
            } else if (e instanceof ActivityCompleted c) {
                completions.merge(c.activityId().position(), 1, Integer::sum);
            } else if (e instanceof ActivityFailed f && f.error().kind() == ActivityError.Kind.TERMINAL) {
                terminalFailure.put(f.activityId().position(), true);
            }
        }
        boolean anyFailed = false;
        for (ActivityId a : scheduled) {
            String key = Workload.dispatchKey(w.id(), a);
            OutboxStatus status = w.rows().get(key);
            rowCounts.merge(status, 1L, Long::sum);
            int done = completions.getOrDefault(a.position(), 0);
            if (status == null) {
                p.add(Check.ROWS_SETTLED, "row " + key + " is missing");
            } else if (status != OutboxStatus.DONE && status != OutboxStatus.FAILED) {
                p.add(Check.ROWS_SETTLED, "row " + key + " is " + status.token());
            }
            if (done > 1) {
                p.add(Check.COMPLETED_ONCE, w.id() + ": " + a + " has " + done + " ActivityCompleted events");
            }
            if (status == OutboxStatus.DONE && done == 0) {
                p.add(Check.OUTCOMES_MATCH_ROWS, "row " + key + " is done but " + a + " has no ActivityCompleted");
            } else if (status == OutboxStatus.FAILED) {
                anyFailed = true;
                if (done > 0) {
                    p.add(Check.OUTCOMES_MATCH_ROWS, "row " + key + " is failed but " + a + " completed");
                } else if (!terminalFailure.containsKey(a.position())) {
                    p.add(
                            Check.OUTCOMES_MATCH_ROWS,
                            "row " + key + " is failed but " + a + " has no terminal ActivityFailed");
                }
            }
        }
        Set<Long> positions = new HashSet<>();
        scheduled.forEach(a -> positions.add(a.position()));
        for (Long a : completions.keySet()) {
            if (!positions.contains(a)) {
                p.add(Check.OUTCOMES_MATCH_ROWS, w.id() + ": ActivityCompleted for unscheduled activity:" + a);
            }
        }
        return anyFailed;
    }

    private static void checkLifecycle(WorkflowSnapshot w, boolean anyFailed, Problems p) {
        List<Event> events = w.events();
        if (events.isEmpty()) {
            return;
        }
        if (!(events.get(0) instanceof WorkflowStarted)) {
            p.add(Check.WORKFLOWS_TERMINAL, w.id() + ": does not start with WorkflowStarted");
        }
        long terminals = events.stream()
                .filter(e -> e instanceof WorkflowCompleted || e instanceof WorkflowFailed)
                .count();
        Event last = events.get(events.size() - 1);
        if (terminals == 0) {
            p.add(Check.WORKFLOWS_TERMINAL, w.id() + ": still running (last event " + last.kind() + ")");
        } else if (terminals > 1) {
            p.add(Check.WORKFLOWS_TERMINAL, w.id() + ": " + terminals + " terminal events");
        } else if (!(last instanceof WorkflowCompleted || last instanceof WorkflowFailed)) {
            p.add(Check.WORKFLOWS_TERMINAL, w.id() + ": events after its terminal event");
        } else if (last instanceof WorkflowFailed != anyFailed) {
            p.add(
                    Check.WORKFLOWS_TERMINAL,
                    w.id() + ": ended " + last.kind() + " but "
                            + (anyFailed ? "a row was dead-lettered" : "no row was dead-lettered"));
        }
    }
}
