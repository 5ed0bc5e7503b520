package dev.durablestore.core.projection;

import com.google.errorprone.annotations.CanIgnoreReturnValue;
import dev.durablestore.api.ActivityId;
import dev.durablestore.api.PackageVersion;
import dev.durablestore.api.Payload;
import dev.durablestore.api.RunId;
import dev.durablestore.api.ScheduleId;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.ActivityCancelled;
import dev.durablestore.api.event.ActivityCompleted;
import dev.durablestore.api.event.ActivityError;
import dev.durablestore.api.event.ActivityFailed;
import dev.durablestore.api.event.ActivityScheduled;
import dev.durablestore.api.event.ActivityStarted;
import dev.durablestore.api.event.ChildWorkflowStarted;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.event.EventEnvelope;
import dev.durablestore.api.event.SchedulePaused;
import dev.durablestore.api.event.ScheduleTriggered;
import dev.durablestore.api.event.SearchAttributeValue;
import dev.durablestore.api.event.SearchAttributesUpdated;
import dev.durablestore.api.event.SignalReceived;
import dev.durablestore.api.event.WorkflowCancelled;
import dev.durablestore.api.event.WorkflowCompleted;
import dev.durablestore.api.event.WorkflowContinuedAsNew;
import dev.durablestore.api.event.WorkflowError;
import dev.durablestore.api.event.WorkflowFailed;
import dev.durablestore.api.event.WorkflowPaused;
import dev.durablestore.api.event.WorkflowReopened;
import dev.durablestore.api.event.WorkflowResumed;
import dev.durablestore.api.event.WorkflowStarted;
import dev.durablestore.api.event.WorkflowTimedOut;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Builds one workflow's history for projection tests: each added event gets the next {@code seq}
 * (from 1) and {@code recordedAt = t(seq)}, so the catalogue's "at tN" reads as "the N-th event".
 */
final class HistoryFixture {

    static final PackageVersion PACKAGE = new PackageVersion("0".repeat(64));
    static final Payload EMPTY = Payload.json("{}");

    private final WorkflowId workflowId;
    private final List<Event> events = new ArrayList<>();
    private RunId currentRun = run(1);

    private HistoryFixture(WorkflowId workflowId) {
        this.workflowId = workflowId;
    }

    /** @return a builder for the workflow with id {@code wf(1)} */
    static HistoryFixture history() {
        return new HistoryFixture(wf(1));
    }

    /** @return a builder for {@code workflowId} */
    static HistoryFixture history(WorkflowId workflowId) {
        return new HistoryFixture(workflowId);
    }

    /** @return 1 700 000 000 s + {@code n} s after the epoch (the catalogue's {@code tN}) */
    static Instant t(long n) {
        return Instant.ofEpochSecond(1_700_000_000L + n);
    }

    static WorkflowId wf(long n) {
        return new WorkflowId(new UUID(0L, n));
    }

    static RunId run(long n) {
        return new RunId(new UUID(0L, n));
    }

    List<Event> events() {
        return List.copyOf(events);
    }

    Event last() {
        return events.get(events.size() - 1);
    }

    private EventEnvelope next() {
        long seq = events.size() + 1L;
        return new EventEnvelope(seq, t(seq), workflowId);
    }

    private HistoryFixture add(Event event) {
        events.add(event);
        return this;
    }

    // --- lifecycle ---------------------------------------------------------------------------

    @CanIgnoreReturnValue // returns this fixture, for chaining
    HistoryFixture started() {
        return started("checkout", run(1), null);
    }

    @CanIgnoreReturnValue // returns this fixture, for chaining
    HistoryFixture started(String type, RunId runId, RunId parentRunId) {
        currentRun = runId;
        return add(new WorkflowStarted(next(), type, EMPTY, runId, parentRunId, PACKAGE));
    }

    @CanIgnoreReturnValue // returns this fixture, for chaining
    HistoryFixture completed() {
        return add(new WorkflowCompleted(next(), Payload.json("\"done\"")));
    }

    @CanIgnoreReturnValue // returns this fixture, for chaining
    HistoryFixture failed(String message) {
        return add(new WorkflowFailed(next(), new WorkflowError(message, null)));
    }

    @CanIgnoreReturnValue // returns this fixture, for chaining
    HistoryFixture cancelled() {
        return add(new WorkflowCancelled(next(), "caller requested cancellation"));
    }

    @CanIgnoreReturnValue // returns this fixture, for chaining
    HistoryFixture timedOut() {
        return add(new WorkflowTimedOut(next(), "execution"));
    }

    /** Continue-as-new recorded by the current run, without a type override. */
    @CanIgnoreReturnValue // returns this fixture, for chaining
    HistoryFixture continuedAsNew() {
        return continuedAsNew(null, currentRun);
    }

    @CanIgnoreReturnValue // returns this fixture, for chaining
    HistoryFixture continuedAsNew(String typeOverride, RunId parentRunId) {
        return add(new WorkflowContinuedAsNew(next(), EMPTY, typeOverride, parentRunId));
    }

    @CanIgnoreReturnValue // returns this fixture, for chaining
    HistoryFixture reopened() {
        return add(new WorkflowReopened(next(), currentRun, List.of()));
    }

    @CanIgnoreReturnValue // returns this fixture, for chaining
    HistoryFixture paused() {
        return add(new WorkflowPaused(next(), currentRun, "maintenance", "ops"));
    }

    @CanIgnoreReturnValue // returns this fixture, for chaining
    HistoryFixture resumed() {
        return add(new WorkflowResumed(next(), currentRun, "ops"));
    }

    // --- activities --------------------------------------------------------------------------

    @CanIgnoreReturnValue // returns this fixture, for chaining
    HistoryFixture scheduled(long activity, String activityType) {
        return add(new ActivityScheduled(next(), new ActivityId(activity), activityType, EMPTY, "default", null));
    }

    @CanIgnoreReturnValue // returns this fixture, for chaining
    HistoryFixture activityStarted(long activity, int attempt) {
        return add(new ActivityStarted(next(), new ActivityId(activity), attempt));
    }

    @CanIgnoreReturnValue // returns this fixture, for chaining
    HistoryFixture activityFailed(long activity, int attempt) {
        return activityFailed(activity, attempt, ActivityError.Kind.RETRYABLE);
    }

    @CanIgnoreReturnValue // returns this fixture, for chaining
    HistoryFixture activityFailed(long activity, int attempt, ActivityError.Kind kind) {
        return add(new ActivityFailed(
                next(), new ActivityId(activity), new ActivityError(kind, "activity failed", null), attempt));
    }

    @CanIgnoreReturnValue // returns this fixture, for chaining
    HistoryFixture activityCompleted(long activity, int attempt) {
        return add(new ActivityCompleted(next(), new ActivityId(activity), Payload.json("1"), attempt));
    }

    @CanIgnoreReturnValue // returns this fixture, for chaining
    HistoryFixture activityCancelled(long activity, int attempt) {
        return add(new ActivityCancelled(next(), new ActivityId(activity), attempt));
    }

    // --- everything else ---------------------------------------------------------------------

    @CanIgnoreReturnValue // returns this fixture, for chaining
    HistoryFixture attributes(Map<String, SearchAttributeValue> attributes) {
        return add(new SearchAttributesUpdated(next(), workflowId, attributes));
    }

    @CanIgnoreReturnValue // returns this fixture, for chaining
    HistoryFixture signal() {
        return add(new SignalReceived(next(), "poke", EMPTY));
    }

    @CanIgnoreReturnValue // returns this fixture, for chaining
    HistoryFixture childStarted(WorkflowId child) {
        return add(new ChildWorkflowStarted(next(), child, "child-type", EMPTY, PACKAGE));
    }

    @CanIgnoreReturnValue // returns this fixture, for chaining
    HistoryFixture schedulePaused() {
        return add(new SchedulePaused(next(), new ScheduleId(new UUID(0L, 2L))));
    }

    @CanIgnoreReturnValue // returns this fixture, for chaining
    HistoryFixture scheduleTriggered() {
        return add(new ScheduleTriggered(next(), new ScheduleId(new UUID(0L, 2L)), wf(3), run(4)));
    }
}
