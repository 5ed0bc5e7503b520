package dev.durablestore.api.observation;

import dev.durablestore.api.OutboxRow;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The text form of a row's trace context (O59): the propagation fields a tracer injected when the
 * row was staged, one {@code name=value} per line, names in the order they were injected. Only
 * trace propagation fields are kept (W3C {@code traceparent} and {@code tracestate}, B3's
 * {@code b3} and {@code X-B3-*}): baggage and other remote fields may carry personal or
 * caller-controlled data and are not stored. A field whose name or value holds a line break, or
 * whose name holds {@code =}, cannot be stored and is left out; so is everything past
 * {@link OutboxRow#MAX_TRACE_CONTEXT} characters.
 */
final class TraceCarrier {

    private TraceCarrier() {
    }

    /**
     * @param fields the injected fields
     * @return their text form, or {@code null} when there is none
     */
    static String encode(Map<String, String> fields) {
        StringBuilder text = new StringBuilder();
        for (Map.Entry<String, String> field : fields.entrySet()) {
            String name = field.getKey();
            String value = field.getValue();
            if (name == null || value == null || !traceField(name) || breaks(value)) {
                continue;
            }
            int length = text.length() + (text.length() == 0 ? 0 : 1) + name.length() + 1 + value.length();
            if (length > OutboxRow.MAX_TRACE_CONTEXT) {
                continue;
            }
            if (text.length() > 0) {
                text.append('\n');
            }
            text.append(name).append('=').append(value);
        }
        return text.length() == 0 ? null : text.toString();
    }

    /**
     * @param text a row's trace context, or {@code null}
     * @return its fields; empty for {@code null} or text that is not in the form {@link #encode} writes
     */
    static Map<String, String> decode(String text) {
        Map<String, String> fields = new LinkedHashMap<>();
        if (text == null) {
            return fields;
        }
        for (String line : text.split("\n", -1)) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                fields.putIfAbsent(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        return fields;
    }

    /** @return true for a field of the trace context itself (not baggage) */
    static boolean traceField(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        return n.equals("traceparent") || n.equals("tracestate") || n.equals("b3") || n.startsWith("x-b3-");
    }

    private static boolean breaks(String s) {
        return s.indexOf('\n') >= 0 || s.indexOf('\r') >= 0;
    }
}
