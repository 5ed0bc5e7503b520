package dev.durablestore.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durablestore.api.event.EventEnvelope;
import dev.durablestore.api.event.EventKind;
import dev.durablestore.api.event.SearchAttributeValue;
import dev.durablestore.api.event.WorkflowStarted;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class ModelTest {

    private static final String NIL = "00000000-0000-0000-0000-000000000000";

    @Test
    void C153_event_accessors_return_envelope_fields() {
        WorkflowId workflow = WorkflowId.random();
        Instant at = Instant.parse("2023-11-14T22:13:20.123Z");
        WorkflowStarted event = new WorkflowStarted(
                new EventEnvelope(17, at, workflow),
                "checkout",
                Payload.json("{}"),
                RunId.random(),
                null,
                new PackageVersion("v"));

        assertThat(event.seq()).isEqualTo(17);
        assertThat(event.recordedAt()).isEqualTo(at);
        assertThat(event.workflowId()).isEqualTo(workflow);
        assertThat(event.envelope()).isEqualTo(new EventEnvelope(17, at, workflow));
        assertThat(event.kind()).isEqualTo(EventKind.WORKFLOW_STARTED);
    }

    @Test
    void C158_uuid_identifiers_are_hash_map_keys() {
        WorkflowId workflow = WorkflowId.random();
        RunId run = RunId.random();
        ScheduleId schedule = ScheduleId.random();
        Map<Object, String> map = new HashMap<>();
        map.put(workflow, "workflow");
        map.put(run, "run");
        map.put(schedule, "schedule");

        assertThat(map.get(new WorkflowId(workflow.value()))).isEqualTo("workflow");
        assertThat(map.get(RunId.parse(run.toString()))).isEqualTo("run");
        assertThat(map.get(ScheduleId.parse(schedule.toString()))).isEqualTo("schedule");
        // M2: the same UUID under another id type is a different key.
        assertThat(map.get(new RunId(workflow.value()))).isNull();
        assertThat(new WorkflowId(run.value())).isNotEqualTo(run);
        assertThat(WorkflowId.nil()).isNotEqualTo(RunId.nil()).isNotEqualTo(ScheduleId.nil());
    }

    @Test
    void C159_sequence_identifiers_expose_positions() {
        assertThat(new ActivityId(42).position()).isEqualTo(42);
        assertThat(((TimerId.Anonymous) TimerId.anonymous(43)).position()).isEqualTo(43);
        assertThat(((TimerId.Named) TimerId.named("deadline")).name()).isEqualTo("deadline");
    }

    @Test
    void C160_display_formats_are_stable() {
        assertThat(WorkflowId.nil().toString()).isEqualTo(NIL);
        assertThat(RunId.nil().toString()).isEqualTo(NIL);
        assertThat(ScheduleId.nil().toString()).isEqualTo(NIL);
        assertThat(new ActivityId(7).toString()).isEqualTo("activity:7");
        assertThat(TimerId.named("reminder").toString()).isEqualTo("timer:named:reminder");
        assertThat(TimerId.named("reminder").canonicalText()).isEqualTo("timer:named:reminder");
        assertThat(TimerId.anonymous(3).toString()).isEqualTo("timer:anonymous:3");
        assertThat(TimerId.anonymous(3).canonicalText()).isEqualTo("timer:anonymous:3");
        assertThat(new WorkflowId(UUID.fromString("F1E2D3C4-B5A6-4798-8A7B-6C5D4E3F2A10")).toString())
                .isEqualTo("f1e2d3c4-b5a6-4798-8a7b-6c5d4e3f2a10");
    }

    @Test
    void C161_named_timer_rejects_empty_name() {
        assertThatThrownBy(() -> TimerId.named("")).isInstanceOf(InvalidArgumentException.class);
        assertThatThrownBy(() -> new TimerId.Named("")).isInstanceOf(InvalidArgumentException.class);
        assertThatThrownBy(() -> TimerId.named(null)).isInstanceOf(InvalidArgumentException.class);
        assertThatThrownBy(() -> TimerId.parse("timer:named:")).isInstanceOf(InvalidArgumentException.class);
        assertThat(TimerId.named(" ").canonicalText()).isEqualTo("timer:named: ");
    }

    @Test
    void C164_values_report_matching_attribute_types() {
        assertThat(SearchAttributeValue.of("customer-123").type()).isEqualTo(SearchAttributeValue.Type.STRING);
        assertThat(SearchAttributeValue.of(42L).type()).isEqualTo(SearchAttributeValue.Type.INT);
        assertThat(SearchAttributeValue.of(12.5).type()).isEqualTo(SearchAttributeValue.Type.FLOAT);
        assertThat(SearchAttributeValue.of(true).type()).isEqualTo(SearchAttributeValue.Type.BOOL);
        assertThat(SearchAttributeValue.of(Instant.parse("2023-11-14T22:13:20.123Z"))
                        .type())
                .isEqualTo(SearchAttributeValue.Type.DATETIME);
        assertThat(SearchAttributeValue.of(List.of("vip", "west")).type())
                .isEqualTo(SearchAttributeValue.Type.KEYWORD_LIST);
    }

    @Test
    void M1_canonical_text_parses_back_and_non_canonical_text_is_rejected() {
        WorkflowId id = WorkflowId.random();

        assertThat(WorkflowId.parse(id.toString())).isEqualTo(id);
        assertThat(RunId.parse(NIL)).isEqualTo(RunId.nil());
        assertThat(WorkflowId.parse(id.toString().toUpperCase(java.util.Locale.ROOT)))
                .isEqualTo(id);
        for (String bad : List.of(
                "",
                "1-2-3-4-5",
                "f1e2d3c4b5a647988a7b6c5d4e3f2a10",
                "{" + NIL + "}",
                NIL + "0",
                NIL.substring(1),
                "g" + NIL.substring(1),
                NIL.replace('-', '0'),
                "0000000-00000-0000-0000-000000000000",
                "\u0663" + NIL.substring(1),
                "\uff10" + NIL.substring(1),
                NIL.substring(0, 35) + " ")) {
            assertThatThrownBy(() -> WorkflowId.parse(bad)).isInstanceOf(InvalidArgumentException.class);
        }
        assertThatThrownBy(() -> WorkflowId.parse(null)).isInstanceOf(InvalidArgumentException.class);
        assertThatThrownBy(() -> new WorkflowId(null)).isInstanceOf(InvalidArgumentException.class);
    }

    @Test
    void M3_workflow_ids_order_by_canonical_text_not_by_uuid_compare_to() {
        WorkflowId low = WorkflowId.parse("7fffffff-ffff-ffff-ffff-ffffffffffff");
        WorkflowId high = WorkflowId.parse("80000000-0000-0000-0000-000000000000");
        WorkflowId highLow = WorkflowId.parse("00000000-0000-0000-8000-000000000000");
        WorkflowId lowLow = WorkflowId.parse("00000000-0000-0000-7fff-ffffffffffff");

        // UUID.compareTo compares signed halves and gets both pairs backwards.
        assertThat(low.value().compareTo(high.value())).isPositive();
        assertThat(lowLow.value().compareTo(highLow.value())).isPositive();
        assertThat(low.compareTo(high)).isNegative();
        assertThat(lowLow.compareTo(highLow)).isNegative();
        assertThat(RunId.parse(low.toString()).compareTo(RunId.parse(high.toString())))
                .isNegative();
        assertThat(ScheduleId.parse(low.toString()).compareTo(ScheduleId.parse(high.toString())))
                .isNegative();

        Random random = new Random(3);
        List<WorkflowId> ids = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            ids.add(new WorkflowId(new UUID(random.nextLong(), random.nextLong())));
        }
        ids.addAll(List.of(low, high, highLow, lowLow, WorkflowId.nil()));
        List<WorkflowId> byCompareTo = new ArrayList<>(ids);
        byCompareTo.sort(null);
        List<WorkflowId> byText = new ArrayList<>(ids);
        byText.sort((a, b) -> a.toString().compareTo(b.toString()));
        assertThat(byCompareTo).isEqualTo(byText);
    }

    @Test
    void M4_M5_sequence_identifiers_reject_negative_positions_and_compare_by_variant() {
        assertThatThrownBy(() -> new ActivityId(-1)).isInstanceOf(InvalidArgumentException.class);
        assertThatThrownBy(() -> TimerId.anonymous(-1)).isInstanceOf(InvalidArgumentException.class);
        assertThat(TimerId.named("3")).isNotEqualTo(TimerId.anonymous(3));
        assertThat(TimerId.named("3")).isEqualTo(TimerId.named("3"));
        assertThat(TimerId.anonymous(3)).isEqualTo(TimerId.anonymous(3));
        for (TimerId id : List.of(
                TimerId.named("a:b"),
                TimerId.named("timer:anonymous:1"),
                TimerId.anonymous(0),
                TimerId.anonymous(Long.MAX_VALUE))) {
            assertThat(TimerId.parse(id.canonicalText())).isEqualTo(id);
        }
        for (String bad : List.of(
                "",
                "timer:",
                "timer:anonymous:",
                "timer:anonymous:-1",
                "timer:anonymous:1x",
                "timer:anonymous:99999999999999999999",
                "activity:3")) {
            assertThatThrownBy(() -> TimerId.parse(bad)).as(bad).isInstanceOf(InvalidArgumentException.class);
        }
    }

    @Test
    void M7_payloads_compare_by_bytes_and_copy_defensively() {
        byte[] bytes = "{\"a\":1}".getBytes(StandardCharsets.UTF_8);
        Payload payload = Payload.json(bytes);
        bytes[0] = 'x';
        byte[] out = payload.bytes();
        out[1] = 'y';

        assertThat(payload.asString()).isEqualTo("{\"a\":1}");
        assertThat(payload).isEqualTo(Payload.json("{\"a\":1}")).hasSameHashCodeAs(Payload.json("{\"a\":1}"));
        assertThat(payload).isNotEqualTo(Payload.json("{\"a\": 1}"));
        assertThat(payload.contentType()).isEqualTo(ContentType.JSON);
        assertThat(Payload.json("not json").asString()).isEqualTo("not json");
        assertThat(Payload.of(ContentType.JSON, new byte[] {1, 2}).size()).isEqualTo(2);
    }

    @Test
    void M10_event_kinds_are_31_with_unique_type_names() {
        Set<String> names = new HashSet<>();
        for (EventKind kind : EventKind.values()) {
            assertThat(names.add(kind.typeName())).isTrue();
            assertThat(EventKind.fromTypeName(kind.typeName())).isEqualTo(kind);
            assertThat(kind.type().getSimpleName()).isEqualTo(kind.typeName());
        }
        assertThat(names).hasSize(31);
        assertThat(EventKind.fromTypeName("Nope")).isNull();
        assertThat(Arrays.stream(EventKind.values()).filter(EventKind::isQueryable))
                .hasSize(10);
    }

    @Test
    void M19_search_attribute_values_are_immutable_and_compare_by_value() {
        List<String> keywords = new ArrayList<>(List.of("a"));
        SearchAttributeValue value = SearchAttributeValue.of(keywords);
        keywords.add("b");

        assertThat(value).isEqualTo(SearchAttributeValue.of(List.of("a")));
        assertThat(SearchAttributeValue.of(Double.NaN)).isEqualTo(SearchAttributeValue.of(Double.NaN));
        assertThat(SearchAttributeValue.of(0.0)).isNotEqualTo(SearchAttributeValue.of(-0.0));
        assertThat(SearchAttributeValue.of(1L)).isNotEqualTo(SearchAttributeValue.of(1.0));
    }
}
