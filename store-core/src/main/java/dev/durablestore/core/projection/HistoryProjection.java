package dev.durablestore.core.projection;

import dev.durablestore.api.ActivityId;
import dev.durablestore.api.BackendException;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.RunId;
import dev.durablestore.api.RunSummary;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.WorkflowStatus;
import dev.durablestore.api.WorkflowSummary;
import dev.durablestore.api.event.ActivityCancelled;
import dev.durablestore.api.event.ActivityCompleted;
import dev.durablestore.api.event.ActivityFailed;
import dev.durablestore.api.event.ActivityScheduled;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.event.EventKind;
import dev.durablestore.api.event.SearchAttributeValue;
import dev.durablestore.api.event.SearchAttributesUpdated;
import dev.durablestore.api.event.WorkflowFailed;
import dev.durablestore.api.event.WorkflowStarted;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.RandomAccess;
import java.util.Set;
import java.util.TreeMap;

/**
 * Projections of one workflow's history (contract group R): status (R10–R17), current-lease
 * terminal and end time (R18), query summary (R24–R29), run chain (R40–R45) and search attributes
 * (M19).
 *
 * <p>Every method is a pure function of its arguments (R17): the same events always give the same
 * answer, and nothing is cached or mutated. Inputs are one workflow's events in ascending
 * {@code seq} order; callers guarantee that order and the methods do not re-sort or check it. Each
 * method takes time linear in the number of events (lists without {@link RandomAccess} are copied
 * once first) and never rescans the history per event.
 *
 * <p>Failures are thrown synchronously; a backend calls these methods inside its own publisher
 * (for example {@code Mono.fromCallable}) so that they reach subscribers as {@code onError} signals.
 */
public final class HistoryProjection {

    private HistoryProjection() {}

    /**
     * Projects the status of a history (R10): scanning backwards from the last event, the first
     * lifecycle event decides — {@code WorkflowStarted}, {@code WorkflowReopened},
     * {@code WorkflowResumed} give {@code RUNNING}; {@code WorkflowPaused} gives {@code PAUSED};
     * each terminal kind gives its terminal status. Every other kind is skipped (M11). A history
     * with no lifecycle event, including the empty one, is {@code RUNNING} (R11).
     *
     * <p>Consequences: a reopen after a terminal runs again (R12), pause and resume toggle
     * {@code PAUSED}/{@code RUNNING} (R13), a terminal recorded while paused wins (R14), a new start
     * after a continue-as-new runs (R15), and of two terminals the later wins (R16).
     *
     * @param events one workflow's events in ascending {@code seq} order (may be empty)
     * @return the projected status, never {@code null}
     * @throws InvalidArgumentException when {@code events} is {@code null}
     */
    public static WorkflowStatus status(List<? extends Event> events) {
        List<? extends Event> list = randomAccess(events, "events");
        return statusOf(list, 0, list.size());
    }

    /**
     * Finds the current-lease terminal of a history (R18): scanning backwards from the last event,
     * the first terminal kind met (M12) is the answer; meeting a reset kind ({@code WorkflowStarted},
     * {@code WorkflowReopened}) first, or reaching the beginning, means there is none. Pause markers
     * and all non-lifecycle kinds are skipped, so this scan is independent of {@link #status}: for
     * {@code [WorkflowStarted, WorkflowCompleted, WorkflowResumed]} the status is {@code RUNNING} but
     * the current-lease terminal is still the completion.
     *
     * <p>Its {@code recordedAt} is the end time of summaries ({@code endedAt}, R26) and runs
     * ({@code closedAt}, R42).
     *
     * @param events one workflow's events (or one run's slice) in ascending {@code seq} order
     * @return the terminal event of the current lease, or empty when the lease has not ended
     * @throws InvalidArgumentException when {@code events} is {@code null}
     */
    public static Optional<Event> currentLeaseTerminal(List<? extends Event> events) {
        List<? extends Event> list = randomAccess(events, "events");
        int index = leaseTerminalIndex(list, 0, list.size());
        return index < 0 ? Optional.empty() : Optional.of(list.get(index));
    }

    /**
     * Builds the query summary of one workflow (R24–R29).
     *
     * <ul>
     *   <li>Empty when the history has no {@code WorkflowStarted} (R24).
     *   <li>{@code workflowType} and {@code startedAt} come from the <em>last</em>
     *       {@code WorkflowStarted}, {@code startedAt} being its {@code recordedAt} (R25).
     *   <li>{@code status} is {@link #status} over the whole history; {@code endedAt} is the
     *       {@code recordedAt} of {@link #currentLeaseTerminal} over the whole history (R26).
     *   <li>{@code failureReason} is the {@code error.message} of the current-lease terminal when it
     *       is a {@code WorkflowFailed}, absent otherwise — including after a reopen (R27). It does
     *       not depend on {@code status}: a {@code WorkflowResumed} after the failure makes the
     *       status {@code RUNNING} but keeps the failure fields, as it keeps {@code endedAt}.
     *   <li>{@code failedStep} is present only when the current-lease terminal is a
     *       {@code WorkflowFailed}. Over the current lease (the events after the last
     *       {@code WorkflowStarted} or {@code WorkflowReopened}) it takes the latest
     *       {@code ActivityFailed}, of any error kind, and reports the {@code activityType} of the
     *       most recent {@code ActivityScheduled} for the same activity id that precedes that
     *       failure in the lease. It is absent when the lease has no {@code ActivityFailed}, when no
     *       such {@code ActivityScheduled} precedes it, when that type is the empty string, or when
     *       the same activity id has an {@code ActivityCompleted} or {@code ActivityCancelled}
     *       anywhere in the lease. An earlier failed activity is never reported instead (R28, R29).
     *   <li>{@code parent} is taken as given: it depends on other workflows' histories (R30) and is
     *       computed with a {@link ParentIndex}.
     * </ul>
     *
     * @param workflowId the workflow the history belongs to
     * @param events its events in ascending {@code seq} order
     * @param parent the workflow whose {@code ChildWorkflowStarted} names this one (R30), or
     *     {@code null} when there is none
     * @return the summary, or empty when the history has no {@code WorkflowStarted}
     * @throws InvalidArgumentException when {@code workflowId} or {@code events} is {@code null}
     */
    public static Optional<WorkflowSummary> summarize(
            WorkflowId workflowId, List<? extends Event> events, WorkflowId parent) {
        InvalidArgumentException.requireNonNull(workflowId, "workflowId");
        List<? extends Event> list = randomAccess(events, "events");
        int size = list.size();

        // One backward scan finds the current-lease terminal, the last reset (start of the
        // current lease) and then the last WorkflowStarted (the current run).
        Event terminal = null;
        int lastReset = -1;
        int i = size - 1;
        for (; i >= 0; i--) {
            EventKind kind = list.get(i).kind();
            if (kind.isReset()) {
                lastReset = i;
                break;
            }
            if (terminal == null && kind.isTerminal()) {
                terminal = list.get(i);
            }
        }
        WorkflowStarted start = null;
        for (; i >= 0; i--) {
            if (list.get(i) instanceof WorkflowStarted started) {
                start = started;
                break;
            }
        }
        if (start == null) {
            return Optional.empty();
        }

        String failureReason = null;
        String failedStep = null;
        if (terminal instanceof WorkflowFailed failed) {
            failureReason = failed.error().message();
            failedStep = failedStep(list, lastReset + 1, size);
        }
        return Optional.of(new WorkflowSummary(
                workflowId,
                start.workflowType(),
                statusOf(list, 0, size),
                start.recordedAt(),
                terminal == null ? null : terminal.recordedAt(),
                parent,
                failedStep,
                failureReason));
    }

    /**
     * Computes every workflow's parent from the {@code ChildWorkflowStarted} events of all
     * histories (R30); a convenience over {@link ParentIndex}. When several events name the same
     * child, the last in (parent workflow id text, {@code seq}) order wins, whatever order the
     * events are given in.
     *
     * @param events events of any workflows; kinds other than {@code ChildWorkflowStarted} are
     *     ignored
     * @return an unmodifiable map from child workflow id to parent workflow id
     * @throws InvalidArgumentException when {@code events} is {@code null}
     */
    public static Map<WorkflowId, WorkflowId> parents(Iterable<? extends Event> events) {
        return new ParentIndex().acceptAll(events).asMap();
    }

    /**
     * Projects the run chain of a history (R40–R45).
     *
     * <p>The history is split into run slices: each {@code WorkflowStarted} begins a slice that
     * runs up to, not including, the next {@code WorkflowStarted}; events before the first
     * {@code WorkflowStarted} belong to no run (R41). Each slice yields one {@link RunSummary}:
     * {@code runId} and {@code parentRunId} from its {@code WorkflowStarted}, {@code status} =
     * {@link #status} over the slice, {@code startedAt} = the start's {@code recordedAt},
     * {@code closedAt} = the {@code recordedAt} of {@link #currentLeaseTerminal} over the slice
     * (R42). The runs are ordered by following parent links from the single run without a parent
     * (the root) to the run nobody continues, not by {@code seq} (R43). Parent links come only from
     * {@code WorkflowStarted.parentRunId}; {@code WorkflowContinuedAsNew.parentRunId} is not read
     * (R45).
     *
     * @param events one workflow's events in ascending {@code seq} order
     * @return the runs, root first; an empty list when there is no {@code WorkflowStarted} (R40)
     * @throws BackendException when the chain is malformed (R44): no root or more than one root, two
     *     runs naming the same parent, a cycle, a run that cannot be reached from the root, or a run
     *     id started more than once; the message names the run ids involved
     * @throws InvalidArgumentException when {@code events} is {@code null}
     */
    public static List<RunSummary> runChain(List<? extends Event> events) {
        List<? extends Event> list = randomAccess(events, "events");
        List<RunChains.Run> runs = new ArrayList<>();
        int sliceStart = -1;
        for (int i = 0; i < list.size(); i++) {
            if (list.get(i).kind() == EventKind.WORKFLOW_STARTED) {
                if (sliceStart >= 0) {
                    runs.add(runOf(list, sliceStart, i));
                }
                sliceStart = i;
            }
        }
        if (sliceStart >= 0) {
            runs.add(runOf(list, sliceStart, list.size()));
        }
        return RunChains.order(runs);
    }

    /**
     * Returns one run's slice of a history (R41): the events from the {@code WorkflowStarted} that
     * starts {@code runId} up to, not including, the next {@code WorkflowStarted}. Should several
     * starts name the same run (a malformed chain, R44), the last one is used.
     *
     * @param events one workflow's events in ascending {@code seq} order
     * @param runId the run
     * @return an unmodifiable list of the run's events, starting with its {@code WorkflowStarted};
     *     empty when no {@code WorkflowStarted} starts {@code runId}
     * @throws InvalidArgumentException when an argument is {@code null}
     */
    public static List<Event> runSegment(List<? extends Event> events, RunId runId) {
        List<? extends Event> list = randomAccess(events, "events");
        InvalidArgumentException.requireNonNull(runId, "runId");
        int from = -1;
        for (int i = list.size() - 1; i >= 0; i--) {
            if (list.get(i) instanceof WorkflowStarted started
                    && started.runId().equals(runId)) {
                from = i;
                break;
            }
        }
        if (from < 0) {
            return List.of();
        }
        int to = from + 1;
        while (to < list.size() && list.get(to).kind() != EventKind.WORKFLOW_STARTED) {
            to++;
        }
        return List.copyOf(list.subList(from, to));
    }

    /**
     * Folds the {@code SearchAttributesUpdated} events of a history in {@code seq} order into the
     * current attribute map (M19): each update overwrites the keys it names and leaves the others;
     * nothing is ever removed. Other kinds are ignored.
     *
     * @param events one workflow's events in ascending {@code seq} order
     * @return an unmodifiable map ordered by attribute name; empty when no update was recorded
     * @throws InvalidArgumentException when {@code events} is {@code null}
     */
    public static Map<String, SearchAttributeValue> searchAttributes(List<? extends Event> events) {
        InvalidArgumentException.requireNonNull(events, "events");
        Map<String, SearchAttributeValue> attributes = new TreeMap<>();
        for (Event event : events) {
            if (event instanceof SearchAttributesUpdated update) {
                attributes.putAll(update.attributes());
            }
        }
        return Collections.unmodifiableMap(attributes);
    }

    // ---------------------------------------------------------------------------------------
    // Range helpers over [from, to) of a random-access list.

    /** R10/R11 over {@code [from, to)}. */
    private static WorkflowStatus statusOf(List<? extends Event> list, int from, int to) {
        for (int i = to - 1; i >= from; i--) {
            WorkflowStatus projected = list.get(i).kind().projectedStatus();
            if (projected != null) {
                return projected;
            }
        }
        return WorkflowStatus.RUNNING;
    }

    /** R18 over {@code [from, to)}: the index of the current-lease terminal, or -1. */
    private static int leaseTerminalIndex(List<? extends Event> list, int from, int to) {
        for (int i = to - 1; i >= from; i--) {
            EventKind kind = list.get(i).kind();
            if (kind.isTerminal()) {
                return i;
            }
            if (kind.isReset()) {
                return -1;
            }
        }
        return -1;
    }

    /** R42: the run summary of the slice {@code [from, to)}, which starts with a WorkflowStarted. */
    private static RunChains.Run runOf(List<? extends Event> list, int from, int to) {
        WorkflowStarted start = (WorkflowStarted) list.get(from);
        int terminal = leaseTerminalIndex(list, from, to);
        Instant closedAt = terminal < 0 ? null : list.get(terminal).recordedAt();
        RunSummary summary = new RunSummary(
                start.runId(), start.parentRunId(), statusOf(list, from, to), start.recordedAt(), closedAt);
        return new RunChains.Run(summary, start.seq());
    }

    /**
     * R28 over the current lease {@code [from, to)}, in one forward pass: remembers the latest
     * scheduled type per activity id, the latest failure with the type scheduled before it, and the
     * activity ids that completed or were cancelled.
     */
    private static String failedStep(List<? extends Event> list, int from, int to) {
        Map<ActivityId, String> scheduledType = new HashMap<>();
        Set<ActivityId> settled = new HashSet<>();
        ActivityId failedActivity = null;
        String candidate = null;
        for (int i = from; i < to; i++) {
            Event event = list.get(i);
            switch (event.kind()) {
                case ACTIVITY_SCHEDULED -> {
                    ActivityScheduled scheduled = (ActivityScheduled) event;
                    scheduledType.put(scheduled.activityId(), scheduled.activityType());
                }
                case ACTIVITY_FAILED -> {
                    failedActivity = ((ActivityFailed) event).activityId();
                    candidate = scheduledType.get(failedActivity);
                }
                case ACTIVITY_COMPLETED -> settled.add(((ActivityCompleted) event).activityId());
                case ACTIVITY_CANCELLED -> settled.add(((ActivityCancelled) event).activityId());
                default -> {
                    // no other kind takes part in the failure projection (M11)
                }
            }
        }
        if (failedActivity == null || candidate == null || candidate.isEmpty() || settled.contains(failedActivity)) {
            return null;
        }
        return candidate;
    }

    /** Validates presence and returns a list with constant-time indexed access. */
    private static List<? extends Event> randomAccess(List<? extends Event> events, String argument) {
        InvalidArgumentException.requireNonNull(events, argument);
        return events instanceof RandomAccess ? events : new ArrayList<>(events);
    }
}
