package dev.durablestore.api.codec;

import com.fasterxml.jackson.databind.JsonNode;
import dev.durablestore.api.ActivityId;
import dev.durablestore.api.PackageVersion;
import dev.durablestore.api.Payload;
import dev.durablestore.api.RunId;
import dev.durablestore.api.ScheduleId;
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
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;

/**
 * Builds events and payloads from a decoded JSON tree; see {@link EventCodec}. Throws
 * {@link SerializationException} for malformed data, and lets the model constructors' own
 * exceptions escape for {@link EventCodec} to wrap.
 */
final class EventReader {

    /** The task queue of an {@code ActivityScheduled} recorded before the field existed (M16). */
    static final String DEFAULT_TASK_QUEUE = "default";
    /** The attempt of an activity event recorded before the field existed (M16). */
    private static final Integer LEGACY_ATTEMPT = 0;

    private EventReader() {}

    static Event readEvent(JsonNode root, String where) {
        FieldReader frame = FieldReader.of(root, where);
        String type = frame.text(WireNames.TYPE.getValue());
        EventKind kind = WireNames.kind(type);
        if (kind == null) {
            throw new SerializationException(frame.where("type") + ": unknown event type '" + type + "'");
        }
        FieldReader data = frame.object(WireNames.DATA.getValue());
        FieldReader env = data.object(WireNames.ENVELOPE.getValue());
        EventEnvelope envelope = new EventEnvelope(
                env.unsigned(WireNames.SEQ.getValue()),
                env.instant(WireNames.RECORDED_AT.getValue()),
                new WorkflowId(env.uuid(WireNames.WORKFLOW_ID.getValue())));
        try {
            return readFields(kind, envelope, data);
        } catch (RuntimeException e) {
            throw new SerializationException(type + " seq " + envelope.seq() + " of workflow "
                    + envelope.workflowId() + ": " + e.getMessage(), e);
        }
    }

    private static Event readFields(EventKind kind, EventEnvelope envelope, FieldReader data) {
        return switch (kind) {
            case WORKFLOW_STARTED -> new WorkflowStarted(envelope,
                    data.text("workflow_type"),
                    payload(data, "input"),
                    new RunId(data.uuid("run_id")),
                    optionalRunId(data, "parent_run_id"),
                    new PackageVersion(data.text("package_version")));
            case WORKFLOW_COMPLETED -> new WorkflowCompleted(envelope, payload(data, "result"));
            case WORKFLOW_FAILED -> new WorkflowFailed(envelope, workflowError(data.object("error")));
            case WORKFLOW_CANCELLED -> new WorkflowCancelled(envelope, data.text("reason"));
            case WORKFLOW_TIMED_OUT -> new WorkflowTimedOut(envelope, data.text("timeout"));
            case WORKFLOW_CONTINUED_AS_NEW -> new WorkflowContinuedAsNew(envelope,
                    payload(data, "input"),
                    data.optionalText("workflow_type"),
                    new RunId(data.uuid("parent_run_id")));
            case WORKFLOW_REOPENED -> new WorkflowReopened(envelope,
                    new RunId(data.uuid("run_id")),
                    list(data, "reopened", (v, w) -> new ActivityId(FieldReader.unsigned(v, w))));
            case WORKFLOW_PAUSED -> new WorkflowPaused(envelope,
                    new RunId(data.uuid("run_id")),
                    data.optionalText("reason"),
                    data.optionalText("operator"));
            case WORKFLOW_RESUMED -> new WorkflowResumed(envelope,
                    new RunId(data.uuid("run_id")),
                    data.optionalText("operator"));
            case SEARCH_ATTRIBUTES_UPDATED -> new SearchAttributesUpdated(envelope,
                    new WorkflowId(data.uuid("workflow_id")),
                    searchAttributes(data.object("attributes")));
            case ACTIVITY_SCHEDULED -> new ActivityScheduled(envelope,
                    activityId(data),
                    data.text("activity_type"),
                    payload(data, "input"),
                    data.optional("task_queue") == null ? DEFAULT_TASK_QUEUE : data.text("task_queue"),
                    data.optionalText("node"));
            case ACTIVITY_STARTED -> new ActivityStarted(envelope,
                    activityId(data), data.count("attempt", LEGACY_ATTEMPT));
            case ACTIVITY_COMPLETED -> new ActivityCompleted(envelope,
                    activityId(data), payload(data, "result"), data.count("attempt", LEGACY_ATTEMPT));
            case ACTIVITY_FAILED -> new ActivityFailed(envelope,
                    activityId(data), activityError(data.object("error")), data.count("attempt", null));
            case ACTIVITY_CANCELLED -> new ActivityCancelled(envelope,
                    activityId(data), data.count("attempt", LEGACY_ATTEMPT));
            case TIMER_STARTED -> new TimerStarted(envelope, timerId(data), data.instant("fire_at"));
            case TIMER_FIRED -> new TimerFired(envelope, timerId(data));
            case TIMER_CANCELLED -> new TimerCancelled(envelope, timerId(data),
                    data.optional("cause") == null
                            ? TimerCancelCause.WORKFLOW_INTENT
                            : token(data, "cause", WireTokens::timerCancelCause));
            case WITH_TIMEOUT_COMPLETED -> new WithTimeoutCompleted(envelope, timerId(data),
                    token(data, "outcome", WireTokens::withTimeoutOutcome),
                    data.optional("result") == null ? null : payload(data, "result"));
            case SIGNAL_RECEIVED -> new SignalReceived(envelope, data.text("name"), payload(data, "payload"));
            case SIGNAL_SENT -> new SignalSent(envelope,
                    new WorkflowId(data.uuid("target_workflow_id")),
                    data.text("name"),
                    payload(data, "payload"));
            case CHILD_WORKFLOW_STARTED -> new ChildWorkflowStarted(envelope,
                    childId(data),
                    data.text("workflow_type"),
                    payload(data, "input"),
                    new PackageVersion(data.text("package_version")));
            case CHILD_WORKFLOW_COMPLETED -> new ChildWorkflowCompleted(envelope,
                    childId(data), payload(data, "result"));
            case CHILD_WORKFLOW_FAILED -> new ChildWorkflowFailed(envelope,
                    childId(data), workflowError(data.object("error")));
            case CHILD_WORKFLOW_CANCELLED -> new ChildWorkflowCancelled(envelope, childId(data));
            case SCHEDULE_CREATED -> new ScheduleCreated(envelope,
                    scheduleId(data), scheduleConfig(data.object("config")));
            case SCHEDULE_UPDATED -> new ScheduleUpdated(envelope,
                    scheduleId(data), scheduleConfig(data.object("config")));
            case SCHEDULE_PAUSED -> new SchedulePaused(envelope, scheduleId(data));
            case SCHEDULE_RESUMED -> new ScheduleResumed(envelope, scheduleId(data));
            case SCHEDULE_DELETED -> new ScheduleDeleted(envelope, scheduleId(data));
            case SCHEDULE_TRIGGERED -> new ScheduleTriggered(envelope,
                    scheduleId(data),
                    new WorkflowId(data.uuid("workflow_id")),
                    new RunId(data.uuid("run_id")));
        };
    }

    /**
     * Reads a payload object. {@code bytes} is base64 text (as written) or an array of numbers
     * 0..255 (upstream's form).
     */
    static Payload readPayload(JsonNode value, String where) {
        FieldReader p = FieldReader.of(value, where);
        String contentType = p.text("content_type");
        if (!contentType.equals(WireNames.JSON_CONTENT.getValue())) {
            throw new SerializationException(p.where("content_type") + ": unknown content type '" + contentType + "'");
        }
        JsonNode bytes = p.required("bytes");
        String at = p.where("bytes");
        if (bytes.isTextual()) {
            try {
                return Payload.json(Base64.getDecoder().decode(bytes.textValue()));
            } catch (IllegalArgumentException e) {
                throw new SerializationException(at + ": not base64: " + e.getMessage(), e);
            }
        }
        if (bytes.isArray()) {
            byte[] out = new byte[bytes.size()];
            for (int i = 0; i < out.length; i++) {
                JsonNode b = bytes.get(i);
                if (!b.isIntegralNumber() || !b.canConvertToInt() || b.intValue() < 0 || b.intValue() > 255) {
                    throw new SerializationException(at + "[" + i + "]: expected a byte 0..255, found " + b);
                }
                out[i] = (byte) b.intValue();
            }
            return Payload.json(out);
        }
        throw FieldReader.wrongType(bytes, at, "base64 text or an array of bytes");
    }

    private static Payload payload(FieldReader data, String name) {
        return readPayload(data.required(name), data.where(name));
    }

    private static RunId optionalRunId(FieldReader data, String name) {
        UUID id = data.optionalUuid(name);
        return id == null ? null : new RunId(id);
    }

    private static ActivityId activityId(FieldReader data) {
        return new ActivityId(data.unsigned("activity_id"));
    }

    private static WorkflowId childId(FieldReader data) {
        return new WorkflowId(data.uuid("child_workflow_id"));
    }

    private static ScheduleId scheduleId(FieldReader data) {
        return new ScheduleId(data.uuid("schedule_id"));
    }

    private static <T> T token(FieldReader data, String name, Function<String, T> decode) {
        String text = data.text(name);
        T value = decode.apply(text);
        if (value == null) {
            throw new SerializationException(data.where(name) + ": unknown value '" + text + "'");
        }
        return value;
    }

    private static WorkflowError workflowError(FieldReader error) {
        return new WorkflowError(error.text("message"), optionalPayload(error, "details"));
    }

    private static ActivityError activityError(FieldReader error) {
        return new ActivityError(
                token(error, "kind", WireTokens::activityErrorKind),
                error.text("message"),
                optionalPayload(error, "details"));
    }

    private static Payload optionalPayload(FieldReader data, String name) {
        JsonNode value = data.optional(name);
        return value == null ? null : readPayload(value, data.where(name));
    }

    /** {@code {"Named":"x"}}, {@code {"Anonymous":3}}, or the canonical text of either. */
    private static TimerId timerId(FieldReader data) {
        JsonNode value = data.required("timer_id");
        String where = data.where("timer_id");
        if (value.isTextual()) {
            try {
                return TimerId.parse(value.textValue());
            } catch (RuntimeException e) {
                throw new SerializationException(where + ": " + e.getMessage(), e);
            }
        }
        Map.Entry<String, JsonNode> variant = singleMember(value, where);
        String at = where + "." + variant.getKey();
        return switch (variant.getKey()) {
            case "Named" -> TimerId.named(FieldReader.text(variant.getValue(), at));
            case "Anonymous" -> TimerId.anonymous(FieldReader.unsigned(variant.getValue(), at));
            default -> throw new SerializationException(where + ": unknown timer id variant '" + variant.getKey() + "'");
        };
    }

    private static ScheduleConfig scheduleConfig(FieldReader config) {
        JsonNode overlap = config.optional("overlap_policy");
        JsonNode catchUp = config.optional("catch_up_policy");
        JsonNode attributes = config.optional("search_attributes");
        return new ScheduleConfig(
                trigger(config),
                overlap == null ? OverlapPolicy.SKIP : token(config, "overlap_policy", WireTokens::overlapPolicy),
                catchUp == null ? CatchUpPolicy.ONE : token(config, "catch_up_policy", WireTokens::catchUpPolicy),
                config.text("workflow_type"),
                payload(config, "input"),
                attributes == null
                        ? Map.of()
                        : searchAttributes(FieldReader.of(attributes, config.where("search_attributes"))));
    }

    /** {@code {"Cron":{"expression":"…"}}} or {@code {"Interval":{"period":{"secs":N,"nanos":N}}}}. */
    private static ScheduleTrigger trigger(FieldReader config) {
        String where = config.where("trigger");
        Map.Entry<String, JsonNode> variant = singleMember(config.required("trigger"), where);
        FieldReader body = FieldReader.of(variant.getValue(), where + "." + variant.getKey());
        switch (variant.getKey()) {
            case "Cron":
                return new ScheduleTrigger.Cron(body.text("expression"));
            case "Interval":
                FieldReader period = body.object("period");
                long nanos = period.unsigned("nanos");
                if (nanos > 999_999_999L) {
                    throw new SerializationException(period.where("nanos") + ": " + nanos + " exceeds 999999999");
                }
                return new ScheduleTrigger.Interval(Duration.ofSeconds(period.unsigned("secs"), nanos));
            default:
                throw new SerializationException(where + ": unknown trigger variant '" + variant.getKey() + "'");
        }
    }

    private static Map<String, SearchAttributeValue> searchAttributes(FieldReader map) {
        Map<String, SearchAttributeValue> out = new HashMap<>();
        for (Map.Entry<String, JsonNode> field : map.node().properties()) {
            out.put(field.getKey(), searchAttributeValue(field.getValue(), map.where(field.getKey())));
        }
        return out;
    }

    /**
     * {@code {"<Tag>": value}} as written, or upstream's adjacently tagged
     * {@code {"type":"<Tag>","data":value}}.
     */
    private static SearchAttributeValue searchAttributeValue(JsonNode value, String where) {
        String tag;
        JsonNode content;
        if (value.isObject() && value.size() == 2 && value.has("type") && value.has("data")) {
            tag = FieldReader.text(value.get("type"), where + ".type");
            content = value.get("data");
        } else {
            Map.Entry<String, JsonNode> variant = singleMember(value, where);
            tag = variant.getKey();
            content = variant.getValue();
        }
        String at = where + "." + tag;
        switch (tag) {
            case "String":
                return new SearchAttributeValue.StringValue(FieldReader.text(content, at));
            case "Int":
                return new SearchAttributeValue.IntValue(FieldReader.signed(content, at));
            case "Float":
                return new SearchAttributeValue.FloatValue(floatValue(content, at));
            case "Bool":
                if (!content.isBoolean()) {
                    throw FieldReader.wrongType(content, at, "a boolean");
                }
                return new SearchAttributeValue.BoolValue(content.booleanValue());
            case "Datetime":
                return new SearchAttributeValue.DatetimeValue(FieldReader.instant(content, at));
            case "KeywordList":
                if (!content.isArray()) {
                    throw FieldReader.wrongType(content, at, "an array of strings");
                }
                List<String> keywords = new ArrayList<>(content.size());
                for (int i = 0; i < content.size(); i++) {
                    keywords.add(FieldReader.text(content.get(i), at + "[" + i + "]"));
                }
                return new SearchAttributeValue.KeywordListValue(keywords);
            default:
                throw new SerializationException(where + ": unknown search attribute type '" + tag + "'");
        }
    }

    /** A JSON number, or one of the strings {@code NaN}, {@code Infinity}, {@code -Infinity}. */
    private static double floatValue(JsonNode value, String where) {
        if (value.isNumber()) {
            return value.doubleValue();
        }
        if (value.isTextual()) {
            switch (value.textValue()) {
                case "NaN":
                    return Double.NaN;
                case "Infinity":
                    return Double.POSITIVE_INFINITY;
                case "-Infinity":
                    return Double.NEGATIVE_INFINITY;
                default:
                    break;
            }
        }
        throw FieldReader.wrongType(value, where, "a number, \"NaN\", \"Infinity\" or \"-Infinity\"");
    }

    private static Map.Entry<String, JsonNode> singleMember(JsonNode value, String where) {
        if (value == null || !value.isObject() || value.size() != 1) {
            String found = value == null ? "nothing"
                    : value.isObject() ? "an object with " + value.size() + " members"
                    : value.getNodeType().toString().toLowerCase(java.util.Locale.ROOT);
            throw new SerializationException(where + ": expected an object with exactly one member, found " + found);
        }
        return value.properties().iterator().next();
    }

    private interface ElementReader<T> {
        T read(JsonNode value, String where);
    }

    private static <T> List<T> list(FieldReader data, String name, ElementReader<T> element) {
        JsonNode array = data.required(name);
        String where = data.where(name);
        if (!array.isArray()) {
            throw FieldReader.wrongType(array, where, "an array");
        }
        List<T> out = new ArrayList<>(array.size());
        for (int i = 0; i < array.size(); i++) {
            out.add(element.read(array.get(i), where + "[" + i + "]"));
        }
        return out;
    }
}
