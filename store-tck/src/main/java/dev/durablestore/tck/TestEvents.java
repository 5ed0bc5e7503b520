package dev.durablestore.tck;

import dev.durablestore.api.ActivityId;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.PackageVersion;
import dev.durablestore.api.Payload;
import dev.durablestore.api.RunId;
import dev.durablestore.api.ScheduleId;
import dev.durablestore.api.TimerId;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.ActivityCancelled;
import dev.durablestore.api.event.ActivityCompleted;
import dev.durablestore.api.event.ActivityError;
import dev.durablestore.api.event.ActivityFailed;
import dev.durablestore.api.event.ActivityScheduled;
import dev.durablestore.api.event.ActivityStarted;
import dev.durablestore.api.event.CatchUpPolicy;
import dev.durablestore.api.event.ChildWorkflowCancelled;
import dev.durablestore.api.event.ChildWorkflowCompleted;
import dev.durablestore.api.event.ChildWorkflowFailed;
import dev.durablestore.api.event.ChildWorkflowStarted;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.event.EventEnvelope;
import dev.durablestore.api.event.EventKind;
import dev.durablestore.api.event.OverlapPolicy;
import dev.durablestore.api.event.ScheduleConfig;
import dev.durablestore.api.event.ScheduleCreated;
import dev.durablestore.api.event.ScheduleDeleted;
import dev.durablestore.api.event.SchedulePaused;
import dev.durablestore.api.event.ScheduleResumed;
import dev.durablestore.api.event.ScheduleTrigger;
import dev.durablestore.api.event.ScheduleTriggered;
import dev.durablestore.api.event.ScheduleUpdated;
import dev.durablestore.api.event.SearchAttributeValue;
import dev.durablestore.api.event.SearchAttributesUpdated;
import dev.durablestore.api.event.SignalReceived;
import dev.durablestore.api.event.SignalSent;
import dev.durablestore.api.event.TimerCancelCause;
import dev.durablestore.api.event.TimerCancelled;
import dev.durablestore.api.event.TimerFired;
import dev.durablestore.api.event.TimerStarted;
import dev.durablestore.api.event.WithTimeoutCompleted;
import dev.durablestore.api.event.WithTimeoutOutcome;
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
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Builds events for contract tests tersely: one builder per workflow hands out consecutive
 * sequence numbers, stamps every event with its current record time, and remembers the current run
 * so pause, resume, reopen and continue-as-new events name it.
 *
 * <pre>{@code
 * TestEvents ev = TestEvents.of(workflowId);                 // next event gets seq 1
 * List<Event> batch = List.of(
 *         ev.started("checkout", TestEvents.t(1)),           // seq 1, recorded at t1
 *         ev.activityScheduled(2, "charge"),                 // seq 2, still t1
 *         ev.at(TestEvents.t(5)).completed());               // seq 3, recorded at t5
 * store.append(workflowId, batch, 0);
 * }</pre>
 *
 * <p>Arguments are evaluated left to right in Java, so the events of a {@code List.of(...)} get
 * ascending sequence numbers. A builder is not thread-safe; use one per workflow and thread.
 */
public final class TestEvents {

    /** The instant the contract's scenario catalogue calls {@code t0}: 1 700 000 000 s after the epoch. */
    public static final Instant T0 = Instant.ofEpochSecond(1_700_000_000L);

    /** The package version every started workflow and child carries unless told otherwise. */
    public static final PackageVersion PACKAGE_VERSION =
            new PackageVersion("3f2a9c0d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39281706f5e4d3c2b1a0f9e8d7");

    private final WorkflowId workflowId;
    private long head;
    private Instant now;
    private RunId runId;

    private TestEvents(WorkflowId workflowId, long head) {
        this.workflowId = InvalidArgumentException.requireNonNull(workflowId, "workflowId");
        this.head = InvalidArgumentException.requireNonNegative(head, "head");
        this.now = T0;
        this.runId = RunId.random();
    }

    /**
     * @param workflowId the workflow every event will belong to
     * @return a builder whose first event gets {@code seq} 1, recorded at {@link #T0}
     */
    public static TestEvents of(WorkflowId workflowId) {
        return new TestEvents(workflowId, 0);
    }

    /**
     * @param workflowId the workflow every event will belong to
     * @param head the head already stored; the first event gets {@code head + 1}
     * @return a builder continuing after {@code head}
     */
    public static TestEvents of(WorkflowId workflowId, long head) {
        return new TestEvents(workflowId, head);
    }

    /**
     * The catalogue's {@code tN}.
     *
     * @param seconds seconds after {@link #T0}
     * @return {@code T0 + seconds}
     */
    public static Instant t(long seconds) {
        return T0.plusSeconds(seconds);
    }

    /**
     * @param json JSON text (not validated, like every payload)
     * @return a JSON payload of its UTF-8 bytes
     */
    public static Payload json(String json) {
        return Payload.json(json);
    }

    /** @return the workflow of this builder */
    public WorkflowId workflowId() {
        return workflowId;
    }

    /** @return the {@code seq} of the last event built (the initial head before the first one) */
    public long head() {
        return head;
    }

    /** @return the {@code seq} the next event will get */
    public long nextSeq() {
        return head + 1;
    }

    /** @return the record time the next event will get */
    public Instant now() {
        return now;
    }

    /** @return the current run: the one of the last {@link #started} event, or a random run before any */
    public RunId runId() {
        return runId;
    }

    /**
     * Sets the record time of the following events.
     *
     * @param recordedAt the instant (any instant, including out-of-range ones for argument tests)
     * @return this builder
     */
    public TestEvents at(Instant recordedAt) {
        this.now = InvalidArgumentException.requireNonNull(recordedAt, "recordedAt");
        return this;
    }

    /**
     * Skips sequence numbers without building events, to make non-contiguous batches.
     *
     * @param count how many sequence numbers to skip (may be negative to repeat earlier ones)
     * @return this builder
     */
    public TestEvents skip(long count) {
        this.head += count;
        return this;
    }

    private EventEnvelope next() {
        head++;
        return new EventEnvelope(head, now, workflowId);
    }

    // ---------------------------------------------------------------- workflow lifecycle

    /**
     * A root run start with a new random run id, recorded at the current time.
     *
     * @param workflowType the workflow type
     * @return the event
     */
    public WorkflowStarted started(String workflowType) {
        return started(workflowType, RunId.random(), null, now);
    }

    /**
     * A root run start with a new random run id.
     *
     * @param workflowType the workflow type
     * @param at the record time (also the time of the following events)
     * @return the event
     */
    public WorkflowStarted started(String workflowType, Instant at) {
        return started(workflowType, RunId.random(), null, at);
    }

    /**
     * A run start; it becomes the current run.
     *
     * @param workflowType the workflow type
     * @param newRunId the run it starts
     * @param parentRunId the run it continues, or {@code null} for a root run
     * @param at the record time (also the time of the following events)
     * @return the event
     */
    public WorkflowStarted started(String workflowType, RunId newRunId, RunId parentRunId, Instant at) {
        at(at);
        this.runId = InvalidArgumentException.requireNonNull(newRunId, "newRunId");
        return new WorkflowStarted(
                next(), workflowType, json("{\"start\":true}"), newRunId, parentRunId, PACKAGE_VERSION);
    }

    /** @return a completion with result {@code {"ok":true}} at the current time */
    public WorkflowCompleted completed() {
        return new WorkflowCompleted(next(), json("{\"ok\":true}"));
    }

    /**
     * @param at the record time (also the time of the following events)
     * @return a completion with result {@code {"ok":true}}
     */
    public WorkflowCompleted completed(Instant at) {
        at(at);
        return completed();
    }

    /**
     * @param message the error message (the query's {@code failureReason}, R27)
     * @return a failure without details at the current time
     */
    public WorkflowFailed failed(String message) {
        return new WorkflowFailed(next(), new WorkflowError(message, null));
    }

    /**
     * @param message the error message (the query's {@code failureReason}, R27)
     * @param at the record time (also the time of the following events)
     * @return a failure without details
     */
    public WorkflowFailed failed(String message, Instant at) {
        at(at);
        return failed(message);
    }

    /**
     * @param reason why it was cancelled
     * @return a cancellation at the current time
     */
    public WorkflowCancelled cancelled(String reason) {
        return new WorkflowCancelled(next(), reason);
    }

    /**
     * @param timeout which timeout fired
     * @return a time-out at the current time
     */
    public WorkflowTimedOut timedOut(String timeout) {
        return new WorkflowTimedOut(next(), timeout);
    }

    /** @return a continue-as-new of the current run, without type override, at the current time */
    public WorkflowContinuedAsNew continuedAsNew() {
        return continuedAsNew(null, runId);
    }

    /**
     * @param workflowTypeOverride the next run's type, or {@code null}
     * @param parentRunId the run being continued, as recorded on the event (R45: never consulted)
     * @return a continue-as-new at the current time
     */
    public WorkflowContinuedAsNew continuedAsNew(String workflowTypeOverride, RunId parentRunId) {
        return new WorkflowContinuedAsNew(next(), json("{\"next\":1}"), workflowTypeOverride, parentRunId);
    }

    /**
     * @param activityPositions activities to re-dispatch
     * @return a reopen of the current run at the current time
     */
    public WorkflowReopened reopened(long... activityPositions) {
        List<ActivityId> ids = new ArrayList<>();
        for (long p : activityPositions) {
            ids.add(new ActivityId(p));
        }
        return new WorkflowReopened(next(), runId, ids);
    }

    /** @return a pause of the current run without reason or operator, at the current time */
    public WorkflowPaused paused() {
        return paused(null, null);
    }

    /**
     * @param reason why, or {@code null}
     * @param operator who, or {@code null}
     * @return a pause of the current run at the current time
     */
    public WorkflowPaused paused(String reason, String operator) {
        return new WorkflowPaused(next(), runId, reason, operator);
    }

    /** @return a resume of the current run without operator, at the current time */
    public WorkflowResumed resumed() {
        return resumed(null);
    }

    /**
     * @param operator who, or {@code null}
     * @return a resume of the current run at the current time
     */
    public WorkflowResumed resumed(String operator) {
        return new WorkflowResumed(next(), runId, operator);
    }

    // ---------------------------------------------------------------- search attributes

    /**
     * @param attributes the attributes the update sets
     * @return an update recording this builder's workflow id, at the current time
     */
    public SearchAttributesUpdated searchAttributesUpdated(Map<String, SearchAttributeValue> attributes) {
        return new SearchAttributesUpdated(next(), workflowId, attributes);
    }

    // ---------------------------------------------------------------- activities

    /**
     * @param activityPosition the activity id's position
     * @param activityType the activity type (the query's {@code failedStep}, R28)
     * @return a scheduling on task queue {@code "default"} without node, at the current time
     */
    public ActivityScheduled activityScheduled(long activityPosition, String activityType) {
        return activityScheduled(activityPosition, activityType, "default", null);
    }

    /**
     * @param activityPosition the activity id's position
     * @param activityType the activity type
     * @param taskQueue the task queue
     * @param node the node pin, or {@code null}
     * @return a scheduling at the current time
     */
    public ActivityScheduled activityScheduled(
            long activityPosition, String activityType, String taskQueue, String node) {
        return new ActivityScheduled(
                next(),
                new ActivityId(activityPosition),
                activityType,
                json("{\"activity\":" + activityPosition + "}"),
                taskQueue,
                node);
    }

    /**
     * @param activityPosition the activity id's position
     * @param attempt the 1-based attempt
     * @return an attempt start at the current time
     */
    public ActivityStarted activityStarted(long activityPosition, int attempt) {
        return new ActivityStarted(next(), new ActivityId(activityPosition), attempt);
    }

    /**
     * @param activityPosition the activity id's position
     * @param attempt the 1-based attempt
     * @return a completion with result {@code {"done":true}} at the current time
     */
    public ActivityCompleted activityCompleted(long activityPosition, int attempt) {
        return new ActivityCompleted(next(), new ActivityId(activityPosition), json("{\"done\":true}"), attempt);
    }

    /**
     * @param activityPosition the activity id's position
     * @param message the error message
     * @param attempt the 1-based attempt
     * @return a retryable failure without details at the current time
     */
    public ActivityFailed activityFailed(long activityPosition, String message, int attempt) {
        return activityFailed(
                activityPosition, new ActivityError(ActivityError.Kind.RETRYABLE, message, null), attempt);
    }

    /**
     * @param activityPosition the activity id's position
     * @param error the error
     * @param attempt the 1-based attempt
     * @return a failure at the current time
     */
    public ActivityFailed activityFailed(long activityPosition, ActivityError error, int attempt) {
        return new ActivityFailed(next(), new ActivityId(activityPosition), error, attempt);
    }

    /**
     * @param activityPosition the activity id's position
     * @param attempt the 1-based attempt
     * @return a cancellation at the current time
     */
    public ActivityCancelled activityCancelled(long activityPosition, int attempt) {
        return new ActivityCancelled(next(), new ActivityId(activityPosition), attempt);
    }

    // ---------------------------------------------------------------- timers

    /**
     * @param timerId the timer
     * @param fireAt when it fires
     * @return a timer start at the current time
     */
    public TimerStarted timerStarted(TimerId timerId, Instant fireAt) {
        return new TimerStarted(next(), timerId, fireAt);
    }

    /**
     * @param timerId the timer
     * @return a timer firing at the current time
     */
    public TimerFired timerFired(TimerId timerId) {
        return new TimerFired(next(), timerId);
    }

    /**
     * @param timerId the timer
     * @param cause why
     * @return a timer cancellation at the current time
     */
    public TimerCancelled timerCancelled(TimerId timerId, TimerCancelCause cause) {
        return new TimerCancelled(next(), timerId, cause);
    }

    /**
     * @param timerId the guarding timer
     * @param outcome how it ended
     * @param result the operation's result, or {@code null}
     * @return a with-timeout completion at the current time
     */
    public WithTimeoutCompleted withTimeoutCompleted(TimerId timerId, WithTimeoutOutcome outcome, Payload result) {
        return new WithTimeoutCompleted(next(), timerId, outcome, result);
    }

    // ---------------------------------------------------------------- signals

    /**
     * @param name the signal name
     * @return a received signal with payload {@code {"signal":true}} at the current time
     */
    public SignalReceived signalReceived(String name) {
        return signalReceived(name, json("{\"signal\":true}"));
    }

    /**
     * @param name the signal name
     * @param payload its payload
     * @return a received signal at the current time
     */
    public SignalReceived signalReceived(String name, Payload payload) {
        return new SignalReceived(next(), name, payload);
    }

    /**
     * @param target the receiving workflow
     * @param name the signal name
     * @return a sent signal with payload {@code {"sent":true}} at the current time
     */
    public SignalSent signalSent(WorkflowId target, String name) {
        return new SignalSent(next(), target, name, json("{\"sent\":true}"));
    }

    // ---------------------------------------------------------------- child workflows

    /**
     * @param childWorkflowId the child (the child's summary gets this builder's workflow as parent, R30)
     * @param childWorkflowType the child's type
     * @return a child start at the current time
     */
    public ChildWorkflowStarted childStarted(WorkflowId childWorkflowId, String childWorkflowType) {
        return new ChildWorkflowStarted(
                next(), childWorkflowId, childWorkflowType, json("{\"child\":true}"), PACKAGE_VERSION);
    }

    /**
     * @param childWorkflowId the child
     * @return a child completion at the current time
     */
    public ChildWorkflowCompleted childCompleted(WorkflowId childWorkflowId) {
        return new ChildWorkflowCompleted(next(), childWorkflowId, json("{\"childResult\":1}"));
    }

    /**
     * @param childWorkflowId the child
     * @param message the child's error message
     * @return a child failure at the current time
     */
    public ChildWorkflowFailed childFailed(WorkflowId childWorkflowId, String message) {
        return new ChildWorkflowFailed(next(), childWorkflowId, new WorkflowError(message, null));
    }

    /**
     * @param childWorkflowId the child
     * @return a child cancellation at the current time
     */
    public ChildWorkflowCancelled childCancelled(WorkflowId childWorkflowId) {
        return new ChildWorkflowCancelled(next(), childWorkflowId);
    }

    // ---------------------------------------------------------------- schedules

    /**
     * @param scheduleId the schedule
     * @param config its configuration
     * @return a schedule creation at the current time
     */
    public ScheduleCreated scheduleCreated(ScheduleId scheduleId, ScheduleConfig config) {
        return new ScheduleCreated(next(), scheduleId, config);
    }

    /**
     * @param scheduleId the schedule
     * @param config its new configuration
     * @return a schedule update at the current time
     */
    public ScheduleUpdated scheduleUpdated(ScheduleId scheduleId, ScheduleConfig config) {
        return new ScheduleUpdated(next(), scheduleId, config);
    }

    /**
     * @param scheduleId the schedule
     * @return a schedule pause at the current time
     */
    public SchedulePaused schedulePaused(ScheduleId scheduleId) {
        return new SchedulePaused(next(), scheduleId);
    }

    /**
     * @param scheduleId the schedule
     * @return a schedule resume at the current time
     */
    public ScheduleResumed scheduleResumed(ScheduleId scheduleId) {
        return new ScheduleResumed(next(), scheduleId);
    }

    /**
     * @param scheduleId the schedule
     * @return a schedule deletion at the current time
     */
    public ScheduleDeleted scheduleDeleted(ScheduleId scheduleId) {
        return new ScheduleDeleted(next(), scheduleId);
    }

    /**
     * @param scheduleId the schedule
     * @param startedWorkflowId the execution it started
     * @param startedRunId the run it started
     * @return a schedule trigger at the current time
     */
    public ScheduleTriggered scheduleTriggered(
            ScheduleId scheduleId, WorkflowId startedWorkflowId, RunId startedRunId) {
        return new ScheduleTriggered(next(), scheduleId, startedWorkflowId, startedRunId);
    }

    /**
     * @param cron a cron expression
     * @return a configuration with default policies (skip overlap, catch up one), type
     *     {@code "scheduled"}, empty input object and no search attributes
     */
    public static ScheduleConfig cronSchedule(String cron) {
        return new ScheduleConfig(
                new ScheduleTrigger.Cron(cron),
                OverlapPolicy.SKIP,
                CatchUpPolicy.ONE,
                "scheduled",
                json("{}"),
                Map.of());
    }

    // ---------------------------------------------------------------- every kind

    /**
     * One event of every one of the 31 kinds (M10), in {@link dev.durablestore.api.event.EventKind}
     * order, with consecutive sequence numbers and distinct nanosecond record times, every optional
     * field present, and values chosen to catch lossy codecs: nanosecond instants, every search
     * attribute type with extreme values, non-ASCII and escape-worthy strings, payload details.
     * Starts with the {@code WorkflowStarted}, which becomes the current run. For the M20 round trip.
     *
     * @return 31 events, one per kind
     */
    public List<Event> everyKind() {
        return everyKind(true, kind -> true);
    }

    /**
     * Like {@link #everyKind()}, but every optional field absent ({@code null}) and every collection
     * empty, so a round trip shows that absent values stay absent (M20).
     *
     * @return 31 events, one per kind
     */
    public List<Event> everyKindWithoutOptionals() {
        return everyKind(false, kind -> true);
    }

    /**
     * Like {@link #everyKind()}, restricted to the kinds {@code which} accepts (still in
     * {@link EventKind} order, still consecutive sequence numbers). For example
     * {@code everyKindWhere(k -> !k.isLifecycle())} gives the 22 kinds that never change a status
     * (M11).
     *
     * @param which the kinds to build
     * @return one event per accepted kind
     */
    public List<Event> everyKindWhere(Predicate<EventKind> which) {
        return everyKind(true, which);
    }

    private List<Event> everyKind(boolean full, Predicate<EventKind> which) {
        WorkflowId other = WorkflowId.parse("7d8e9f00-1a2b-4c3d-8e4f-5a6b7c8d9e0f");
        WorkflowId child = WorkflowId.parse("0a1b2c3d-4e5f-4a6b-9c7d-8e9f0a1b2c3d");
        ScheduleId schedule = ScheduleId.parse("5c6d7e8f-9a0b-4c1d-ae2f-3a4b5c6d7e8f");
        RunId parentRun = RunId.parse("11111111-2222-4333-8444-555555555555");
        Payload details = full ? json("{\"trace\":[\"a\",\"b\"],\"nested\":{\"k\":null}}") : null;
        String text = full ? "quote \" backslash \\ newline \n tab \t unicode \u00fc \u2603 \ud83d\ude00" : "";
        Map<String, SearchAttributeValue> attributes = new LinkedHashMap<>();
        if (full) {
            attributes.put("string", SearchAttributeValue.of(text));
            attributes.put("int.max", SearchAttributeValue.of(Long.MAX_VALUE));
            attributes.put("int.min", SearchAttributeValue.of(Long.MIN_VALUE));
            attributes.put("float", SearchAttributeValue.of(0.1d));
            attributes.put("float.tiny", SearchAttributeValue.of(4.9e-324d));
            attributes.put("bool", SearchAttributeValue.of(true));
            attributes.put("datetime", SearchAttributeValue.of(Instant.parse("2026-06-03T02:30:00.123456789Z")));
            attributes.put("keywords", SearchAttributeValue.of(List.of("vip", "west", "", "\u00e9t\u00e9")));
        }
        ScheduleConfig config = full
                ? new ScheduleConfig(
                        new ScheduleTrigger.Interval(Duration.ofSeconds(90, 5)),
                        OverlapPolicy.BUFFER_ONE,
                        CatchUpPolicy.ALL,
                        "nightly-report",
                        json("{\"depth\":3}"),
                        attributes)
                : new ScheduleConfig(
                        new ScheduleTrigger.Cron("0 0 * * *"),
                        OverlapPolicy.SKIP,
                        CatchUpPolicy.ONE,
                        "nightly-report",
                        json("{}"),
                        Map.of());
        TimerId named = TimerId.named(full ? "deadline \u00e9" : "d");
        TimerId anonymous = TimerId.anonymous(full ? Long.MAX_VALUE : 0);

        Map<EventKind, Supplier<Event>> builders = new EnumMap<>(EventKind.class);
        builders.put(
                EventKind.WORKFLOW_STARTED,
                () -> started(
                        full ? "order-fulfilment \u00fc" : "order", RunId.random(), full ? parentRun : null, now));
        builders.put(
                EventKind.WORKFLOW_COMPLETED,
                () -> new WorkflowCompleted(next(), json(full ? "{\"total\":12.5,\"items\":[1,2,3]}" : "null")));
        builders.put(
                EventKind.WORKFLOW_FAILED,
                () -> new WorkflowFailed(next(), new WorkflowError(full ? text : "boom", details)));
        builders.put(EventKind.WORKFLOW_CANCELLED, () -> cancelled(text));
        builders.put(EventKind.WORKFLOW_TIMED_OUT, () -> timedOut(full ? "execution-timeout PT1H" : ""));
        builders.put(
                EventKind.WORKFLOW_CONTINUED_AS_NEW, () -> continuedAsNew(full ? "order-fulfilment-v2" : null, runId));
        builders.put(EventKind.WORKFLOW_REOPENED, () -> full ? reopened(3, 5, Long.MAX_VALUE) : reopened());
        builders.put(EventKind.WORKFLOW_PAUSED, () -> full ? paused("operator request", "ops@example.com") : paused());
        builders.put(EventKind.WORKFLOW_RESUMED, () -> full ? resumed("ops@example.com") : resumed());
        builders.put(
                EventKind.SEARCH_ATTRIBUTES_UPDATED,
                () -> new SearchAttributesUpdated(next(), full ? other : workflowId, attributes));
        builders.put(
                EventKind.ACTIVITY_SCHEDULED,
                () -> full ? activityScheduled(11, "charge-card", "gpu", "box-7") : activityScheduled(11, ""));
        builders.put(EventKind.ACTIVITY_STARTED, () -> activityStarted(11, full ? Integer.MAX_VALUE : 0));
        builders.put(
                EventKind.ACTIVITY_COMPLETED,
                () -> new ActivityCompleted(
                        next(), new ActivityId(11), json(full ? "{\"charged\":true}" : "{}"), full ? 2 : 0));
        builders.put(
                EventKind.ACTIVITY_FAILED,
                () -> activityFailed(
                        11,
                        new ActivityError(
                                full ? ActivityError.Kind.TERMINAL : ActivityError.Kind.RETRYABLE, text, details),
                        full ? 3 : 0));
        builders.put(EventKind.ACTIVITY_CANCELLED, () -> activityCancelled(11, full ? 4 : 0));
        builders.put(
                EventKind.TIMER_STARTED,
                () -> timerStarted(
                        named, Instant.parse(full ? "2262-04-11T23:47:16.854775807Z" : "2026-06-03T02:30:00Z")));
        builders.put(EventKind.TIMER_FIRED, () -> timerFired(anonymous));
        builders.put(
                EventKind.TIMER_CANCELLED,
                () -> timerCancelled(
                        named, full ? TimerCancelCause.CANCEL_TEARDOWN : TimerCancelCause.WORKFLOW_INTENT));
        builders.put(
                EventKind.WITH_TIMEOUT_COMPLETED,
                () -> withTimeoutCompleted(
                        anonymous,
                        full ? WithTimeoutOutcome.TIMED_OUT : WithTimeoutOutcome.OPERATION_COMPLETED,
                        full ? json("[\"late\"]") : null));
        builders.put(
                EventKind.SIGNAL_RECEIVED, () -> signalReceived(text, json(full ? "{\"approved\":\"\u2713\"}" : "{}")));
        builders.put(
                EventKind.SIGNAL_SENT,
                () -> new SignalSent(next(), other, full ? "notify" : "", json(full ? "{\"to\":\"other\"}" : "{}")));
        builders.put(
                EventKind.CHILD_WORKFLOW_STARTED,
                () -> new ChildWorkflowStarted(
                        next(),
                        child,
                        full ? "child-type" : "",
                        json(full ? "{\"child\":\"input\"}" : "{}"),
                        PACKAGE_VERSION));
        builders.put(
                EventKind.CHILD_WORKFLOW_COMPLETED,
                () -> new ChildWorkflowCompleted(next(), child, json(full ? "{\"child\":\"result\"}" : "{}")));
        builders.put(
                EventKind.CHILD_WORKFLOW_FAILED,
                () -> new ChildWorkflowFailed(next(), child, new WorkflowError(full ? "child failed" : "", details)));
        builders.put(EventKind.CHILD_WORKFLOW_CANCELLED, () -> childCancelled(child));
        builders.put(EventKind.SCHEDULE_CREATED, () -> scheduleCreated(schedule, config));
        builders.put(
                EventKind.SCHEDULE_UPDATED,
                () -> scheduleUpdated(schedule, full ? cronSchedule("*/5 * * * *") : config));
        builders.put(EventKind.SCHEDULE_PAUSED, () -> schedulePaused(schedule));
        builders.put(EventKind.SCHEDULE_RESUMED, () -> scheduleResumed(schedule));
        builders.put(EventKind.SCHEDULE_DELETED, () -> scheduleDeleted(schedule));
        builders.put(
                EventKind.SCHEDULE_TRIGGERED, () -> scheduleTriggered(schedule, other, full ? parentRun : RunId.nil()));
        List<Event> events = new ArrayList<>();
        Instant base = now;
        for (EventKind kind : EventKind.values()) {
            if (which.test(kind)) {
                at(base.plusSeconds(events.size()).plusNanos(123_456_789L - events.size()));
                events.add(builders.get(kind).get());
            }
        }
        return events;
    }

    /**
     * Bytes that a codec embedding payloads as parsed JSON would not return verbatim: insignificant
     * whitespace and unusual key order, an empty payload, and bytes that are not UTF-8 at all (M7:
     * payload bytes are opaque and returned exactly as given).
     *
     * @return payloads to round-trip
     */
    public static List<Payload> awkwardPayloads() {
        return Arrays.asList(
                json("{ \"b\" : 1 ,\n  \"a\" : [ 1.50, 1e2 ] }"),
                Payload.json(new byte[0]),
                Payload.json(new byte[] {(byte) 0xff, (byte) 0xfe, 0, 1, (byte) 0x80, '{'}),
                json("\"\\u00fc\" "),
                Payload.json("not json at all".getBytes(StandardCharsets.UTF_8)));
    }
}
