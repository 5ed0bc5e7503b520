package dev.durablestore.core.codec;

import static dev.durablestore.core.codec.WireNames.*;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.io.SerializedString;
import dev.durablestore.api.ActivityId;
import dev.durablestore.api.Payload;
import dev.durablestore.api.TimerId;
import dev.durablestore.api.event.ActivityCancelled;
import dev.durablestore.api.event.ActivityCompleted;
import dev.durablestore.api.event.ActivityError;
import dev.durablestore.api.event.ActivityFailed;
import dev.durablestore.api.event.ActivityScheduled;
import dev.durablestore.api.event.ActivityStarted;
import dev.durablestore.api.event.ChildWorkflowCancelled;
import dev.durablestore.api.event.ChildWorkflowCompleted;
import dev.durablestore.api.event.ChildWorkflowFailed;
import dev.durablestore.api.event.ChildWorkflowStarted;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.event.EventEnvelope;
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
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.UUID;

/** Writes events and payloads with a streaming {@link JsonGenerator}; see {@link EventCodec}. */
final class EventWriter {

    private EventWriter() {}

    static void writeEvent(JsonGenerator g, Event event) throws IOException {
        g.writeStartObject();
        g.writeFieldName(TYPE);
        g.writeString(typeName(event.kind()));
        g.writeFieldName(DATA);
        g.writeStartObject();
        writeEnvelope(g, event.envelope());
        writeFields(g, event);
        g.writeEndObject();
        g.writeEndObject();
    }

    private static void writeEnvelope(JsonGenerator g, EventEnvelope envelope) throws IOException {
        g.writeFieldName(ENVELOPE);
        g.writeStartObject();
        g.writeFieldName(SEQ);
        g.writeNumber(envelope.seq());
        instant(g, RECORDED_AT, envelope.recordedAt());
        uuid(g, WORKFLOW_ID, envelope.workflowId().value());
        g.writeEndObject();
    }

    private static void writeFields(JsonGenerator g, Event event) throws IOException {
        switch (event.kind()) {
            case WORKFLOW_STARTED -> {
                WorkflowStarted e = (WorkflowStarted) event;
                text(g, WORKFLOW_TYPE, e.workflowType());
                payload(g, INPUT, e.input());
                uuid(g, RUN_ID, e.runId().value());
                if (e.parentRunId() != null) {
                    uuid(g, PARENT_RUN_ID, e.parentRunId().value());
                }
                text(g, PACKAGE_VERSION, e.packageVersion().value());
            }
            case WORKFLOW_COMPLETED -> payload(g, RESULT, ((WorkflowCompleted) event).result());
            case WORKFLOW_FAILED -> workflowError(g, ((WorkflowFailed) event).error());
            case WORKFLOW_CANCELLED -> text(g, REASON, ((WorkflowCancelled) event).reason());
            case WORKFLOW_TIMED_OUT -> text(g, TIMEOUT, ((WorkflowTimedOut) event).timeout());
            case WORKFLOW_CONTINUED_AS_NEW -> {
                WorkflowContinuedAsNew e = (WorkflowContinuedAsNew) event;
                payload(g, INPUT, e.input());
                optText(g, WORKFLOW_TYPE, e.workflowType());
                uuid(g, PARENT_RUN_ID, e.parentRunId().value());
            }
            case WORKFLOW_REOPENED -> {
                WorkflowReopened e = (WorkflowReopened) event;
                uuid(g, RUN_ID, e.runId().value());
                g.writeFieldName(REOPENED);
                g.writeStartArray();
                for (ActivityId id : e.reopened()) {
                    g.writeNumber(id.position());
                }
                g.writeEndArray();
            }
            case WORKFLOW_PAUSED -> {
                WorkflowPaused e = (WorkflowPaused) event;
                uuid(g, RUN_ID, e.runId().value());
                optText(g, REASON, e.reason());
                optText(g, OPERATOR, e.operator());
            }
            case WORKFLOW_RESUMED -> {
                WorkflowResumed e = (WorkflowResumed) event;
                uuid(g, RUN_ID, e.runId().value());
                optText(g, OPERATOR, e.operator());
            }
            case SEARCH_ATTRIBUTES_UPDATED -> {
                SearchAttributesUpdated e = (SearchAttributesUpdated) event;
                uuid(g, WORKFLOW_ID, e.attributesWorkflowId().value());
                searchAttributes(g, ATTRIBUTES, e.attributes());
            }
            case ACTIVITY_SCHEDULED -> {
                ActivityScheduled e = (ActivityScheduled) event;
                activityId(g, e.activityId());
                text(g, ACTIVITY_TYPE, e.activityType());
                payload(g, INPUT, e.input());
                text(g, TASK_QUEUE, e.taskQueue());
                optText(g, NODE, e.node());
            }
            case ACTIVITY_STARTED -> {
                ActivityStarted e = (ActivityStarted) event;
                activityId(g, e.activityId());
                attempt(g, e.attempt());
            }
            case ACTIVITY_COMPLETED -> {
                ActivityCompleted e = (ActivityCompleted) event;
                activityId(g, e.activityId());
                payload(g, RESULT, e.result());
                attempt(g, e.attempt());
            }
            case ACTIVITY_FAILED -> {
                ActivityFailed e = (ActivityFailed) event;
                activityId(g, e.activityId());
                activityError(g, e.error());
                attempt(g, e.attempt());
            }
            case ACTIVITY_CANCELLED -> {
                ActivityCancelled e = (ActivityCancelled) event;
                activityId(g, e.activityId());
                attempt(g, e.attempt());
            }
            case TIMER_STARTED -> {
                TimerStarted e = (TimerStarted) event;
                timerId(g, e.timerId());
                instant(g, FIRE_AT, e.fireAt());
            }
            case TIMER_FIRED -> timerId(g, ((TimerFired) event).timerId());
            case TIMER_CANCELLED -> {
                TimerCancelled e = (TimerCancelled) event;
                timerId(g, e.timerId());
                g.writeFieldName(CAUSE);
                g.writeString(WireTokens.of(e.cause()));
            }
            case WITH_TIMEOUT_COMPLETED -> {
                WithTimeoutCompleted e = (WithTimeoutCompleted) event;
                timerId(g, e.timerId());
                g.writeFieldName(OUTCOME);
                g.writeString(WireTokens.of(e.outcome()));
                if (e.result() != null) {
                    payload(g, RESULT, e.result());
                }
            }
            case SIGNAL_RECEIVED -> {
                SignalReceived e = (SignalReceived) event;
                text(g, NAME, e.name());
                payload(g, PAYLOAD, e.payload());
            }
            case SIGNAL_SENT -> {
                SignalSent e = (SignalSent) event;
                uuid(g, TARGET_WORKFLOW_ID, e.targetWorkflowId().value());
                text(g, NAME, e.name());
                payload(g, PAYLOAD, e.payload());
            }
            case CHILD_WORKFLOW_STARTED -> {
                ChildWorkflowStarted e = (ChildWorkflowStarted) event;
                uuid(g, CHILD_WORKFLOW_ID, e.childWorkflowId().value());
                text(g, WORKFLOW_TYPE, e.workflowType());
                payload(g, INPUT, e.input());
                text(g, PACKAGE_VERSION, e.packageVersion().value());
            }
            case CHILD_WORKFLOW_COMPLETED -> {
                ChildWorkflowCompleted e = (ChildWorkflowCompleted) event;
                uuid(g, CHILD_WORKFLOW_ID, e.childWorkflowId().value());
                payload(g, RESULT, e.result());
            }
            case CHILD_WORKFLOW_FAILED -> {
                ChildWorkflowFailed e = (ChildWorkflowFailed) event;
                uuid(g, CHILD_WORKFLOW_ID, e.childWorkflowId().value());
                workflowError(g, e.error());
            }
            case CHILD_WORKFLOW_CANCELLED ->
                uuid(
                        g,
                        CHILD_WORKFLOW_ID,
                        ((ChildWorkflowCancelled) event).childWorkflowId().value());
            case SCHEDULE_CREATED -> {
                ScheduleCreated e = (ScheduleCreated) event;
                uuid(g, SCHEDULE_ID, e.scheduleId().value());
                scheduleConfig(g, e.config());
            }
            case SCHEDULE_UPDATED -> {
                ScheduleUpdated e = (ScheduleUpdated) event;
                uuid(g, SCHEDULE_ID, e.scheduleId().value());
                scheduleConfig(g, e.config());
            }
            case SCHEDULE_PAUSED ->
                uuid(g, SCHEDULE_ID, ((SchedulePaused) event).scheduleId().value());
            case SCHEDULE_RESUMED ->
                uuid(g, SCHEDULE_ID, ((ScheduleResumed) event).scheduleId().value());
            case SCHEDULE_DELETED ->
                uuid(g, SCHEDULE_ID, ((ScheduleDeleted) event).scheduleId().value());
            case SCHEDULE_TRIGGERED -> {
                ScheduleTriggered e = (ScheduleTriggered) event;
                uuid(g, SCHEDULE_ID, e.scheduleId().value());
                uuid(g, WORKFLOW_ID, e.startedWorkflowId().value());
                uuid(g, RUN_ID, e.runId().value());
            }
            default -> throw new IllegalStateException("unhandled event kind " + event.kind());
        }
    }

    /** Writes a payload object as a top-level value or after a field name. */
    static void writePayload(JsonGenerator g, Payload payload) throws IOException {
        g.writeStartObject();
        g.writeFieldName(CONTENT_TYPE);
        g.writeString(JSON_CONTENT);
        g.writeFieldName(BYTES);
        g.writeBinary(payload.bytes());
        g.writeEndObject();
    }

    private static void payload(JsonGenerator g, SerializedString name, Payload payload) throws IOException {
        g.writeFieldName(name);
        writePayload(g, payload);
    }

    private static void text(JsonGenerator g, SerializedString name, String value) throws IOException {
        g.writeFieldName(name);
        g.writeString(value);
    }

    private static void optText(JsonGenerator g, SerializedString name, String value) throws IOException {
        if (value != null) {
            text(g, name, value);
        }
    }

    private static void uuid(JsonGenerator g, SerializedString name, UUID value) throws IOException {
        g.writeFieldName(name);
        g.writeString(value.toString());
    }

    private static void instant(JsonGenerator g, SerializedString name, Instant value) throws IOException {
        g.writeFieldName(name);
        g.writeString(Rfc3339.format(value), 0, Rfc3339.LENGTH);
    }

    private static void activityId(JsonGenerator g, ActivityId id) throws IOException {
        g.writeFieldName(ACTIVITY_ID);
        g.writeNumber(id.position());
    }

    private static void attempt(JsonGenerator g, int attempt) throws IOException {
        g.writeFieldName(ATTEMPT);
        g.writeNumber(attempt);
    }

    private static void timerId(JsonGenerator g, TimerId id) throws IOException {
        g.writeFieldName(TIMER_ID);
        g.writeStartObject();
        if (id instanceof TimerId.Named named) {
            g.writeFieldName(NAMED);
            g.writeString(named.name());
        } else {
            g.writeFieldName(ANONYMOUS);
            g.writeNumber(((TimerId.Anonymous) id).position());
        }
        g.writeEndObject();
    }

    private static void workflowError(JsonGenerator g, WorkflowError error) throws IOException {
        g.writeFieldName(ERROR);
        g.writeStartObject();
        text(g, MESSAGE, error.message());
        if (error.details() != null) {
            payload(g, DETAILS, error.details());
        }
        g.writeEndObject();
    }

    private static void activityError(JsonGenerator g, ActivityError error) throws IOException {
        g.writeFieldName(ERROR);
        g.writeStartObject();
        g.writeFieldName(KIND);
        g.writeString(WireTokens.of(error.kind()));
        text(g, MESSAGE, error.message());
        if (error.details() != null) {
            payload(g, DETAILS, error.details());
        }
        g.writeEndObject();
    }

    private static void scheduleConfig(JsonGenerator g, ScheduleConfig config) throws IOException {
        g.writeFieldName(CONFIG);
        g.writeStartObject();
        g.writeFieldName(TRIGGER);
        g.writeStartObject();
        if (config.trigger() instanceof ScheduleTrigger.Cron cron) {
            g.writeFieldName(CRON);
            g.writeStartObject();
            text(g, EXPRESSION, cron.expression());
        } else {
            Duration period = ((ScheduleTrigger.Interval) config.trigger()).period();
            g.writeFieldName(INTERVAL);
            g.writeStartObject();
            g.writeFieldName(PERIOD);
            g.writeStartObject();
            g.writeFieldName(SECS);
            g.writeNumber(period.getSeconds());
            g.writeFieldName(NANOS);
            g.writeNumber(period.getNano());
            g.writeEndObject();
        }
        g.writeEndObject();
        g.writeEndObject();
        g.writeFieldName(OVERLAP_POLICY);
        g.writeString(WireTokens.of(config.overlapPolicy()));
        g.writeFieldName(CATCH_UP_POLICY);
        g.writeString(WireTokens.of(config.catchUpPolicy()));
        text(g, WORKFLOW_TYPE, config.workflowType());
        payload(g, INPUT, config.input());
        searchAttributes(g, SEARCH_ATTRIBUTES, config.searchAttributes());
        g.writeEndObject();
    }

    /** Writes the map with its keys sorted, so equal maps always encode to identical bytes. */
    private static void searchAttributes(
            JsonGenerator g, SerializedString name, Map<String, SearchAttributeValue> attributes) throws IOException {
        g.writeFieldName(name);
        g.writeStartObject();
        if (attributes.size() == 1) {
            Map.Entry<String, SearchAttributeValue> only =
                    attributes.entrySet().iterator().next();
            g.writeFieldName(only.getKey());
            searchAttributeValue(g, only.getValue());
        } else if (!attributes.isEmpty()) {
            String[] keys = attributes.keySet().toArray(new String[0]);
            Arrays.sort(keys);
            for (String key : keys) {
                g.writeFieldName(key);
                searchAttributeValue(g, attributes.get(key));
            }
        }
        g.writeEndObject();
    }

    private static void searchAttributeValue(JsonGenerator g, SearchAttributeValue value) throws IOException {
        g.writeStartObject();
        if (value instanceof SearchAttributeValue.StringValue v) {
            g.writeFieldName(STRING);
            g.writeString(v.value());
        } else if (value instanceof SearchAttributeValue.IntValue v) {
            g.writeFieldName(INT);
            g.writeNumber(v.value());
        } else if (value instanceof SearchAttributeValue.FloatValue v) {
            g.writeFieldName(FLOAT);
            double d = v.value();
            if (Double.isFinite(d)) {
                g.writeNumber(d);
            } else {
                // JSON has no literal for these; the reader accepts exactly these strings.
                g.writeString(Double.isNaN(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity");
            }
        } else if (value instanceof SearchAttributeValue.BoolValue v) {
            g.writeFieldName(BOOL);
            g.writeBoolean(v.value());
        } else if (value instanceof SearchAttributeValue.DatetimeValue v) {
            instant(g, DATETIME, v.value());
        } else {
            g.writeFieldName(KEYWORD_LIST);
            g.writeStartArray();
            for (String keyword : ((SearchAttributeValue.KeywordListValue) value).value()) {
                g.writeString(keyword);
            }
            g.writeEndArray();
        }
        g.writeEndObject();
    }
}
