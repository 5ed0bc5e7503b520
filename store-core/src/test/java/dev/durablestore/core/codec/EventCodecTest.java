package dev.durablestore.core.codec;

import static dev.durablestore.core.codec.Fixtures.NANOS;
import static dev.durablestore.core.codec.Fixtures.OTHER;
import static dev.durablestore.core.codec.Fixtures.PACKAGE;
import static dev.durablestore.core.codec.Fixtures.PARENT_RUN;
import static dev.durablestore.core.codec.Fixtures.RUN;
import static dev.durablestore.core.codec.Fixtures.SCHEDULE;
import static dev.durablestore.core.codec.Fixtures.WHOLE_SECOND;
import static dev.durablestore.core.codec.Fixtures.WORKFLOW;
import static dev.durablestore.core.codec.Fixtures.envelope;
import static dev.durablestore.core.codec.Fixtures.payload;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.durablestore.api.ActivityId;
import dev.durablestore.api.ContentType;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.Payload;
import dev.durablestore.api.RunId;
import dev.durablestore.api.SerializationException;
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
import dev.durablestore.api.event.WorkflowCompleted;
import dev.durablestore.api.event.WorkflowContinuedAsNew;
import dev.durablestore.api.event.WorkflowError;
import dev.durablestore.api.event.WorkflowFailed;
import dev.durablestore.api.event.WorkflowPaused;
import dev.durablestore.api.event.WorkflowReopened;
import dev.durablestore.api.event.WorkflowResumed;
import dev.durablestore.api.event.WorkflowStarted;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class EventCodecTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final EventCodec codec = EventCodec.create();

    // ---------------------------------------------------------------- helpers

    private Event roundTrip(Event event) {
        return codec.decode(codec.encode(event));
    }

    private ObjectNode tree(Event event) {
        try {
            return (ObjectNode) JSON.readTree(codec.encode(event));
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static ObjectNode data(ObjectNode tree) {
        return (ObjectNode) tree.get("data");
    }

    private static byte[] bytes(JsonNode tree) {
        try {
            return JSON.writeValueAsBytes(tree);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static byte[] utf8(String json) {
        return json.getBytes(StandardCharsets.UTF_8);
    }

    private void assertUndecodable(byte[] json) {
        assertThatThrownBy(() -> codec.decode(json)).isExactlyInstanceOf(SerializationException.class);
    }

    private void assertUndecodable(JsonNode tree) {
        assertUndecodable(bytes(tree));
    }

    private static Stream<Arguments> everyKind() {
        List<Arguments> args = new ArrayList<>();
        for (Instant at : List.of(NANOS, WHOLE_SECOND)) {
            for (Event e : Fixtures.allKindsFull(at)) {
                args.add(Arguments.of(e.kind().typeName() + " full @" + at, e));
            }
            for (Event e : Fixtures.allKindsMinimal(at)) {
                args.add(Arguments.of(e.kind().typeName() + " minimal @" + at, e));
            }
        }
        return args.stream();
    }

    /** Fields of {@code data} that a decoder accepts as missing (optional, or defaulted per M16). */
    private static final Map<EventKind, Set<String>> MAY_BE_MISSING = Map.ofEntries(
            Map.entry(EventKind.WORKFLOW_STARTED, Set.of("parent_run_id")),
            Map.entry(EventKind.WORKFLOW_CONTINUED_AS_NEW, Set.of("workflow_type")),
            Map.entry(EventKind.WORKFLOW_PAUSED, Set.of("reason", "operator")),
            Map.entry(EventKind.WORKFLOW_RESUMED, Set.of("operator")),
            Map.entry(EventKind.ACTIVITY_SCHEDULED, Set.of("task_queue", "node")),
            Map.entry(EventKind.ACTIVITY_STARTED, Set.of("attempt")),
            Map.entry(EventKind.ACTIVITY_COMPLETED, Set.of("attempt")),
            Map.entry(EventKind.ACTIVITY_CANCELLED, Set.of("attempt")),
            Map.entry(EventKind.TIMER_CANCELLED, Set.of("cause")),
            Map.entry(EventKind.WITH_TIMEOUT_COMPLETED, Set.of("result")));

    // ---------------------------------------------------------------- fixtures sanity

    @Test
    void fixtures_cover_every_one_of_the_31_kinds_once() {
        for (List<Event> events : List.of(Fixtures.allKindsFull(NANOS), Fixtures.allKindsMinimal(NANOS))) {
            assertThat(events).extracting(Event::kind).containsExactly(EventKind.values());
        }
        assertThat(EventKind.values()).hasSize(31);
    }

    // ---------------------------------------------------------------- M20 round trips

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyKind")
    void M20_every_kind_round_trips_field_by_field(String name, Event event) {
        Event decoded = roundTrip(event);

        assertThat(decoded).isEqualTo(event);
        assertThat(decoded.recordedAt()).isEqualTo(event.recordedAt());
        // Encoding is deterministic: decoding and re-encoding gives identical bytes.
        assertThat(codec.encode(decoded)).isEqualTo(codec.encode(event));
    }

    @Test
    void M20_absent_optionals_are_omitted_and_stay_absent() {
        Map<EventKind, JsonNode> data =
                Fixtures.allKindsMinimal(NANOS).stream().collect(Collectors.toMap(Event::kind, e -> data(tree(e))));

        assertThat(data.get(EventKind.WORKFLOW_STARTED).has("parent_run_id")).isFalse();
        assertThat(data.get(EventKind.WORKFLOW_CONTINUED_AS_NEW).has("workflow_type"))
                .isFalse();
        assertThat(data.get(EventKind.WORKFLOW_PAUSED).has("reason")).isFalse();
        assertThat(data.get(EventKind.WORKFLOW_PAUSED).has("operator")).isFalse();
        assertThat(data.get(EventKind.WORKFLOW_RESUMED).has("operator")).isFalse();
        assertThat(data.get(EventKind.ACTIVITY_SCHEDULED).has("node")).isFalse();
        assertThat(data.get(EventKind.WITH_TIMEOUT_COMPLETED).has("result")).isFalse();
        assertThat(data.get(EventKind.WORKFLOW_FAILED).get("error").has("details"))
                .isFalse();
        assertThat(data.get(EventKind.CHILD_WORKFLOW_FAILED).get("error").has("details"))
                .isFalse();
        assertThat(data.get(EventKind.ACTIVITY_FAILED).get("error").has("details"))
                .isFalse();
        assertThat(data.values()).allSatisfy(d -> assertThat(d.toString()).doesNotContain("null"));
    }

    @Test
    void M20_json_null_for_an_optional_field_reads_as_absent() {
        WorkflowPaused paused = new WorkflowPaused(envelope(3, NANOS), RUN, null, null);
        ObjectNode tree = tree(paused);
        data(tree).putNull("reason").putNull("operator");

        assertThat(codec.decode(bytes(tree))).isEqualTo(paused);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "2026-06-03T02:30:00.123456789Z", "2026-06-03T02:30:00Z", "1970-01-01T00:00:00Z",
                "1969-12-31T23:59:59.999999999Z", "0000-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z",
                "2024-02-29T12:00:00.000000001Z"
            })
    void M20_timestamps_round_trip_to_the_nanosecond_in_fixed_width_form(String text) {
        Instant at = Instant.parse(text);
        TimerStarted event = new TimerStarted(envelope(1, at), TimerId.named("t"), at);
        ObjectNode data = data(tree(event));

        assertThat(roundTrip(event)).isEqualTo(event);
        String written = data.get("envelope").get("recorded_at").textValue();
        assertThat(written).hasSize(30).endsWith("Z").matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{9}Z");
        assertThat(data.get("fire_at").textValue()).isEqualTo(written);
        assertThat(Instant.parse(written)).isEqualTo(at);
    }

    @Test
    void M20_fixed_width_timestamps_sort_as_text_in_time_order() {
        Instant earlier = Instant.parse("2026-06-03T10:00:00Z");
        Instant later = Instant.parse("2026-06-03T10:00:00.500Z");
        String a = data(tree(new TimerStarted(envelope(1, earlier), TimerId.named("t"), earlier)))
                .get("fire_at")
                .textValue();
        String b = data(tree(new TimerStarted(envelope(1, later), TimerId.named("t"), later)))
                .get("fire_at")
                .textValue();

        assertThat(a).isEqualTo("2026-06-03T10:00:00.000000000Z");
        assertThat(a.compareTo(b)).isNegative();
    }

    @Test
    void M25_wire_format_is_stable() {
        WorkflowStarted event =
                new WorkflowStarted(envelope(17, NANOS), "checkout", Payload.json("{}"), RUN, null, PACKAGE);

        String json = new String(codec.encode(event), StandardCharsets.UTF_8);

        assertThat(json)
                .isEqualTo("{\"type\":\"WorkflowStarted\",\"data\":{"
                        + "\"envelope\":{\"seq\":17,\"recorded_at\":\"2026-06-03T02:30:00.123456789Z\","
                        + "\"workflow_id\":\"f1e2d3c4-b5a6-4798-8a7b-6c5d4e3f2a10\"},"
                        + "\"workflow_type\":\"checkout\","
                        + "\"input\":{\"content_type\":\"Json\",\"bytes\":\"e30=\"},"
                        + "\"run_id\":\"9a8b7c6d-5e4f-4a3b-9c2d-1e0f00112233\","
                        + "\"package_version\":\"" + PACKAGE.value() + "\"}}");
    }

    @Test
    void M25_value_encodings_use_the_documented_tokens() {
        List<Event> events = Fixtures.allKindsFull(NANOS);
        Map<EventKind, JsonNode> data = events.stream().collect(Collectors.toMap(Event::kind, e -> data(tree(e))));

        assertThat(data.get(EventKind.TIMER_STARTED).get("timer_id").toString()).isEqualTo("{\"Named\":\"deadline\"}");
        assertThat(data.get(EventKind.TIMER_FIRED).get("timer_id").toString()).isEqualTo("{\"Anonymous\":16}");
        assertThat(data.get(EventKind.TIMER_CANCELLED).get("cause").textValue()).isEqualTo("CancelTeardown");
        assertThat(data.get(EventKind.WITH_TIMEOUT_COMPLETED).get("outcome").textValue())
                .isEqualTo("OperationCompleted");
        assertThat(data.get(EventKind.ACTIVITY_FAILED).get("error").get("kind").textValue())
                .isEqualTo("Terminal");
        assertThat(data.get(EventKind.ACTIVITY_SCHEDULED).get("activity_id").isIntegralNumber())
                .isTrue();
        assertThat(data.get(EventKind.WORKFLOW_REOPENED).get("reopened").toString())
                .isEqualTo("[11,12]");
        JsonNode config = data.get(EventKind.SCHEDULE_CREATED).get("config");
        assertThat(config.get("trigger").toString()).isEqualTo("{\"Cron\":{\"expression\":\"0 0 * * *\"}}");
        assertThat(config.get("overlap_policy").textValue()).isEqualTo("BufferOne");
        assertThat(config.get("catch_up_policy").textValue()).isEqualTo("All");
        JsonNode interval = data.get(EventKind.SCHEDULE_UPDATED).get("config");
        assertThat(interval.get("trigger").toString())
                .isEqualTo("{\"Interval\":{\"period\":{\"secs\":300,\"nanos\":5}}}");
        assertThat(interval.get("overlap_policy").textValue()).isEqualTo("CancelPrevious");
        assertThat(interval.get("catch_up_policy").textValue()).isEqualTo("Skip");
        assertThat(data.get(EventKind.SEARCH_ATTRIBUTES_UPDATED)
                        .get("workflow_id")
                        .textValue())
                .isEqualTo(WORKFLOW.toString());
        assertThat(data.get(EventKind.SCHEDULE_TRIGGERED).get("workflow_id").textValue())
                .isEqualTo(OTHER.toString());
        assertThat(data.get(EventKind.SIGNAL_SENT).get("target_workflow_id").textValue())
                .isEqualTo(OTHER.toString());
    }

    @Test
    void M25_every_enum_token_round_trips() {
        for (OverlapPolicy overlap : OverlapPolicy.values()) {
            for (CatchUpPolicy catchUp : CatchUpPolicy.values()) {
                ScheduleConfig config = new ScheduleConfig(
                        new ScheduleTrigger.Cron("* * * * *"), overlap, catchUp, "w", payload("x"), Map.of());
                Event event = new ScheduleUpdated(envelope(1, NANOS), SCHEDULE, config);
                assertThat(roundTrip(event)).isEqualTo(event);
            }
        }
        for (TimerCancelCause cause : TimerCancelCause.values()) {
            Event event = new TimerCancelled(envelope(1, NANOS), TimerId.anonymous(1), cause);
            assertThat(roundTrip(event)).isEqualTo(event);
        }
        for (WithTimeoutOutcome outcome : WithTimeoutOutcome.values()) {
            Event event = new WithTimeoutCompleted(envelope(1, NANOS), TimerId.anonymous(1), outcome, null);
            assertThat(roundTrip(event)).isEqualTo(event);
        }
        for (ActivityError.Kind kind : ActivityError.Kind.values()) {
            Event event =
                    new ActivityFailed(envelope(1, NANOS), new ActivityId(1), new ActivityError(kind, "m", null), 1);
            assertThat(roundTrip(event)).isEqualTo(event);
        }
    }

    @Test
    void M20_equal_maps_encode_to_identical_bytes_whatever_their_insertion_order() {
        Map<String, SearchAttributeValue> forward = Fixtures.allAttributeTypes(NANOS);
        Map<String, SearchAttributeValue> backward = new LinkedHashMap<>();
        List<String> keys = new ArrayList<>(forward.keySet());
        for (int i = keys.size() - 1; i >= 0; i--) {
            backward.put(keys.get(i), forward.get(keys.get(i)));
        }

        byte[] a = codec.encode(new SearchAttributesUpdated(envelope(1, NANOS), WORKFLOW, forward));
        byte[] b = codec.encode(new SearchAttributesUpdated(envelope(1, NANOS), WORKFLOW, backward));

        assertThat(a).isEqualTo(b);
    }

    @Test
    void M20_extreme_numbers_round_trip() {
        long max = Long.MAX_VALUE;
        List<Event> events = List.of(
                new ActivityStarted(envelope(max, NANOS), new ActivityId(max), Integer.MAX_VALUE),
                new TimerFired(envelope(max, NANOS), TimerId.anonymous(max)),
                new WorkflowReopened(envelope(1, NANOS), RUN, List.of(new ActivityId(0), new ActivityId(max))),
                new ScheduleCreated(
                        envelope(1, NANOS),
                        SCHEDULE,
                        new ScheduleConfig(
                                new ScheduleTrigger.Interval(Duration.ofSeconds(max, 999_999_999)),
                                OverlapPolicy.ALLOW_ALL,
                                CatchUpPolicy.ALL,
                                "w",
                                payload("x"),
                                Map.of())));
        for (Event event : events) {
            assertThat(roundTrip(event)).isEqualTo(event);
        }
    }

    @Test
    void M20_strings_with_escapes_and_non_ascii_round_trip() {
        String tricky = "quote\" backslash\\ tab\t newline\n nul\u0000 é 日本 emoji \uD83D\uDE00 </script>";
        Event event = new SignalReceived(envelope(1, NANOS), tricky, payload("p"));
        Event sent = new WorkflowPaused(envelope(2, NANOS), RUN, tricky, tricky);

        assertThat(roundTrip(event)).isEqualTo(event);
        assertThat(roundTrip(sent)).isEqualTo(sent);
    }

    // ---------------------------------------------------------------- catalogue 10.11

    @Test
    void C142_activity_scheduled_records_and_reads_back_its_task_queue() {
        ActivityScheduled event = new ActivityScheduled(
                envelope(6, NANOS), new ActivityId(6), "charge-card", payload("in"), "claude", null);

        ActivityScheduled decoded = (ActivityScheduled) roundTrip(event);

        assertThat(decoded.taskQueue()).isEqualTo("claude");
        assertThat(decoded).isEqualTo(event);
    }

    @Test
    void C143_activity_scheduled_decodes_old_history_without_task_queue_as_default() {
        ActivityScheduled event = new ActivityScheduled(
                envelope(6, NANOS), new ActivityId(6), "charge-card", payload("in"), "claude", "box-7");
        ObjectNode tree = tree(event);
        data(tree).remove("task_queue");
        byte[] old = bytes(tree);

        for (int i = 0; i < 3; i++) {
            ActivityScheduled decoded = (ActivityScheduled) codec.decode(old);
            assertThat(decoded.taskQueue()).isEqualTo("default");
            assertThat(decoded.node()).isEqualTo("box-7");
        }
    }

    @Test
    void C144_activity_scheduled_records_and_reads_back_its_node() {
        ActivityScheduled event = new ActivityScheduled(
                envelope(6, NANOS), new ActivityId(6), "charge-card", payload("in"), "default", "box-7");

        assertThat(((ActivityScheduled) roundTrip(event)).node()).isEqualTo("box-7");
    }

    @Test
    void C145_activity_scheduled_decodes_old_history_without_node_as_none() {
        ActivityScheduled event = new ActivityScheduled(
                envelope(6, NANOS), new ActivityId(6), "charge-card", payload("in"), "gpu", "box-7");
        ObjectNode tree = tree(event);
        data(tree).remove("node");

        ActivityScheduled decoded = (ActivityScheduled) codec.decode(bytes(tree));

        assertThat(decoded.node()).isNull();
        assertThat(decoded.taskQueue()).isEqualTo("gpu");
    }

    @Test
    void C146_activity_lifecycle_records_and_reads_back_its_attempt() {
        ActivityId id = new ActivityId(7);
        List<Event> events = List.of(
                new ActivityStarted(envelope(8, NANOS), id, 2),
                new ActivityCompleted(envelope(9, NANOS), id, payload("r"), 3),
                new ActivityCancelled(envelope(10, NANOS), id, 4),
                new ActivityFailed(
                        envelope(11, NANOS), id, new ActivityError(ActivityError.Kind.RETRYABLE, "m", null), 5));

        assertThat(events).allSatisfy(e -> assertThat(roundTrip(e)).isEqualTo(e));
        assertThat(((ActivityStarted) roundTrip(events.get(0))).attempt()).isEqualTo(2);
        assertThat(((ActivityCompleted) roundTrip(events.get(1))).attempt()).isEqualTo(3);
        assertThat(((ActivityCancelled) roundTrip(events.get(2))).attempt()).isEqualTo(4);
        assertThat(((ActivityFailed) roundTrip(events.get(3))).attempt()).isEqualTo(5);
    }

    @Test
    void C147_activity_lifecycle_decodes_old_history_without_attempt_as_legacy_sentinel() {
        ActivityId id = new ActivityId(7);
        for (Event event : List.of(
                new ActivityStarted(envelope(8, NANOS), id, 2),
                new ActivityCompleted(envelope(9, NANOS), id, payload("r"), 3),
                new ActivityCancelled(envelope(10, NANOS), id, 4))) {
            ObjectNode tree = tree(event);
            data(tree).remove("attempt");

            Event decoded = codec.decode(bytes(tree));

            int attempt = decoded instanceof ActivityStarted s
                    ? s.attempt()
                    : decoded instanceof ActivityCompleted c ? c.attempt() : ((ActivityCancelled) decoded).attempt();
            assertThat(attempt).as(event.kind().typeName()).isZero();
        }
    }

    @Test
    void C148_timer_cancelled_decodes_old_history_without_cause_as_workflow_intent() {
        TimerCancelled event =
                new TimerCancelled(envelope(14, NANOS), TimerId.named("reminder"), TimerCancelCause.CANCEL_TEARDOWN);
        assertThat(roundTrip(event)).isEqualTo(event);
        ObjectNode tree = tree(event);
        data(tree).remove("cause");

        TimerCancelled decoded = (TimerCancelled) codec.decode(bytes(tree));

        assertThat(decoded.cause()).isEqualTo(TimerCancelCause.WORKFLOW_INTENT);
        assertThat(decoded.timerId()).isEqualTo(TimerId.named("reminder"));
    }

    @Test
    void C149_pause_resume_events_round_trip_through_json() {
        List<Event> events = List.of(
                new WorkflowPaused(envelope(2, NANOS), RUN, "maintenance", "alice"),
                new WorkflowPaused(envelope(3, NANOS), RUN, null, null),
                new WorkflowPaused(envelope(4, NANOS), RUN, "only reason", null),
                new WorkflowPaused(envelope(5, NANOS), RUN, null, "only operator"),
                new WorkflowResumed(envelope(6, NANOS), RUN, "bob"),
                new WorkflowResumed(envelope(7, NANOS), RUN, null));

        for (Event event : events) {
            assertThat(roundTrip(event)).isEqualTo(event);
        }
    }

    @Test
    void C150_old_history_without_pause_resume_decodes_unchanged() {
        List<Event> history = List.of(
                new WorkflowStarted(envelope(1, NANOS), "checkout", payload("in"), RUN, null, PACKAGE),
                new WorkflowCompleted(envelope(2, WHOLE_SECOND), payload("out")));

        byte[] json = codec.encodeHistory(history);

        assertThat(codec.decodeHistory(json)).isEqualTo(history);
        assertThat(codec.decodeHistory(codec.encodeHistory(List.of()))).isEmpty();
        assertThat(codec.decodeHistory(codec.encodeHistory(Fixtures.allKindsFull(NANOS))))
                .isEqualTo(Fixtures.allKindsFull(NANOS));
    }

    @Test
    void C154_events_round_trip_through_json() {
        Set<EventKind.Group> groups = EnumSet.of(
                EventKind.Group.WORKFLOW, EventKind.Group.ACTIVITY, EventKind.Group.TIMER, EventKind.Group.SIGNAL);
        List<Event> events = Fixtures.allKindsFull(NANOS).stream()
                .filter(e -> groups.contains(e.kind().group()) && e.kind() != EventKind.WORKFLOW_CONTINUED_AS_NEW)
                .toList();

        assertThat(events).hasSize(19);
        for (Event event : events) {
            assertThat(roundTrip(event)).as(event.kind().typeName()).isEqualTo(event);
        }
    }

    @Test
    void C155_child_events_round_trip_through_json() {
        List<Event> events = List.of(
                new ChildWorkflowStarted(envelope(16, NANOS), OTHER, "fulfillment", payload("child-input"), PACKAGE),
                new ChildWorkflowCompleted(envelope(17, NANOS), OTHER, payload("child-result")),
                new ChildWorkflowFailed(envelope(18, NANOS), OTHER, new WorkflowError("child failed", null)),
                new ChildWorkflowFailed(envelope(19, NANOS), OTHER, new WorkflowError("child failed", payload("d"))),
                new ChildWorkflowCancelled(envelope(20, NANOS), OTHER));

        for (Event event : events) {
            assertThat(roundTrip(event)).isEqualTo(event);
        }
    }

    @Test
    void C156_extended_events_round_trip_through_json() {
        List<Event> events = List.of(
                new WorkflowContinuedAsNew(envelope(6, NANOS), payload("continued"), "checkout-v2", PARENT_RUN),
                new WorkflowContinuedAsNew(envelope(6, NANOS), payload("continued"), null, PARENT_RUN),
                new SearchAttributesUpdated(envelope(7, NANOS), WORKFLOW, Fixtures.allAttributeTypes(NANOS)),
                new ScheduleCreated(envelope(8, NANOS), SCHEDULE, Fixtures.fullConfig(NANOS)),
                new ScheduleUpdated(envelope(9, NANOS), SCHEDULE, Fixtures.intervalConfig()),
                new SchedulePaused(envelope(10, NANOS), SCHEDULE),
                new ScheduleResumed(envelope(11, NANOS), SCHEDULE),
                new ScheduleDeleted(envelope(12, NANOS), SCHEDULE),
                new ScheduleTriggered(envelope(13, NANOS), SCHEDULE, OTHER, RUN));

        for (Event event : events) {
            assertThat(roundTrip(event)).isEqualTo(event);
        }
    }

    @Test
    void C157_identifiers_round_trip_through_json() {
        WorkflowId workflow = WorkflowId.random();
        RunId run = RunId.random();
        ActivityId activity = new ActivityId(42);
        TimerId named = TimerId.named("deadline");
        TimerId anonymous = TimerId.anonymous(43);
        List<Event> events = List.of(
                new WorkflowStarted(
                        new dev.durablestore.api.event.EventEnvelope(1, NANOS, workflow),
                        "t",
                        payload("i"),
                        run,
                        RunId.nil(),
                        PACKAGE),
                new ActivityStarted(envelope(2, NANOS), activity, 1),
                new TimerFired(envelope(3, NANOS), named),
                new TimerFired(envelope(4, NANOS), anonymous),
                new SignalSent(envelope(5, NANOS), WorkflowId.nil(), "s", payload("p")));

        List<Event> decoded = events.stream().map(this::roundTrip).toList();

        assertThat(decoded).isEqualTo(events);
        WorkflowStarted started = (WorkflowStarted) decoded.get(0);
        assertThat(started.workflowId()).isEqualTo(workflow);
        assertThat(started.runId()).isEqualTo(run);
        assertThat(started.parentRunId()).isEqualTo(RunId.nil());
        assertThat(((ActivityStarted) decoded.get(1)).activityId()).isEqualTo(activity);
        assertThat(((TimerFired) decoded.get(2)).timerId()).isEqualTo(named).isNotEqualTo(TimerId.anonymous(3));
        assertThat(((TimerFired) decoded.get(3)).timerId()).isEqualTo(anonymous);
    }

    @Test
    void C162_json_values_round_trip_losslessly() {
        for (String value : List.of(
                "null",
                "true",
                "false",
                "42",
                "-1.5e300",
                "\"text\"",
                "[1,\"two\",null]",
                "{\"a\":{\"b\":[true]}}",
                " { \"spacing\" : 1 } ")) {
            Payload payload = Payload.json(value);

            Payload decoded = codec.decodePayload(codec.encodePayload(payload));
            SignalReceived event = (SignalReceived) roundTrip(new SignalReceived(envelope(1, NANOS), "s", payload));

            assertThat(decoded).isEqualTo(payload);
            assertThat(decoded.contentType()).isEqualTo(ContentType.JSON);
            assertThat(decoded.asString()).isEqualTo(value);
            assertThat(event.payload().asString()).isEqualTo(value);
            assertThat(event.payload().contentType()).isEqualTo(ContentType.JSON);
        }
    }

    @Test
    void C163_search_attribute_values_round_trip_through_json() {
        List<SearchAttributeValue> values =
                new ArrayList<>(Fixtures.allAttributeTypes(NANOS).values());
        values.addAll(List.of(
                SearchAttributeValue.of(""),
                SearchAttributeValue.of(Long.MIN_VALUE),
                SearchAttributeValue.of(Long.MAX_VALUE),
                SearchAttributeValue.of(false),
                SearchAttributeValue.of(List.of()),
                SearchAttributeValue.of(WHOLE_SECOND),
                SearchAttributeValue.of(Instant.parse("1900-01-01T00:00:00.000000001Z"))));
        for (double d : new double[] {
            0.1,
            -0.0,
            0.0,
            1.0,
            Math.PI,
            Double.MIN_VALUE,
            Double.MIN_NORMAL,
            Double.MAX_VALUE,
            -1e-300,
            123456789012345678.0,
            Double.NaN,
            Double.POSITIVE_INFINITY,
            Double.NEGATIVE_INFINITY
        }) {
            values.add(SearchAttributeValue.of(d));
        }

        for (SearchAttributeValue value : values) {
            Event event = new SearchAttributesUpdated(envelope(1, NANOS), WORKFLOW, Map.of("k", value));
            SearchAttributeValue decoded =
                    ((SearchAttributesUpdated) roundTrip(event)).attributes().get("k");

            assertThat(decoded).as(value.toString()).isEqualTo(value);
            if (value instanceof SearchAttributeValue.FloatValue f) {
                assertThat(Double.doubleToRawLongBits(((SearchAttributeValue.FloatValue) decoded).value()))
                        .isEqualTo(Double.doubleToRawLongBits(f.value()));
            }
        }
    }

    @Test
    void C165_search_attribute_types_round_trip_through_json() {
        Map<SearchAttributeValue.Type, String> tags = Map.of(
                SearchAttributeValue.Type.STRING, "String",
                SearchAttributeValue.Type.INT, "Int",
                SearchAttributeValue.Type.FLOAT, "Float",
                SearchAttributeValue.Type.BOOL, "Bool",
                SearchAttributeValue.Type.DATETIME, "Datetime",
                SearchAttributeValue.Type.KEYWORD_LIST, "KeywordList");
        Map<String, SearchAttributeValue> byKey = Fixtures.allAttributeTypes(NANOS);
        assertThat(byKey.values())
                .extracting(SearchAttributeValue::type)
                .containsExactlyInAnyOrder(SearchAttributeValue.Type.values());

        Event event = new SearchAttributesUpdated(envelope(1, NANOS), WORKFLOW, byKey);
        JsonNode attributes = data(tree(event)).get("attributes");
        Map<String, SearchAttributeValue> decoded = ((SearchAttributesUpdated) roundTrip(event)).attributes();

        for (Map.Entry<String, SearchAttributeValue> e : byKey.entrySet()) {
            JsonNode written = attributes.get(e.getKey());
            assertThat(written.size()).isEqualTo(1);
            assertThat(written.fieldNames().next())
                    .isEqualTo(tags.get(e.getValue().type()));
            assertThat(decoded.get(e.getKey()).type()).isEqualTo(e.getValue().type());
        }
        assertThat(attributes.get("due").get("Datetime").textValue()).isEqualTo("2026-06-03T02:30:00.123456789Z");
    }

    // ---------------------------------------------------------------- M16 defaults and required fields

    @Test
    void M16_schedule_config_decodes_missing_policies_and_attributes_with_defaults() {
        ScheduleCreated event = new ScheduleCreated(envelope(1, NANOS), SCHEDULE, Fixtures.fullConfig(NANOS));
        ObjectNode tree = tree(event);
        ((ObjectNode) data(tree).get("config"))
                .remove(List.of("overlap_policy", "catch_up_policy", "search_attributes"));

        ScheduleConfig config = ((ScheduleCreated) codec.decode(bytes(tree))).config();

        assertThat(config.overlapPolicy()).isEqualTo(OverlapPolicy.SKIP);
        assertThat(config.catchUpPolicy()).isEqualTo(CatchUpPolicy.ONE);
        assertThat(config.searchAttributes()).isEmpty();
        assertThat(config.trigger()).isEqualTo(new ScheduleTrigger.Cron("0 0 * * *"));
        assertThat(config.workflowType()).isEqualTo("checkout");
    }

    @Test
    void M16_each_optional_or_defaulted_field_may_be_missing() {
        for (Event event : Fixtures.allKindsFull(NANOS)) {
            for (String field : MAY_BE_MISSING.getOrDefault(event.kind(), Set.of())) {
                ObjectNode tree = tree(event);
                assertThat(data(tree).remove(field))
                        .as(event.kind() + "." + field)
                        .isNotNull();

                Event decoded = codec.decode(bytes(tree));

                assertThat(decoded.kind()).isEqualTo(event.kind());
                assertThat(decoded.envelope()).isEqualTo(event.envelope());
            }
        }
    }

    @Test
    void M16_missing_field_without_default_makes_the_event_undecodable() {
        int checked = 0;
        for (Event event : Fixtures.allKindsFull(NANOS)) {
            Set<String> optional = MAY_BE_MISSING.getOrDefault(event.kind(), Set.of());
            List<String> fields = new ArrayList<>();
            data(tree(event)).fieldNames().forEachRemaining(fields::add);
            for (String field : fields) {
                if (optional.contains(field)) {
                    continue;
                }
                ObjectNode tree = tree(event);
                data(tree).remove(field);
                assertThatThrownBy(() -> codec.decode(bytes(tree)))
                        .as(event.kind() + "." + field)
                        .isExactlyInstanceOf(SerializationException.class)
                        .hasMessageContaining(field);
                checked++;
            }
            for (String field : List.of("seq", "recorded_at", "workflow_id")) {
                ObjectNode tree = tree(event);
                ((ObjectNode) data(tree).get("envelope")).remove(field);
                assertThatThrownBy(() -> codec.decode(bytes(tree)))
                        .isExactlyInstanceOf(SerializationException.class)
                        .hasMessageContaining("data.envelope." + field);
            }
        }
        assertThat(checked).isGreaterThan(60);
    }

    @Test
    void M16_named_fields_without_default_are_required() {
        Event started = new WorkflowStarted(envelope(1, NANOS), "t", payload("i"), RUN, PARENT_RUN, PACKAGE);
        Event failed = new ActivityFailed(
                envelope(2, NANOS), new ActivityId(1), new ActivityError(ActivityError.Kind.RETRYABLE, "m", null), 1);
        for (Object[] c : new Object[][] {{started, "run_id"}, {started, "package_version"}, {failed, "attempt"}}) {
            ObjectNode tree = tree((Event) c[0]);
            data(tree).remove((String) c[1]);

            assertThatThrownBy(() -> codec.decode(bytes(tree)))
                    .isExactlyInstanceOf(SerializationException.class)
                    .hasMessageContaining("data." + c[1])
                    .hasMessageContaining("missing required field");
        }
    }

    @Test
    void M16_missing_nested_required_fields_are_undecodable() {
        Event failed = new WorkflowFailed(envelope(1, NANOS), new WorkflowError("m", payload("d")));
        Event activityFailed = new ActivityFailed(
                envelope(1, NANOS), new ActivityId(1), new ActivityError(ActivityError.Kind.RETRYABLE, "m", null), 1);
        Event schedule = new ScheduleCreated(envelope(1, NANOS), SCHEDULE, Fixtures.fullConfig(NANOS));
        Event interval = new ScheduleUpdated(envelope(1, NANOS), SCHEDULE, Fixtures.intervalConfig());

        List<Object[]> cases = List.of(
                new Object[] {failed, "error", "message"},
                new Object[] {activityFailed, "error", "kind"},
                new Object[] {activityFailed, "error", "message"},
                new Object[] {schedule, "config", "trigger"},
                new Object[] {schedule, "config", "workflow_type"},
                new Object[] {schedule, "config", "input"});
        for (Object[] c : cases) {
            ObjectNode tree = tree((Event) c[0]);
            ((ObjectNode) data(tree).get((String) c[1])).remove((String) c[2]);
            assertThatThrownBy(() -> codec.decode(bytes(tree)))
                    .as(c[1] + "." + c[2])
                    .isExactlyInstanceOf(SerializationException.class)
                    .hasMessageContaining("data." + c[1] + "." + c[2]);
        }
        for (String field : List.of("content_type", "bytes")) {
            ObjectNode tree = tree(failed);
            ((ObjectNode) data(tree).get("error").get("details")).remove(field);
            assertUndecodable(tree);
        }
        for (String field : List.of("secs", "nanos")) {
            ObjectNode tree = tree(interval);
            ((ObjectNode) data(tree)
                            .get("config")
                            .get("trigger")
                            .get("Interval")
                            .get("period"))
                    .remove(field);
            assertUndecodable(tree);
        }
    }

    // ---------------------------------------------------------------- X6 undecodable input

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                " ",
                "garbage",
                "{",
                "{\"type\":\"WorkflowCompleted\"",
                "[]",
                "42",
                "\"WorkflowCompleted\"",
                "null",
                "{}",
                "{\"type\":\"WorkflowCompleted\"}",
                "{\"data\":{}}",
                "{\"type\":5,\"data\":{}}",
                "{\"type\":\"NoSuchEvent\",\"data\":{}}",
                "{\"type\":\"workflowcompleted\",\"data\":{}}",
                "{\"type\":\"WorkflowCompleted\",\"data\":[]}",
                "{\"type\":\"WorkflowCompleted\",\"data\":{}}"
            })
    void X6_malformed_documents_are_undecodable(String json) {
        assertUndecodable(utf8(json));
    }

    @Test
    void X6_null_and_binary_garbage_are_undecodable() {
        assertUndecodable((byte[]) null);
        assertUndecodable(new byte[] {(byte) 0xff, (byte) 0xfe, 0, 1, 2});
        byte[] valid = codec.encode(Fixtures.allKindsFull(NANOS).get(0));
        assertUndecodable(Arrays.copyOf(valid, valid.length - 1));
        byte[] invalidUtf8 = new String(valid, StandardCharsets.UTF_8)
                .replace("checkout", "check\u0001out")
                .getBytes(StandardCharsets.UTF_8);
        assertUndecodable(invalidUtf8);
        byte[] badByteInString = valid.clone();
        int at = new String(valid, StandardCharsets.ISO_8859_1).indexOf("checkout");
        badByteInString[at] = (byte) 0xC3; // a lone UTF-8 lead byte
        badByteInString[at + 1] = (byte) 0x28;
        assertUndecodable(badByteInString);
    }

    @Test
    void X6_trailing_content_and_duplicate_members_are_undecodable() {
        String valid = new String(codec.encode(Fixtures.allKindsFull(NANOS).get(1)), StandardCharsets.UTF_8);

        assertUndecodable(utf8(valid + " {}"));
        assertUndecodable(utf8(valid + "x"));
        assertUndecodable(utf8(valid.replaceFirst(
                "\\{\"type\":\"WorkflowCompleted\",",
                "{\"type\":\"WorkflowCompleted\",\"type\":\"WorkflowCancelled\",")));
        assertThat(codec.decode(utf8("  " + valid + "\n")))
                .isEqualTo(Fixtures.allKindsFull(NANOS).get(1));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                "not-a-uuid",
                "f1e2d3c4b5a647988a7b6c5d4e3f2a10",
                "{f1e2d3c4-b5a6-4798-8a7b-6c5d4e3f2a10}",
                "urn:uuid:f1e2d3c4-b5a6-4798-8a7b-6c5d4e3f2a10",
                "f1e2d3c4-b5a6-4798-8a7b-6c5d4e3f2a1",
                "f1e2d3c4-b5a6-4798-8a7b-6c5d4e3f2a100",
                "g1e2d3c4-b5a6-4798-8a7b-6c5d4e3f2a10",
                "f1e2d3c4_b5a6-4798-8a7b-6c5d4e3f2a10",
                " f1e2d3c4-b5a6-4798-8a7b-6c5d4e3f2a1",
                "f1e2d3c4-b5a6-4798-8a7b-6c5d4e3f2a1\uFF10",
                "+1e2d3c4-b5a6-4798-8a7b-6c5d4e3f2a10"
            })
    void X6_bad_uuids_are_undecodable(String uuid) {
        for (Event event : List.of(
                Fixtures.allKindsFull(NANOS).get(0),
                Fixtures.allKindsFull(NANOS).get(24))) {
            ObjectNode inEnvelope = tree(event);
            ((ObjectNode) data(inEnvelope).get("envelope")).put("workflow_id", uuid);
            assertThatThrownBy(() -> codec.decode(bytes(inEnvelope)))
                    .isExactlyInstanceOf(SerializationException.class)
                    .hasMessageContaining("data.envelope.workflow_id");
        }
        ObjectNode inData = tree(Fixtures.allKindsFull(NANOS).get(0));
        data(inData).put("run_id", uuid);
        assertThatThrownBy(() -> codec.decode(bytes(inData)))
                .isExactlyInstanceOf(SerializationException.class)
                .hasMessageContaining("data.run_id");
    }

    @Test
    void X6_upper_case_uuids_decode_to_the_same_id() {
        Event event = Fixtures.allKindsFull(NANOS).get(1);
        ObjectNode tree = tree(event);
        ((ObjectNode) data(tree).get("envelope"))
                .put("workflow_id", WORKFLOW.toString().toUpperCase());

        assertThat(codec.decode(bytes(tree))).isEqualTo(event);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                "yesterday",
                "2026-06-03",
                "2026-06-03T02:30:00",
                "2026-06-03T02:30:00.Z",
                "2026-13-03T02:30:00Z",
                "2026-02-30T02:30:00Z",
                "2026-06-03T24:00:00Z",
                "2026-06-03T02:60:00Z",
                "2026-06-03T02:30:60Z",
                "2026-06-03T02:30:00+0200",
                "2026-06-03T02:30:00+24:00",
                "2026-06-03T02:30:00Zjunk",
                "2026-06-03X02:30:00Z",
                "+2026-06-03T02:30:00Z",
                "26-06-03T02:30:00Z",
                "2026-06-03T02:30:00 Z",
                "2026-06-03T02:30:00.123456789+02",
                "1686000000"
            })
    void X6_bad_timestamps_are_undecodable(String timestamp) {
        ObjectNode envelopeCase = tree(Fixtures.allKindsFull(NANOS).get(1));
        ((ObjectNode) data(envelopeCase).get("envelope")).put("recorded_at", timestamp);
        assertThatThrownBy(() -> codec.decode(bytes(envelopeCase)))
                .isExactlyInstanceOf(SerializationException.class)
                .hasMessageContaining("recorded_at");

        ObjectNode fireAt = tree(Fixtures.allKindsFull(NANOS).get(15));
        data(fireAt).put("fire_at", timestamp);
        assertUndecodable(fireAt);
    }

    @Test
    void S12_timestamps_with_any_offset_are_normalised_to_utc() {
        Event event = new TimerStarted(envelope(1, NANOS), TimerId.named("t"), NANOS);
        Map<String, Instant> cases = Map.of(
                "2026-06-03T04:30:00.123456789+02:00", NANOS,
                "2026-06-02T21:00:00.123456789-05:30", NANOS,
                "2026-06-03T02:30:00.123456789+00:00", NANOS,
                "2026-06-03t02:30:00.123456789z", NANOS,
                "2026-06-03 02:30:00.123456789Z", NANOS,
                "2026-06-03T02:30:00.1234567891234Z", NANOS,
                "2026-06-03T02:30:00Z", WHOLE_SECOND,
                "2026-06-03T02:30:00.5Z", WHOLE_SECOND.plusMillis(500),
                "2026-06-03T00:00:00-23:59", Instant.parse("2026-06-03T23:59:00Z"),
                "2026-01-01T00:30:00+01:00", Instant.parse("2025-12-31T23:30:00Z"));
        for (Map.Entry<String, Instant> c : cases.entrySet()) {
            ObjectNode tree = tree(event);
            ((ObjectNode) data(tree).get("envelope")).put("recorded_at", c.getKey());
            data(tree).put("fire_at", c.getKey());

            TimerStarted decoded = (TimerStarted) codec.decode(bytes(tree));

            assertThat(decoded.recordedAt()).as(c.getKey()).isEqualTo(c.getValue());
            assertThat(decoded.fireAt()).as(c.getKey()).isEqualTo(c.getValue());
        }
    }

    @Test
    void X6_wrong_field_types_are_undecodable() {
        List<String> accepted = new ArrayList<>();
        int checked = 0;
        for (Event event : Fixtures.allKindsFull(NANOS)) {
            List<String> fields = new ArrayList<>();
            data(tree(event)).fieldNames().forEachRemaining(fields::add);
            for (String field : fields) {
                List<JsonNode> wrongValues = new ArrayList<>(List.of(
                        JSON.getNodeFactory().booleanNode(true),
                        JSON.getNodeFactory().numberNode(1.5),
                        JSON.getNodeFactory().textNode("")));
                if (!field.equals("attributes")) { // an empty map is a valid attribute map
                    wrongValues.add(JSON.createObjectNode());
                }
                for (JsonNode wrong : wrongValues) {
                    ObjectNode tree = tree(event);
                    data(tree).set(field, wrong);
                    try {
                        var unused = codec.decode(bytes(tree)); // accepted when it does not throw
                        if (!(wrong.isTextual() && isTextField(event.kind(), field))) {
                            accepted.add(event.kind() + "." + field + " = " + wrong);
                        }
                    } catch (SerializationException e) {
                        assertThat(e).hasMessageContaining(field);
                        checked++;
                    }
                }
            }
            for (String field : List.of("seq", "recorded_at", "workflow_id")) {
                for (JsonNode wrong : List.of(
                        JSON.getNodeFactory().booleanNode(false),
                        JSON.createArrayNode(),
                        JSON.getNodeFactory().numberNode(1.5))) {
                    ObjectNode tree = tree(event);
                    ((ObjectNode) data(tree).get("envelope")).set(field, wrong);
                    assertUndecodable(tree);
                }
            }
        }
        assertThat(accepted).isEmpty();
        assertThat(checked).isGreaterThan(250);
    }

    private static boolean isTextField(EventKind kind, String field) {
        return Set.of(
                        "workflow_type",
                        "package_version",
                        "reason",
                        "timeout",
                        "operator",
                        "activity_type",
                        "task_queue",
                        "node",
                        "name")
                .contains(field);
    }

    @Test
    void X6_numbers_out_of_range_are_undecodable() {
        Event started = new ActivityStarted(envelope(1, NANOS), new ActivityId(1), 1);
        String json = new String(codec.encode(started), StandardCharsets.UTF_8);

        assertUndecodable(utf8(json.replace("\"seq\":1", "\"seq\":-1")));
        assertUndecodable(utf8(json.replace("\"seq\":1", "\"seq\":9223372036854775808")));
        assertUndecodable(utf8(json.replace("\"seq\":1", "\"seq\":18446744073709551615")));
        assertUndecodable(utf8(json.replace("\"seq\":1", "\"seq\":1.0")));
        assertUndecodable(utf8(json.replace("\"seq\":1", "\"seq\":\"1\"")));
        assertUndecodable(utf8(json.replace("\"activity_id\":1", "\"activity_id\":-1")));
        assertUndecodable(utf8(json.replace("\"attempt\":1", "\"attempt\":-1")));
        assertUndecodable(utf8(json.replace("\"attempt\":1", "\"attempt\":2147483648")));
        assertThat(codec.decode(utf8(json.replace("\"attempt\":1", "\"attempt\":2147483647"))))
                .isEqualTo(new ActivityStarted(envelope(1, NANOS), new ActivityId(1), Integer.MAX_VALUE));

        Event interval = new ScheduleUpdated(envelope(1, NANOS), SCHEDULE, Fixtures.intervalConfig());
        String i = new String(codec.encode(interval), StandardCharsets.UTF_8);
        assertUndecodable(utf8(i.replace("\"nanos\":5", "\"nanos\":1000000000")));
        assertUndecodable(utf8(i.replace("\"secs\":300", "\"secs\":-300")));

        Event attrs =
                new SearchAttributesUpdated(envelope(1, NANOS), WORKFLOW, Map.of("n", SearchAttributeValue.of(5L)));
        String a = new String(codec.encode(attrs), StandardCharsets.UTF_8);
        assertUndecodable(utf8(a.replace("{\"Int\":5}", "{\"Int\":9223372036854775808}")));
        assertUndecodable(utf8(a.replace("{\"Int\":5}", "{\"Int\":5.5}")));
        assertThat(((SearchAttributesUpdated)
                                codec.decode(utf8(a.replace("{\"Int\":5}", "{\"Int\":-9223372036854775808}"))))
                        .attributes()
                        .get("n"))
                .isEqualTo(SearchAttributeValue.of(Long.MIN_VALUE));
    }

    @Test
    void X6_unknown_tokens_and_variants_are_undecodable() {
        List<Event> full = Fixtures.allKindsFull(NANOS);
        Map<EventKind, Event> byKind = full.stream().collect(Collectors.toMap(Event::kind, e -> e));

        ObjectNode cause = tree(byKind.get(EventKind.TIMER_CANCELLED));
        data(cause).put("cause", "CANCEL_TEARDOWN");
        assertUndecodable(cause);

        ObjectNode outcome = tree(byKind.get(EventKind.WITH_TIMEOUT_COMPLETED));
        data(outcome).put("outcome", "Done");
        assertUndecodable(outcome);

        ObjectNode kind = tree(byKind.get(EventKind.ACTIVITY_FAILED));
        ((ObjectNode) data(kind).get("error")).put("kind", "retryable");
        assertUndecodable(kind);

        ObjectNode overlap = tree(byKind.get(EventKind.SCHEDULE_CREATED));
        ((ObjectNode) data(overlap).get("config")).put("overlap_policy", "Never");
        assertUndecodable(overlap);

        ObjectNode trigger = tree(byKind.get(EventKind.SCHEDULE_CREATED));
        ((ObjectNode) data(trigger).get("config"))
                .set("trigger", JSON.createObjectNode().put("Rrule", "x"));
        assertUndecodable(trigger);

        ObjectNode twoTriggers = tree(byKind.get(EventKind.SCHEDULE_CREATED));
        ((ObjectNode) data(twoTriggers).get("config").get("trigger")).set("Interval", JSON.createObjectNode());
        assertUndecodable(twoTriggers);

        ObjectNode timer = tree(byKind.get(EventKind.TIMER_FIRED));
        data(timer).set("timer_id", JSON.createObjectNode().put("Numbered", 3));
        assertUndecodable(timer);

        ObjectNode timerBoth = tree(byKind.get(EventKind.TIMER_FIRED));
        ((ObjectNode) data(timerBoth).get("timer_id")).put("Named", "x");
        assertUndecodable(timerBoth);

        ObjectNode attribute = tree(byKind.get(EventKind.SEARCH_ATTRIBUTES_UPDATED));
        ((ObjectNode) data(attribute).get("attributes"))
                .set("x", JSON.createObjectNode().put("Decimal", "1.0"));
        assertUndecodable(attribute);

        ObjectNode badFloat = tree(byKind.get(EventKind.SEARCH_ATTRIBUTES_UPDATED));
        ((ObjectNode) data(badFloat).get("attributes"))
                .set("x", JSON.createObjectNode().put("Float", "nan"));
        assertUndecodable(badFloat);

        ObjectNode badKeyword = tree(byKind.get(EventKind.SEARCH_ATTRIBUTES_UPDATED));
        ((ObjectNode) data(badKeyword).get("attributes"))
                .set(
                        "x",
                        JSON.createObjectNode()
                                .set(
                                        "KeywordList",
                                        JSON.createArrayNode().add("a").add(1)));
        assertUndecodable(badKeyword);

        ObjectNode nullKeyword = tree(byKind.get(EventKind.SEARCH_ATTRIBUTES_UPDATED));
        ((ObjectNode) data(nullKeyword).get("attributes"))
                .set(
                        "x",
                        JSON.createObjectNode()
                                .set(
                                        "KeywordList",
                                        JSON.createArrayNode().add("a").addNull()));
        assertUndecodable(nullKeyword);

        ObjectNode nullAttribute = tree(byKind.get(EventKind.SEARCH_ATTRIBUTES_UPDATED));
        ((ObjectNode) data(nullAttribute).get("attributes")).putNull("x");
        assertUndecodable(nullAttribute);

        ObjectNode badReopened = tree(byKind.get(EventKind.WORKFLOW_REOPENED));
        ((ArrayNode) data(badReopened).get("reopened")).add("activity:3");
        assertUndecodable(badReopened);
    }

    @Test
    void X6_values_the_model_rejects_are_reported_as_serialization_failures() {
        ObjectNode emptyTimer = tree(new TimerFired(envelope(4, NANOS), TimerId.named("x")));
        data(emptyTimer).set("timer_id", JSON.createObjectNode().put("Named", ""));

        assertThatThrownBy(() -> codec.decode(bytes(emptyTimer)))
                .isExactlyInstanceOf(SerializationException.class)
                .hasMessageContaining("TimerFired seq 4 of workflow " + WORKFLOW)
                .hasMessageContaining("data.timer_id.Named");

        ObjectNode badText = tree(new TimerFired(envelope(4, NANOS), TimerId.named("x")));
        data(badText).put("timer_id", "timer:named:");
        assertThatThrownBy(() -> codec.decode(bytes(badText)))
                .isExactlyInstanceOf(SerializationException.class)
                .hasMessageContaining("data.timer_id")
                .hasRootCauseInstanceOf(InvalidArgumentException.class);
    }

    @Test
    void X6_timer_ids_also_decode_from_canonical_text() {
        for (TimerId id : List.of(TimerId.named("deadline"), TimerId.named("timer:named:x"), TimerId.anonymous(3))) {
            Event event = new TimerFired(envelope(1, NANOS), id);
            ObjectNode tree = tree(event);
            data(tree).put("timer_id", id.canonicalText());

            assertThat(codec.decode(bytes(tree))).isEqualTo(event);
        }
    }

    @Test
    void X6_history_decoding_reports_the_bad_element() {
        List<Event> history = Fixtures.allKindsFull(NANOS).subList(0, 3);
        ArrayNode tree;
        try {
            tree = (ArrayNode) JSON.readTree(codec.encodeHistory(history));
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        ((ObjectNode) tree.get(1).get("data")).remove("result");

        assertThatThrownBy(() -> codec.decodeHistory(bytes(tree)))
                .isExactlyInstanceOf(SerializationException.class)
                .hasMessageContaining("[1].data.result");
        assertThatThrownBy(() -> codec.decodeHistory(utf8("{}"))).isExactlyInstanceOf(SerializationException.class);
        assertThatThrownBy(() -> codec.decodeHistory(utf8("[1]"))).isExactlyInstanceOf(SerializationException.class);
        assertThatThrownBy(() -> codec.decodeHistory(utf8("[] []"))).isExactlyInstanceOf(SerializationException.class);
        assertThatThrownBy(() -> codec.decodeHistory(null)).isExactlyInstanceOf(SerializationException.class);
        assertThat(codec.decodeHistory(utf8("[]"))).isEmpty();
    }

    // ---------------------------------------------------------------- payloads

    @Test
    void M7_binary_and_non_utf8_payload_bytes_round_trip() {
        Payload binary = Fixtures.binaryPayload();
        Payload invalidUtf8 = Payload.json(new byte[] {(byte) 0xC3, (byte) 0x28, (byte) 0xFF, 0, '"', '\\'});
        Payload empty = Payload.json(new byte[0]);
        byte[] large = new byte[3 * 1024 * 1024 + 1];
        new java.util.Random(7).nextBytes(large);
        Payload big = Payload.json(large);

        for (Payload p : List.of(binary, invalidUtf8, empty, big)) {
            assertThat(codec.decodePayload(codec.encodePayload(p))).isEqualTo(p);
            SignalReceived event = new SignalReceived(envelope(1, NANOS), "s", p);
            assertThat(roundTrip(event)).isEqualTo(event);
            WorkflowFailed failed = new WorkflowFailed(envelope(1, NANOS), new WorkflowError("m", p));
            assertThat(roundTrip(failed)).isEqualTo(failed);
        }
    }

    @Test
    void M25_payload_bytes_are_standard_base64_and_also_decode_from_upstream_number_arrays() {
        assertThat(new String(codec.encodePayload(Payload.json("{\"a\":1}")), StandardCharsets.UTF_8))
                .isEqualTo("{\"content_type\":\"Json\",\"bytes\":\"eyJhIjoxfQ==\"}");

        assertThat(codec.decodePayload(utf8("{\"content_type\":\"Json\",\"bytes\":[123,34,97,34,58,49,125]}")))
                .isEqualTo(Payload.json("{\"a\":1}"));
        assertThat(codec.decodePayload(utf8("{\"content_type\":\"Json\",\"bytes\":[0,255,128]}")))
                .isEqualTo(Payload.json(new byte[] {0, (byte) 255, (byte) 128}));
        assertThat(codec.decodePayload(utf8("{\"bytes\":[],\"content_type\":\"Json\",\"extra\":1}")))
                .isEqualTo(Payload.json(new byte[0]));
        assertThat(codec.decodePayload(utf8("{\"content_type\":\"Json\",\"bytes\":\"eyJhIjoxfQ\"}")))
                .isEqualTo(Payload.json("{\"a\":1}"));
    }

    @Test
    void M25_a_payload_decodes_alike_whatever_the_order_of_its_members_and_unknown_ones_are_ignored() {
        // the canonical form (read in one streaming pass) and every other form (read as a tree) agree
        Payload expected = Payload.json("{\"a\":1}");
        assertThat(codec.decodePayload(utf8("{\"content_type\":\"Json\",\"bytes\":\"eyJhIjoxfQ==\"}")))
                .isEqualTo(expected);
        assertThat(codec.decodePayload(utf8("{\"bytes\":\"eyJhIjoxfQ==\",\"content_type\":\"Json\"}")))
                .isEqualTo(expected);
        assertThat(codec.decodePayload(utf8(" {\"bytes\" : \"eyJhIjoxfQ==\", \"content_type\":\"Json\"} ")))
                .isEqualTo(expected);
        assertThat(codec.decodePayload(utf8("{\"x\":[1],\"bytes\":\"eyJhIjoxfQ==\",\"content_type\":\"Json\"}")))
                .isEqualTo(expected);
        assertThat(codec.decodePayload(utf8("{\"content_type\":\"J\\u0073on\",\"bytes\":\"eyJhIjoxfQ==\"}")))
                .isEqualTo(expected);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "{\"content_type\":\"Json\",\"content_type\":\"Json\",\"bytes\":\"\"}",
                "{\"content_type\":\"Json\",\"bytes\":\"\",\"bytes\":\"\"}",
                "{\"content_type\":\"Json\",\"bytes\":\"e30=\"",
                "{\"content_type\":\"Json\",\"bytes\":\" e30=\"}",
                "{\"content_type\":null,\"bytes\":\"e30=\"}",
                "{\"content_type\":\"Json\",\"bytes\":null}"
            })
    void X6_payloads_with_a_repeated_member_or_cut_short_are_undecodable(String json) {
        assertThatThrownBy(() -> codec.decodePayload(utf8(json))).isExactlyInstanceOf(SerializationException.class);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                "garbage",
                "[]",
                "null",
                "{}",
                "{\"content_type\":\"Json\"}",
                "{\"bytes\":\"\"}",
                "{\"content_type\":\"Bson\",\"bytes\":\"\"}",
                "{\"content_type\":\"json\",\"bytes\":\"\"}",
                "{\"content_type\":1,\"bytes\":\"\"}",
                "{\"content_type\":\"Json\",\"bytes\":\"***\"}",
                "{\"content_type\":\"Json\",\"bytes\":\"e30=\\n\"}",
                "{\"content_type\":\"Json\",\"bytes\":[256]}",
                "{\"content_type\":\"Json\",\"bytes\":[-1]}",
                "{\"content_type\":\"Json\",\"bytes\":[1.0]}",
                "{\"content_type\":\"Json\",\"bytes\":[\"1\"]}",
                "{\"content_type\":\"Json\",\"bytes\":[null]}",
                "{\"content_type\":\"Json\",\"bytes\":{}}",
                "{\"content_type\":\"Json\",\"bytes\":true}",
                "{\"content_type\":\"Json\",\"bytes\":\"\"} trailing"
            })
    void X6_corrupt_stored_payloads_are_undecodable(String json) {
        assertThatThrownBy(() -> codec.decodePayload(utf8(json))).isExactlyInstanceOf(SerializationException.class);
    }

    @Test
    void X6_null_payload_bytes_are_undecodable() {
        assertThatThrownBy(() -> codec.decodePayload(null)).isExactlyInstanceOf(SerializationException.class);
    }

    // ---------------------------------------------------------------- upstream compatibility

    @Test
    void M25_decodes_an_event_in_upstream_form() {
        String upstream = "{\"type\":\"ActivityFailed\",\"data\":{"
                + "\"envelope\":{\"seq\":10,\"recorded_at\":\"2023-11-14T22:13:20.123+00:00\","
                + "\"workflow_id\":\"00000000-0000-0000-0000-000000000000\"},"
                + "\"activity_id\":7,"
                + "\"error\":{\"kind\":\"Retryable\",\"message\":\"temporary outage\",\"details\":null},"
                + "\"attempt\":1}}";

        Event decoded = codec.decode(utf8(upstream));

        assertThat(decoded)
                .isEqualTo(new ActivityFailed(
                        new dev.durablestore.api.event.EventEnvelope(
                                10, Instant.parse("2023-11-14T22:13:20.123Z"), WorkflowId.nil()),
                        new ActivityId(7),
                        new ActivityError(ActivityError.Kind.RETRYABLE, "temporary outage", null),
                        1));

        String started = "{\"data\":{\"envelope\":{\"seq\":1,\"recorded_at\":\"2023-11-14T22:13:20Z\","
                + "\"workflow_id\":\"00000000-0000-0000-0000-000000000000\"},\"workflow_type\":\"checkout\","
                + "\"input\":{\"content_type\":\"Json\",\"bytes\":[123,125]},\"run_id\":\"" + RUN + "\","
                + "\"parent_run_id\":null,\"package_version\":\"abc\",\"some_future_field\":{\"x\":[1,2]}},"
                + "\"type\":\"WorkflowStarted\"}";
        assertThat(codec.decode(utf8(started)))
                .isEqualTo(new WorkflowStarted(
                        new dev.durablestore.api.event.EventEnvelope(
                                1, Instant.parse("2023-11-14T22:13:20Z"), WorkflowId.nil()),
                        "checkout",
                        Payload.json("{}"),
                        RUN,
                        null,
                        new dev.durablestore.api.PackageVersion("abc")));
    }

    @Test
    void M25_search_attribute_values_also_decode_from_upstream_adjacent_tagging() {
        Event event =
                new SearchAttributesUpdated(envelope(1, NANOS), WORKFLOW, Map.of("k", SearchAttributeValue.of(1L)));
        ObjectNode tree = tree(event);
        ObjectNode attributes = (ObjectNode) data(tree).get("attributes");
        attributes.set("s", JSON.createObjectNode().put("type", "String").put("data", "x"));
        attributes.set("i", JSON.createObjectNode().put("type", "Int").put("data", 5));
        attributes.set("f", JSON.createObjectNode().put("type", "Float").put("data", 1.5));
        attributes.set("b", JSON.createObjectNode().put("type", "Bool").put("data", true));
        attributes.set("d", JSON.createObjectNode().put("type", "Datetime").put("data", "2023-11-14T22:13:20.123Z"));
        attributes.set(
                "l",
                JSON.createObjectNode()
                        .put("type", "KeywordList")
                        .set("data", JSON.createArrayNode().add("a")));

        Map<String, SearchAttributeValue> decoded = ((SearchAttributesUpdated) codec.decode(bytes(tree))).attributes();

        assertThat(decoded)
                .containsOnly(
                        Map.entry("k", SearchAttributeValue.of(1L)),
                        Map.entry("s", SearchAttributeValue.of("x")),
                        Map.entry("i", SearchAttributeValue.of(5L)),
                        Map.entry("f", SearchAttributeValue.of(1.5)),
                        Map.entry("b", SearchAttributeValue.of(true)),
                        Map.entry("d", SearchAttributeValue.of(Instant.parse("2023-11-14T22:13:20.123Z"))),
                        Map.entry("l", SearchAttributeValue.of(List.of("a"))));
    }

    // ---------------------------------------------------------------- encode failures and arguments

    @Test
    void X6_instants_outside_the_rfc3339_years_cannot_be_encoded() {
        for (Instant at : List.of(
                Instant.MAX,
                Instant.MIN,
                Instant.parse("-0001-12-31T23:59:59.999999999Z"),
                Instant.parse("+10000-01-01T00:00:00Z"))) {
            assertThatThrownBy(() -> codec.encode(new WorkflowCompleted(envelope(1, at), payload("r"))))
                    .isExactlyInstanceOf(SerializationException.class)
                    .hasMessageContaining("WorkflowCompleted seq 1");
            assertThatThrownBy(() -> codec.encode(new TimerStarted(envelope(1, NANOS), TimerId.named("t"), at)))
                    .isExactlyInstanceOf(SerializationException.class);
            assertThatThrownBy(() -> codec.encodeHistory(List.of(
                            new WorkflowCompleted(envelope(1, NANOS), payload("r")),
                            new WorkflowCompleted(envelope(2, at), payload("r")))))
                    .isExactlyInstanceOf(SerializationException.class)
                    .hasMessageContaining("events[1]");
        }
    }

    @Test
    void M20_strings_with_unpaired_surrogates_round_trip_as_escapes() {
        for (String name : List.of("lone \uD800 high", "lone \uDC00 low", "ends high \uD83D", "\uDE00\uD83D")) {
            Event event = new SignalReceived(envelope(1, NANOS), name, payload("p"));

            assertThat(roundTrip(event)).isEqualTo(event);
        }
    }

    @Test
    void X10_null_arguments_to_encode_methods_are_rejected() {
        assertThatThrownBy(() -> codec.encode(null)).isExactlyInstanceOf(InvalidArgumentException.class);
        assertThatThrownBy(() -> codec.encodePayload(null)).isExactlyInstanceOf(InvalidArgumentException.class);
        assertThatThrownBy(() -> codec.encodeHistory(null)).isExactlyInstanceOf(InvalidArgumentException.class);
        List<Event> withNull = new ArrayList<>();
        withNull.add(null);
        assertThatThrownBy(() -> codec.encodeHistory(withNull)).isExactlyInstanceOf(InvalidArgumentException.class);
    }

    @Test
    void codec_is_shareable_across_threads() throws Exception {
        List<Event> events = Fixtures.allKindsFull(NANOS);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<Boolean>> results = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                results.add(pool.submit(() -> {
                    for (int i = 0; i < 25; i++) {
                        for (Event e : events) {
                            if (!codec.decode(codec.encode(e)).equals(e)) {
                                return false;
                            }
                        }
                    }
                    return true;
                }));
            }
            for (Future<Boolean> r : results) {
                assertThat(r.get()).isTrue();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(EventCodec.create()).isNotNull();
    }
}
