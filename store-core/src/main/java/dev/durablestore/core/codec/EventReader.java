package dev.durablestore.core.codec;

import static dev.durablestore.core.codec.WireNames.*;

import com.fasterxml.jackson.core.io.SerializedString;
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
        String type = frame.text(TYPE);
        EventKind kind = WireNames.kind(type);
        if (kind == null) {
            throw new SerializationException(frame.where(TYPE) + ": unknown event type '" + type + "'");
        }
        FieldReader data = frame.object(DATA);
        FieldReader env = data.object(ENVELOPE);
        EventEnvelope envelope =
                new EventEnvelope(env.unsigned(SEQ), env.instant(RECORDED_AT), new WorkflowId(env.uuid(WORKFLOW_ID)));
        try {
            return readFields(kind, envelope, data);
        } catch (RuntimeException e) {
            throw new SerializationException(
                    type + " seq " + envelope.seq() + " of workflow " + envelope.workflowId() + ": " + e.getMessage(),
                    e);
        }
    }

    private static Event readFields(EventKind kind, EventEnvelope envelope, FieldReader data) {
        return switch (kind) {
            case WORKFLOW_STARTED ->
                new WorkflowStarted(
                        envelope,
                        data.text(WORKFLOW_TYPE),
                        payload(data, INPUT),
                        new RunId(data.uuid(RUN_ID)),
                        optionalRunId(data, PARENT_RUN_ID),
                        new PackageVersion(data.text(PACKAGE_VERSION)));
            case WORKFLOW_COMPLETED -> new WorkflowCompleted(envelope, payload(data, RESULT));
            case WORKFLOW_FAILED -> new WorkflowFailed(envelope, workflowError(data.object(ERROR)));
            case WORKFLOW_CANCELLED -> new WorkflowCancelled(envelope, data.text(REASON));
            case WORKFLOW_TIMED_OUT -> new WorkflowTimedOut(envelope, data.text(TIMEOUT));
            case WORKFLOW_CONTINUED_AS_NEW ->
                new WorkflowContinuedAsNew(
                        envelope,
                        payload(data, INPUT),
                        data.optionalText(WORKFLOW_TYPE),
                        new RunId(data.uuid(PARENT_RUN_ID)));
            case WORKFLOW_REOPENED ->
                new WorkflowReopened(
                        envelope,
                        new RunId(data.uuid(RUN_ID)),
                        list(data, REOPENED, (v, w) -> new ActivityId(FieldReader.unsigned(v, w))));
            case WORKFLOW_PAUSED ->
                new WorkflowPaused(
                        envelope, new RunId(data.uuid(RUN_ID)), data.optionalText(REASON), data.optionalText(OPERATOR));
            case WORKFLOW_RESUMED ->
                new WorkflowResumed(envelope, new RunId(data.uuid(RUN_ID)), data.optionalText(OPERATOR));
            case SEARCH_ATTRIBUTES_UPDATED ->
                new SearchAttributesUpdated(
                        envelope, new WorkflowId(data.uuid(WORKFLOW_ID)), searchAttributes(data.object(ATTRIBUTES)));
            case ACTIVITY_SCHEDULED ->
                new ActivityScheduled(
                        envelope,
                        activityId(data),
                        data.text(ACTIVITY_TYPE),
                        payload(data, INPUT),
                        data.optional(TASK_QUEUE) == null ? DEFAULT_TASK_QUEUE : data.text(TASK_QUEUE),
                        data.optionalText(NODE));
            case ACTIVITY_STARTED ->
                new ActivityStarted(envelope, activityId(data), data.count(ATTEMPT, LEGACY_ATTEMPT));
            case ACTIVITY_COMPLETED ->
                new ActivityCompleted(
                        envelope, activityId(data), payload(data, RESULT), data.count(ATTEMPT, LEGACY_ATTEMPT));
            case ACTIVITY_FAILED ->
                new ActivityFailed(
                        envelope, activityId(data), activityError(data.object(ERROR)), data.count(ATTEMPT, null));
            case ACTIVITY_CANCELLED ->
                new ActivityCancelled(envelope, activityId(data), data.count(ATTEMPT, LEGACY_ATTEMPT));
            case TIMER_STARTED -> new TimerStarted(envelope, timerId(data), data.instant(FIRE_AT));
            case TIMER_FIRED -> new TimerFired(envelope, timerId(data));
            case TIMER_CANCELLED ->
                new TimerCancelled(
                        envelope,
                        timerId(data),
                        data.optional(CAUSE) == null
                                ? TimerCancelCause.WORKFLOW_INTENT
                                : token(data, CAUSE, WireTokens::timerCancelCause));
            case WITH_TIMEOUT_COMPLETED ->
                new WithTimeoutCompleted(
                        envelope,
                        timerId(data),
                        token(data, OUTCOME, WireTokens::withTimeoutOutcome),
                        data.optional(RESULT) == null ? null : payload(data, RESULT));
            case SIGNAL_RECEIVED -> new SignalReceived(envelope, data.text(NAME), payload(data, PAYLOAD));
            case SIGNAL_SENT ->
                new SignalSent(
                        envelope,
                        new WorkflowId(data.uuid(TARGET_WORKFLOW_ID)),
                        data.text(NAME),
                        payload(data, PAYLOAD));
            case CHILD_WORKFLOW_STARTED ->
                new ChildWorkflowStarted(
                        envelope,
                        childId(data),
                        data.text(WORKFLOW_TYPE),
                        payload(data, INPUT),
                        new PackageVersion(data.text(PACKAGE_VERSION)));
            case CHILD_WORKFLOW_COMPLETED -> new ChildWorkflowCompleted(envelope, childId(data), payload(data, RESULT));
            case CHILD_WORKFLOW_FAILED ->
                new ChildWorkflowFailed(envelope, childId(data), workflowError(data.object(ERROR)));
            case CHILD_WORKFLOW_CANCELLED -> new ChildWorkflowCancelled(envelope, childId(data));
            case SCHEDULE_CREATED ->
                new ScheduleCreated(envelope, scheduleId(data), scheduleConfig(data.object(CONFIG)));
            case SCHEDULE_UPDATED ->
                new ScheduleUpdated(envelope, scheduleId(data), scheduleConfig(data.object(CONFIG)));
            case SCHEDULE_PAUSED -> new SchedulePaused(envelope, scheduleId(data));
            case SCHEDULE_RESUMED -> new ScheduleResumed(envelope, scheduleId(data));
            case SCHEDULE_DELETED -> new ScheduleDeleted(envelope, scheduleId(data));
            case SCHEDULE_TRIGGERED ->
                new ScheduleTriggered(
                        envelope,
                        scheduleId(data),
                        new WorkflowId(data.uuid(WORKFLOW_ID)),
                        new RunId(data.uuid(RUN_ID)));
        };
    }

    /**
     * Reads a payload object. {@code bytes} is base64 text (as written) or an array of numbers
     * 0..255 (upstream's form).
     */
    static Payload readPayload(JsonNode value, String where) {
        FieldReader p = FieldReader.of(value, where);
        String contentType = p.text(CONTENT_TYPE);
        if (!contentType.equals(WireNames.JSON_CONTENT.getValue())) {
            throw new SerializationException(p.where(CONTENT_TYPE) + ": unknown content type '" + contentType + "'");
        }
        JsonNode bytes = p.required(BYTES);
        String at = p.where(BYTES);
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

    private static Payload payload(FieldReader data, SerializedString name) {
        return readPayload(data.required(name), data.where(name));
    }

    private static RunId optionalRunId(FieldReader data, SerializedString name) {
        UUID id = data.optionalUuid(name);
        return id == null ? null : new RunId(id);
    }

    private static ActivityId activityId(FieldReader data) {
        return new ActivityId(data.unsigned(ACTIVITY_ID));
    }

    private static WorkflowId childId(FieldReader data) {
        return new WorkflowId(data.uuid(CHILD_WORKFLOW_ID));
    }

    private static ScheduleId scheduleId(FieldReader data) {
        return new ScheduleId(data.uuid(SCHEDULE_ID));
    }

    private static <T> T token(FieldReader data, SerializedString name, Function<String, T> decode) {
        String text = data.text(name);
        T value = decode.apply(text);
        if (value == null) {
            throw new SerializationException(data.where(name) + ": unknown value '" + text + "'");
        }
        return value;
    }

    private static WorkflowError workflowError(FieldReader error) {
        return new WorkflowError(error.text(MESSAGE), optionalPayload(error, DETAILS));
    }

    private static ActivityError activityError(FieldReader error) {
        return new ActivityError(
                token(error, KIND, WireTokens::activityErrorKind),
                error.text(MESSAGE),
                optionalPayload(error, DETAILS));
    }

    private static Payload optionalPayload(FieldReader data, SerializedString name) {
        JsonNode value = data.optional(name);
        return value == null ? null : readPayload(value, data.where(name));
    }

    /** {@code {"Named":"x"}}, {@code {"Anonymous":3}}, or the canonical text of either. */
    private static TimerId timerId(FieldReader data) {
        JsonNode value = data.required(TIMER_ID);
        String where = data.where(TIMER_ID);
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
            case "Named" -> {
                String name = FieldReader.text(variant.getValue(), at);
                if (name.isEmpty()) {
                    throw new SerializationException(at + ": a timer name must not be empty (M5)");
                }
                yield TimerId.named(name);
            }
            case "Anonymous" -> TimerId.anonymous(FieldReader.unsigned(variant.getValue(), at));
            default ->
                throw new SerializationException(where + ": unknown timer id variant '" + variant.getKey() + "'");
        };
    }

    private static ScheduleConfig scheduleConfig(FieldReader config) {
        JsonNode overlap = config.optional(OVERLAP_POLICY);
        JsonNode catchUp = config.optional(CATCH_UP_POLICY);
        JsonNode attributes = config.optional(SEARCH_ATTRIBUTES);
        return new ScheduleConfig(
                trigger(config),
                overlap == null ? OverlapPolicy.SKIP : token(config, OVERLAP_POLICY, WireTokens::overlapPolicy),
                catchUp == null ? CatchUpPolicy.ONE : token(config, CATCH_UP_POLICY, WireTokens::catchUpPolicy),
                config.text(WORKFLOW_TYPE),
                payload(config, INPUT),
                attributes == null
                        ? Map.of()
                        : searchAttributes(FieldReader.of(attributes, config.where(SEARCH_ATTRIBUTES))));
    }

    /** {@code {"Cron":{"expression":"…"}}} or {@code {"Interval":{"period":{"secs":N,"nanos":N}}}}. */
    private static ScheduleTrigger trigger(FieldReader config) {
        String where = config.where(TRIGGER);
        Map.Entry<String, JsonNode> variant = singleMember(config.required(TRIGGER), where);
        FieldReader body = FieldReader.of(variant.getValue(), where + "." + variant.getKey());
        switch (variant.getKey()) {
            case "Cron":
                return new ScheduleTrigger.Cron(body.text(EXPRESSION));
            case "Interval":
                FieldReader period = body.object(PERIOD);
                long nanos = period.unsigned(NANOS);
                if (nanos > 999_999_999L) {
                    throw new SerializationException(period.where(NANOS) + ": " + nanos + " exceeds 999999999");
                }
                return new ScheduleTrigger.Interval(Duration.ofSeconds(period.unsigned(SECS), nanos));
            default:
                throw new SerializationException(where + ": unknown trigger variant '" + variant.getKey() + "'");
        }
    }

    private static Map<String, SearchAttributeValue> searchAttributes(FieldReader map) {
        Map<String, SearchAttributeValue> out = new HashMap<>();
        for (Map.Entry<String, JsonNode> field : map.node().properties()) {
            out.put(field.getKey(), searchAttributeValue(field.getValue(), map.whereKey(field.getKey())));
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
        String type = TYPE.getValue();
        String data = DATA.getValue();
        if (value.isObject() && value.size() == 2 && value.has(type) && value.has(data)) {
            tag = FieldReader.text(value.get(type), where + "." + type);
            content = value.get(data);
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
            String found = value == null
                    ? "nothing"
                    : value.isObject()
                            ? "an object with " + value.size() + " members"
                            : value.getNodeType().toString().toLowerCase(java.util.Locale.ROOT);
            throw new SerializationException(where + ": expected an object with exactly one member, found " + found);
        }
        return value.properties().iterator().next();
    }

    private interface ElementReader<T> {
        T read(JsonNode value, String where);
    }

    private static <T> List<T> list(FieldReader data, SerializedString name, ElementReader<T> element) {
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
