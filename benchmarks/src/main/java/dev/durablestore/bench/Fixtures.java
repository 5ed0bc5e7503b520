package dev.durablestore.bench;

import dev.durablestore.api.ActivityId;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.PackageVersion;
import dev.durablestore.api.Payload;
import dev.durablestore.api.RunId;
import dev.durablestore.api.StoreMetrics;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.ActivityCompleted;
import dev.durablestore.api.event.ActivityScheduled;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.event.EventEnvelope;
import dev.durablestore.api.event.SignalReceived;
import dev.durablestore.api.event.WorkflowCompleted;
import dev.durablestore.api.event.WorkflowStarted;
import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import dev.durablestore.sqlite.SqliteSynchronous;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The data every workload uses: small, realistic events and outbox rows, built the same way for the
 * store and for the raw-JDBC baselines so both write the same bytes.
 */
public final class Fixtures {

    /** The activity type of every benchmark row. */
    public static final String ACTIVITY = "bench-activity";

    private static final Payload START_INPUT = Payload.json("{\"order\":42,\"customer\":\"c-1001\"}");
    private static final Payload RESULT = Payload.json("{\"ok\":true,\"id\":\"r-7\"}");
    private static final PackageVersion VERSION = new PackageVersion("v1");

    private Fixtures() {}

    /**
     * Opens a store on {@code db}, WAL, with the given {@code synchronous} mode and default bounds.
     *
     * @param db the database file
     * @param synchronous {@code NORMAL} or {@code FULL}
     * @return the open store
     */
    public static SqliteReactiveStore openStore(Path db, String synchronous) {
        return openStore(db, synchronous, StoreMetrics.NONE);
    }

    /**
     * Opens a store like {@link #openStore(Path, String)}, reporting to {@code metrics}.
     *
     * @param db the database file
     * @param synchronous {@code NORMAL} or {@code FULL}
     * @param metrics e.g. a {@link CommitCounter}
     * @return the open store
     */
    public static SqliteReactiveStore openStore(Path db, String synchronous, StoreMetrics metrics) {
        return SqliteReactiveStore.open(SqliteStoreConfig.of(db)
                .withSynchronous(SqliteSynchronous.valueOf(synchronous))
                .withMetrics(metrics));
    }

    /**
     * @param count how many workflows
     * @return the first event ({@link #started}) of each of {@code count} new random workflows
     */
    public static List<Event> startedWorkflows(int count) {
        Instant now = Instant.now();
        List<Event> events = new ArrayList<>(count);
        for (WorkflowId w : workflows(count)) {
            events.add(started(w, now));
        }
        return events;
    }

    /**
     * @param workflow the workflow
     * @param now the record time
     * @return its first event: a {@code WorkflowStarted} at seq 1
     */
    public static Event started(WorkflowId workflow, Instant now) {
        return new WorkflowStarted(
                new EventEnvelope(1, now, workflow), "bench-workflow", START_INPUT, RunId.random(), null, VERSION);
    }

    /**
     * @param workflow the workflow
     * @param seq the event's position
     * @param now the record time
     * @return an {@code ActivityScheduled} event
     */
    public static Event scheduled(WorkflowId workflow, long seq, Instant now) {
        return new ActivityScheduled(
                new EventEnvelope(seq, now, workflow), new ActivityId(seq), ACTIVITY, input(seq), "default", null);
    }

    /**
     * @param workflow the workflow
     * @param seq the event's position
     * @param activity the activity's position in the workflow (1, 2, …): its id, and its row's ordinal
     * @param now the record time
     * @return the {@code ActivityScheduled} event of that activity
     */
    public static Event activityScheduled(WorkflowId workflow, long seq, long activity, Instant now) {
        return new ActivityScheduled(
                new EventEnvelope(seq, now, workflow),
                new ActivityId(activity),
                ACTIVITY,
                input(activity),
                "default",
                null);
    }

    /**
     * @param workflow the workflow
     * @param seq the event's position
     * @param activity the activity's position in the workflow
     * @param now the record time
     * @return an {@code ActivityCompleted} event of that activity (its outcome, first attempt)
     */
    public static Event activityCompleted(WorkflowId workflow, long seq, long activity, Instant now) {
        return new ActivityCompleted(new EventEnvelope(seq, now, workflow), new ActivityId(activity), RESULT, 1);
    }

    /**
     * @param workflow the workflow
     * @param seq the event's position
     * @param now the record time
     * @return its last event: a {@code WorkflowCompleted}
     */
    public static Event workflowCompleted(WorkflowId workflow, long seq, Instant now) {
        return new WorkflowCompleted(new EventEnvelope(seq, now, workflow), RESULT);
    }

    /**
     * @param workflow the workflow
     * @param seq the event's position
     * @param now the record time
     * @return a {@code SignalReceived} event (a history filler)
     */
    public static Event signal(WorkflowId workflow, long seq, Instant now) {
        return new SignalReceived(new EventEnvelope(seq, now, workflow), "tick", input(seq));
    }

    /**
     * @param workflow the workflow
     * @param fromSeq the first seq
     * @param count how many
     * @param now the record time
     * @return {@code count} contiguous signal events starting at {@code fromSeq}
     */
    public static List<Event> signals(WorkflowId workflow, long fromSeq, int count, Instant now) {
        List<Event> events = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            events.add(signal(workflow, fromSeq + i, now));
        }
        return events;
    }

    /**
     * @param workflow the workflow
     * @param ordinal the row's ordinal
     * @param now when it becomes claimable
     * @return a fresh pending row with the canonical key
     */
    public static OutboxRow pendingRow(WorkflowId workflow, long ordinal, Instant now) {
        return OutboxRow.pending(workflow, ordinal, ACTIVITY, input(ordinal), now);
    }

    /**
     * @param workflow the workflow
     * @param count rows (ordinals 1..count)
     * @param now when they become claimable
     * @return the rows
     */
    public static List<OutboxRow> pendingRows(WorkflowId workflow, int count, Instant now) {
        List<OutboxRow> rows = new ArrayList<>(count);
        for (int i = 1; i <= count; i++) {
            rows.add(pendingRow(workflow, i, now));
        }
        return rows;
    }

    /**
     * @param n a number
     * @return a small JSON payload naming it
     */
    public static Payload input(long n) {
        return Payload.json("{\"n\":" + n + ",\"to\":\"someone@example.com\"}");
    }

    /**
     * @param count how many
     * @return that many random workflow ids
     */
    public static List<WorkflowId> workflows(int count) {
        List<WorkflowId> ids = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            ids.add(WorkflowId.random());
        }
        return ids;
    }
}
