package dev.durablestore.core.codec;

import dev.durablestore.api.ActivityId;
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
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** One event of every kind, with every optional field present or every optional field absent. */
final class Fixtures {

    static final Instant NANOS = Instant.parse("2026-06-03T02:30:00.123456789Z");
    static final Instant WHOLE_SECOND = Instant.parse("2026-06-03T02:30:00Z");

    /** High bit set in both halves: UUID.compareTo and canonical order disagree for these. */
    static final WorkflowId WORKFLOW = new WorkflowId(UUID.fromString("f1e2d3c4-b5a6-4798-8a7b-6c5d4e3f2a10"));

    static final WorkflowId OTHER = new WorkflowId(UUID.fromString("00000000-0000-4000-8000-000000000001"));
    static final RunId RUN = new RunId(UUID.fromString("9a8b7c6d-5e4f-4a3b-9c2d-1e0f00112233"));
    static final RunId PARENT_RUN = new RunId(UUID.fromString("11111111-2222-4333-8444-555555555555"));
    static final ScheduleId SCHEDULE = new ScheduleId(UUID.fromString("abcdefab-cdef-4abc-bdef-abcdefabcdef"));
    static final PackageVersion PACKAGE =
            new PackageVersion("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");

    private Fixtures() {}

    static EventEnvelope envelope(long seq, Instant at) {
        return new EventEnvelope(seq, at, WORKFLOW);
    }

    static Payload payload(String label) {
        return Payload.json("{\"label\":\"" + label + "\"}");
    }

    /** Every byte value, which is neither valid UTF-8 nor JSON. */
    static Payload binaryPayload() {
        byte[] bytes = new byte[256];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) i;
        }
        return Payload.json(bytes);
    }

    static Map<String, SearchAttributeValue> allAttributeTypes(Instant at) {
        Map<String, SearchAttributeValue> map = new LinkedHashMap<>();
        map.put("customer", SearchAttributeValue.of("customer-123"));
        map.put("count", SearchAttributeValue.of(-42L));
        map.put("ratio", SearchAttributeValue.of(12.5));
        map.put("vip", SearchAttributeValue.of(true));
        map.put("due", SearchAttributeValue.of(at));
        map.put("tags", SearchAttributeValue.of(List.of("vip", "west")));
        return map;
    }

    static ScheduleConfig fullConfig(Instant at) {
        return new ScheduleConfig(
                new ScheduleTrigger.Cron("0 0 * * *"),
                OverlapPolicy.BUFFER_ONE,
                CatchUpPolicy.ALL,
                "checkout",
                payload("schedule-input"),
                allAttributeTypes(at));
    }

    static ScheduleConfig intervalConfig() {
        return new ScheduleConfig(
                new ScheduleTrigger.Interval(Duration.ofSeconds(300, 5)),
                OverlapPolicy.CANCEL_PREVIOUS,
                CatchUpPolicy.SKIP,
                "report",
                payload("interval-input"),
                Map.of());
    }

    /** All 31 kinds with every optional field present, in {@code EventKind} order. */
    static List<Event> allKindsFull(Instant at) {
        List<Event> events = new ArrayList<>();
        long seq = 1;
        events.add(new WorkflowStarted(envelope(seq++, at), "checkout", payload("input"), RUN, PARENT_RUN, PACKAGE));
        events.add(new WorkflowCompleted(envelope(seq++, at), payload("result")));
        events.add(new WorkflowFailed(envelope(seq++, at), new WorkflowError("boom", payload("details"))));
        events.add(new WorkflowCancelled(envelope(seq++, at), "caller requested cancellation"));
        events.add(new WorkflowTimedOut(envelope(seq++, at), "execution"));
        events.add(new WorkflowContinuedAsNew(envelope(seq++, at), payload("next"), "checkout-v2", RUN));
        events.add(new WorkflowReopened(envelope(seq++, at), RUN, List.of(new ActivityId(11), new ActivityId(12))));
        events.add(new WorkflowPaused(envelope(seq++, at), RUN, "maintenance", "alice"));
        events.add(new WorkflowResumed(envelope(seq++, at), RUN, "bob"));
        events.add(new SearchAttributesUpdated(envelope(seq++, at), WORKFLOW, allAttributeTypes(at)));
        events.add(new ActivityScheduled(
                envelope(seq++, at), new ActivityId(11), "charge-card", payload("activity-input"), "claude", "box-7"));
        events.add(new ActivityStarted(envelope(seq++, at), new ActivityId(11), 2));
        events.add(new ActivityCompleted(envelope(seq++, at), new ActivityId(11), payload("activity-result"), 3));
        events.add(new ActivityFailed(
                envelope(seq++, at),
                new ActivityId(11),
                new ActivityError(ActivityError.Kind.TERMINAL, "card declined", payload("why")),
                4));
        events.add(new ActivityCancelled(envelope(seq++, at), new ActivityId(11), 5));
        events.add(new TimerStarted(envelope(seq++, at), TimerId.named("deadline"), at.plusSeconds(3600)));
        events.add(new TimerFired(envelope(seq++, at), TimerId.anonymous(16)));
        events.add(
                new TimerCancelled(envelope(seq++, at), TimerId.named("reminder"), TimerCancelCause.CANCEL_TEARDOWN));
        events.add(new WithTimeoutCompleted(
                envelope(seq++, at),
                TimerId.anonymous(19),
                WithTimeoutOutcome.OPERATION_COMPLETED,
                payload("with-timeout")));
        events.add(new SignalReceived(envelope(seq++, at), "approve", payload("signal")));
        events.add(new SignalSent(envelope(seq++, at), OTHER, "notify", payload("sent")));
        events.add(
                new ChildWorkflowStarted(envelope(seq++, at), OTHER, "fulfillment", payload("child-input"), PACKAGE));
        events.add(new ChildWorkflowCompleted(envelope(seq++, at), OTHER, payload("child-result")));
        events.add(
                new ChildWorkflowFailed(envelope(seq++, at), OTHER, new WorkflowError("child failed", payload("cd"))));
        events.add(new ChildWorkflowCancelled(envelope(seq++, at), OTHER));
        events.add(new ScheduleCreated(envelope(seq++, at), SCHEDULE, fullConfig(at)));
        events.add(new ScheduleUpdated(envelope(seq++, at), SCHEDULE, intervalConfig()));
        events.add(new SchedulePaused(envelope(seq++, at), SCHEDULE));
        events.add(new ScheduleResumed(envelope(seq++, at), SCHEDULE));
        events.add(new ScheduleDeleted(envelope(seq++, at), SCHEDULE));
        events.add(new ScheduleTriggered(envelope(seq, at), SCHEDULE, OTHER, PARENT_RUN));
        return events;
    }

    /** All 31 kinds with every optional field absent and collections empty, in {@code EventKind} order. */
    static List<Event> allKindsMinimal(Instant at) {
        List<Event> events = new ArrayList<>();
        long seq = 0; // 0 is a valid envelope sequence even though stored events start at 1
        events.add(new WorkflowStarted(
                envelope(seq++, at), "", Payload.json(new byte[0]), RUN, null, new PackageVersion("")));
        events.add(new WorkflowCompleted(envelope(seq++, at), Payload.json("null")));
        events.add(new WorkflowFailed(envelope(seq++, at), new WorkflowError("boom", null)));
        events.add(new WorkflowCancelled(envelope(seq++, at), ""));
        events.add(new WorkflowTimedOut(envelope(seq++, at), ""));
        events.add(new WorkflowContinuedAsNew(envelope(seq++, at), payload("next"), null, RUN));
        events.add(new WorkflowReopened(envelope(seq++, at), RUN, List.of()));
        events.add(new WorkflowPaused(envelope(seq++, at), RUN, null, null));
        events.add(new WorkflowResumed(envelope(seq++, at), RUN, null));
        events.add(new SearchAttributesUpdated(envelope(seq++, at), OTHER, Map.of()));
        events.add(new ActivityScheduled(envelope(seq++, at), new ActivityId(0), "t", payload("i"), "default", null));
        events.add(new ActivityStarted(envelope(seq++, at), new ActivityId(0), 0));
        events.add(new ActivityCompleted(envelope(seq++, at), new ActivityId(0), payload("r"), 0));
        events.add(new ActivityFailed(
                envelope(seq++, at), new ActivityId(0), new ActivityError(ActivityError.Kind.RETRYABLE, "", null), 0));
        events.add(new ActivityCancelled(envelope(seq++, at), new ActivityId(0), 0));
        events.add(new TimerStarted(envelope(seq++, at), TimerId.anonymous(0), at));
        events.add(new TimerFired(envelope(seq++, at), TimerId.named("x")));
        events.add(new TimerCancelled(envelope(seq++, at), TimerId.anonymous(0), TimerCancelCause.WORKFLOW_INTENT));
        events.add(
                new WithTimeoutCompleted(envelope(seq++, at), TimerId.named("t"), WithTimeoutOutcome.TIMED_OUT, null));
        events.add(new SignalReceived(envelope(seq++, at), "", payload("s")));
        events.add(new SignalSent(envelope(seq++, at), WORKFLOW, "", payload("s")));
        events.add(new ChildWorkflowStarted(envelope(seq++, at), OTHER, "", payload("c"), PACKAGE));
        events.add(new ChildWorkflowCompleted(envelope(seq++, at), OTHER, payload("c")));
        events.add(new ChildWorkflowFailed(envelope(seq++, at), OTHER, new WorkflowError("", null)));
        events.add(new ChildWorkflowCancelled(envelope(seq++, at), OTHER));
        events.add(new ScheduleCreated(
                envelope(seq++, at),
                SCHEDULE,
                new ScheduleConfig(
                        new ScheduleTrigger.Interval(Duration.ZERO),
                        OverlapPolicy.SKIP,
                        CatchUpPolicy.ONE,
                        "",
                        payload("x"),
                        Map.of())));
        events.add(new ScheduleUpdated(
                envelope(seq++, at),
                SCHEDULE,
                new ScheduleConfig(
                        new ScheduleTrigger.Cron(""),
                        OverlapPolicy.ALLOW_ALL,
                        CatchUpPolicy.ONE,
                        "w",
                        payload("x"),
                        Map.of())));
        events.add(new SchedulePaused(envelope(seq++, at), SCHEDULE));
        events.add(new ScheduleResumed(envelope(seq++, at), SCHEDULE));
        events.add(new ScheduleDeleted(envelope(seq++, at), SCHEDULE));
        events.add(new ScheduleTriggered(envelope(seq, at), SCHEDULE, WORKFLOW, RUN));
        return events;
    }
}
