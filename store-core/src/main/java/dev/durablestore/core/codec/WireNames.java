package dev.durablestore.core.codec;

import com.fasterxml.jackson.core.io.SerializedString;
import dev.durablestore.api.event.EventKind;
import java.util.HashMap;
import java.util.Map;

/**
 * The JSON member names and tags of the wire format, pre-encoded for the streaming generator and
 * shared by the reader. (The reader's {@code switch} labels for variant tags such as {@code Named} or
 * {@code Cron} must be literals; the round-trip tests of every kind keep them in step.)
 */
final class WireNames {

    // Event frame and envelope.
    static final SerializedString TYPE = new SerializedString("type");
    static final SerializedString DATA = new SerializedString("data");
    static final SerializedString ENVELOPE = new SerializedString("envelope");
    static final SerializedString SEQ = new SerializedString("seq");
    static final SerializedString RECORDED_AT = new SerializedString("recorded_at");
    static final SerializedString WORKFLOW_ID = new SerializedString("workflow_id");

    // Event fields.
    static final SerializedString WORKFLOW_TYPE = new SerializedString("workflow_type");
    static final SerializedString INPUT = new SerializedString("input");
    static final SerializedString RUN_ID = new SerializedString("run_id");
    static final SerializedString PARENT_RUN_ID = new SerializedString("parent_run_id");
    static final SerializedString PACKAGE_VERSION = new SerializedString("package_version");
    static final SerializedString RESULT = new SerializedString("result");
    static final SerializedString ERROR = new SerializedString("error");
    static final SerializedString REASON = new SerializedString("reason");
    static final SerializedString TIMEOUT = new SerializedString("timeout");
    static final SerializedString REOPENED = new SerializedString("reopened");
    static final SerializedString OPERATOR = new SerializedString("operator");
    static final SerializedString ATTRIBUTES = new SerializedString("attributes");
    static final SerializedString ACTIVITY_ID = new SerializedString("activity_id");
    static final SerializedString ACTIVITY_TYPE = new SerializedString("activity_type");
    static final SerializedString TASK_QUEUE = new SerializedString("task_queue");
    static final SerializedString NODE = new SerializedString("node");
    static final SerializedString ATTEMPT = new SerializedString("attempt");
    static final SerializedString TIMER_ID = new SerializedString("timer_id");
    static final SerializedString FIRE_AT = new SerializedString("fire_at");
    static final SerializedString CAUSE = new SerializedString("cause");
    static final SerializedString OUTCOME = new SerializedString("outcome");
    static final SerializedString NAME = new SerializedString("name");
    static final SerializedString PAYLOAD = new SerializedString("payload");
    static final SerializedString TARGET_WORKFLOW_ID = new SerializedString("target_workflow_id");
    static final SerializedString CHILD_WORKFLOW_ID = new SerializedString("child_workflow_id");
    static final SerializedString SCHEDULE_ID = new SerializedString("schedule_id");
    static final SerializedString CONFIG = new SerializedString("config");

    // Errors.
    static final SerializedString MESSAGE = new SerializedString("message");
    static final SerializedString DETAILS = new SerializedString("details");
    static final SerializedString KIND = new SerializedString("kind");

    // Payload.
    static final SerializedString CONTENT_TYPE = new SerializedString("content_type");
    static final SerializedString BYTES = new SerializedString("bytes");
    static final SerializedString JSON_CONTENT = new SerializedString("Json");

    // Schedule configuration.
    static final SerializedString TRIGGER = new SerializedString("trigger");
    static final SerializedString OVERLAP_POLICY = new SerializedString("overlap_policy");
    static final SerializedString CATCH_UP_POLICY = new SerializedString("catch_up_policy");
    static final SerializedString SEARCH_ATTRIBUTES = new SerializedString("search_attributes");
    static final SerializedString CRON = new SerializedString("Cron");
    static final SerializedString EXPRESSION = new SerializedString("expression");
    static final SerializedString INTERVAL = new SerializedString("Interval");
    static final SerializedString PERIOD = new SerializedString("period");
    static final SerializedString SECS = new SerializedString("secs");
    static final SerializedString NANOS = new SerializedString("nanos");

    // Timer id variants.
    static final SerializedString NAMED = new SerializedString("Named");
    static final SerializedString ANONYMOUS = new SerializedString("Anonymous");

    // Search attribute value tags.
    static final SerializedString STRING = new SerializedString("String");
    static final SerializedString INT = new SerializedString("Int");
    static final SerializedString FLOAT = new SerializedString("Float");
    static final SerializedString BOOL = new SerializedString("Bool");
    static final SerializedString DATETIME = new SerializedString("Datetime");
    static final SerializedString KEYWORD_LIST = new SerializedString("KeywordList");

    private static final SerializedString[] KIND_NAMES;
    private static final Map<String, EventKind> KINDS_BY_NAME;

    static {
        EventKind[] kinds = EventKind.values();
        KIND_NAMES = new SerializedString[kinds.length];
        KINDS_BY_NAME = new HashMap<>(kinds.length * 2);
        for (EventKind kind : kinds) {
            KIND_NAMES[kind.ordinal()] = new SerializedString(kind.typeName());
            KINDS_BY_NAME.put(kind.typeName(), kind);
        }
    }

    private WireNames() {}

    /** @return the pre-encoded {@code type} tag of {@code kind} */
    static SerializedString typeName(EventKind kind) {
        return KIND_NAMES[kind.ordinal()];
    }

    /** @return the kind whose {@code type} tag is {@code name}, or {@code null} */
    static EventKind kind(String name) {
        return KINDS_BY_NAME.get(name);
    }
}
