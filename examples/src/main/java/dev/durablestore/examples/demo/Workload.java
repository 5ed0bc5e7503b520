package dev.durablestore.examples.demo;

import dev.durablestore.api.ActivityId;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.PackageVersion;
import dev.durablestore.api.Payload;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.RunId;
import dev.durablestore.api.SequenceConflictException;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.ActivityScheduled;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.event.EventEnvelope;
import dev.durablestore.api.event.WorkflowStarted;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The demo's workload: deterministic workflow ids, the events and outbox rows that start a
 * workflow, and the staging run that writes them.
 *
 * <p>Workflow {@code i} has the name-based id {@code UUID.nameUUIDFromBytes("demo-" + i)}, so a
 * second run on the same file finds the workflows it already staged. A workflow's history starts
 * with {@code WorkflowStarted} (seq 1) and {@code K} {@code ActivityScheduled} events (seq 2 …
 * K+1); its outbox rows have ordinals 1 … K and canonical dispatch keys. Since an
 * {@link ActivityId} is the position at which the activity was scheduled, the activity of ordinal
 * {@code o} is {@code activity:(o+1)} — see {@link #activityId(long)} and {@link #ordinal(ActivityId)}.
 */
public final class Workload {

    /** The workflow type recorded in {@code WorkflowStarted}. */
    public static final String WORKFLOW_TYPE = "demo.FanOut";
    /** The activity type of every activity and outbox row. */
    public static final String ACTIVITY_TYPE = "demo.Activity";
    /** The namespace of the demo's rows (the default route). */
    public static final String NAMESPACE = OutboxRow.DEFAULT_ROUTE;
    /** The package version recorded in {@code WorkflowStarted}: a fixed 64-character content hash. */
    public static final PackageVersion PACKAGE_VERSION = new PackageVersion("de30" + "0".repeat(59) + "1");

    private Workload() {}

    /**
     * @param index the workflow's index, 0-based
     * @return its deterministic id
     */
    public static WorkflowId workflowId(int index) {
        return new WorkflowId(UUID.nameUUIDFromBytes(("demo-" + index).getBytes(StandardCharsets.UTF_8)));
    }

    /**
     * @param index the workflow's index
     * @return the deterministic id of its (only) run
     */
    public static RunId runId(int index) {
        return new RunId(UUID.nameUUIDFromBytes(("demo-run-" + index).getBytes(StandardCharsets.UTF_8)));
    }

    /**
     * @param ordinal the outbox row's ordinal, 1-based
     * @return the activity it runs: the one scheduled at seq {@code ordinal + 1}
     */
    public static ActivityId activityId(long ordinal) {
        return new ActivityId(ordinal + 1);
    }

    /**
     * @param activity an activity scheduled by this workload
     * @return the ordinal of its outbox row
     */
    public static long ordinal(ActivityId activity) {
        return activity.position() - 1;
    }

    /**
     * @param workflowId the workflow
     * @param activity the activity
     * @return the dispatch key of the activity's outbox row
     */
    public static String dispatchKey(WorkflowId workflowId, ActivityId activity) {
        return OutboxRow.dispatchKey(workflowId, ordinal(activity));
    }

    /**
     * The events that start workflow {@code index}: {@code WorkflowStarted} then {@code k}
     * {@code ActivityScheduled}, seq 1 … k+1.
     *
     * @param index the workflow's index
     * @param k the number of activities
     * @param now the record time
     * @return the events
     */
    public static List<Event> startEvents(int index, int k, Instant now) {
        WorkflowId id = workflowId(index);
        List<Event> events = new ArrayList<>(k + 1);
        events.add(new WorkflowStarted(
                new EventEnvelope(1, now, id),
                WORKFLOW_TYPE,
                Payload.json("{\"index\":" + index + ",\"activities\":" + k + "}"),
                runId(index),
                null,
                PACKAGE_VERSION));
        for (int o = 1; o <= k; o++) {
            ActivityId activity = activityId(o);
            events.add(new ActivityScheduled(
                    new EventEnvelope(activity.position(), now, id),
                    activity,
                    ACTIVITY_TYPE,
                    input(index, o),
                    OutboxRow.DEFAULT_ROUTE,
                    null));
        }
        return events;
    }

    /**
     * The outbox rows of workflow {@code index}: one pending row per activity, ordinals 1 … k.
     *
     * @param index the workflow's index
     * @param k the number of activities
     * @param now when the rows become claimable
     * @return the rows
     */
    public static List<OutboxRow> rows(int index, int k, Instant now) {
        WorkflowId id = workflowId(index);
        List<OutboxRow> rows = new ArrayList<>(k);
        for (int o = 1; o <= k; o++) {
            rows.add(OutboxRow.pending(id, o, ACTIVITY_TYPE, input(index, o), now)
                    .withRunId(runId(index)));
        }
        return rows;
    }

    private static Payload input(int index, int ordinal) {
        return Payload.json("{\"workflow\":" + index + ",\"ordinal\":" + ordinal + "}");
    }

    /** What staging did. @param staged workflows written by this run @param skipped workflows already present */
    public record StageResult(long staged, long skipped) {}

    /**
     * Stages workflows {@code 0 … workflows-1}: each gets its start events and rows in one
     * {@code appendWithOutbox} at expected head 0; one that already has a history (an earlier run
     * or another process staged it) fails that guard with {@link SequenceConflictException}, writes
     * nothing and counts as skipped. No head is read first: the guard is the check.
     *
     * @param store the store
     * @param workflows how many workflows
     * @param k activities per new workflow
     * @param concurrency appends in flight
     * @param stats receives a count per staged or skipped workflow
     * @return the totals, when every workflow is staged or skipped
     */
    public static Mono<StageResult> stage(ReactiveStore store, int workflows, int k, int concurrency, DemoStats stats) {
        AtomicLong staged = new AtomicLong();
        AtomicLong skipped = new AtomicLong();
        return Flux.range(0, workflows)
                .flatMap(
                        i -> Mono.defer(() -> {
                                    Instant now = Instant.now();
                                    return store.appendWithOutbox(
                                            workflowId(i), startEvents(i, k, now), 0, rows(i, k, now));
                                })
                                .doOnSuccess(v -> {
                                    staged.incrementAndGet();
                                    stats.onWorkflowStaged(workflowId(i), k);
                                })
                                .onErrorResume(SequenceConflictException.class, e -> {
                                    skipped.incrementAndGet();
                                    stats.onWorkflowSkipped();
                                    return Mono.empty();
                                }),
                        concurrency)
                .then(Mono.fromSupplier(() -> new StageResult(staged.get(), skipped.get())));
    }
}
