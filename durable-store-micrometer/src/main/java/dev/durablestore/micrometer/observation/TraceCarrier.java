package dev.durablestore.micrometer.observation;

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

    private TraceCarrier() {}

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

    /**
     * The ids of the span a row was staged in, read from its {@code traceparent} (W3C), else its
     * {@code b3} (single header), else its {@code X-B3-TraceId} and {@code X-B3-SpanId}: what a
     * span link to it needs. These are the only forms {@link #encode} keeps. A 64-bit B3 trace id is
     * widened to 128 bits with leading zeros, as OpenTelemetry's B3 propagator does.
     *
     * @param text a row's trace context, or {@code null}
     * @return the ids, or {@code null} when there are none or they are malformed (ids of the wrong
     *     length, not lowercase hex, all zeros, W3C version {@code ff})
     */
    static Ids ids(String text) {
        if (text == null) {
            return null;
        }
        Map<String, String> fields = decode(text);
        String traceparent = field(fields, "traceparent");
        if (traceparent != null) {
            return traceparent(traceparent);
        }
        String b3 = field(fields, "b3");
        if (b3 != null) {
            return b3(b3);
        }
        String traceId = field(fields, "x-b3-traceid");
        String spanId = field(fields, "x-b3-spanid");
        if (traceId == null || spanId == null) {
            return null;
        }
        String sampled = field(fields, "x-b3-sampled");
        String flags = field(fields, "x-b3-flags");
        Boolean decision = "1".equals(flags)
                ? Boolean.TRUE
                : sampled == null
                        ? null
                        : sampled.equals("1") || sampled.equalsIgnoreCase("true")
                                ? Boolean.TRUE
                                : sampled.equals("0") || sampled.equalsIgnoreCase("false") ? Boolean.FALSE : null;
        return of(traceId, spanId, decision);
    }

    /** The ids of a span: a 32-digit trace id and a 16-digit span id in lowercase hex, and its sampling. */
    record Ids(String traceId, String spanId, Boolean sampled) {}

    /** {@code version-traceid-spanid-flags}, longer only for versions after {@code 00} */
    private static Ids traceparent(String value) {
        String v = value.trim();
        if (v.length() < 55
                || v.charAt(2) != '-'
                || v.charAt(35) != '-'
                || v.charAt(52) != '-'
                || (v.length() > 55 && (v.startsWith("00") || v.charAt(55) != '-'))) {
            return null;
        }
        String version = v.substring(0, 2);
        String flags = v.substring(53, 55);
        if (!hex(version, 2) || version.equals("ff") || !hex(flags, 2)) {
            return null;
        }
        return of(v.substring(3, 35), v.substring(36, 52), (Integer.parseInt(flags, 16) & 1) == 1);
    }

    /** {@code traceid-spanid[-sampling[-parentspanid]]}; a lone sampling decision has no ids */
    private static Ids b3(String value) {
        String[] parts = value.trim().split("-", -1);
        if (parts.length < 2 || parts.length > 4) {
            return null;
        }
        Boolean sampled = null;
        if (parts.length > 2) {
            switch (parts[2]) {
                case "1", "d" -> sampled = Boolean.TRUE;
                case "0" -> sampled = Boolean.FALSE;
                default -> {
                    return null;
                }
            }
        }
        return of(parts[0], parts[1], sampled);
    }

    private static Ids of(String traceId, String spanId, Boolean sampled) {
        String trace = traceId.length() == 16 ? "0000000000000000" + traceId : traceId;
        if (!hex(trace, 32) || !hex(spanId, 16) || zeros(trace) || zeros(spanId)) {
            return null;
        }
        return new Ids(trace, spanId, sampled);
    }

    private static String field(Map<String, String> fields, String name) {
        for (Map.Entry<String, String> field : fields.entrySet()) {
            if (field.getKey().equalsIgnoreCase(name)) {
                return field.getValue();
            }
        }
        return null;
    }

    private static boolean hex(String s, int length) {
        if (s.length() != length) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            char c = s.charAt(i);
            if ((c < '0' || c > '9') && (c < 'a' || c > 'f')) {
                return false;
            }
        }
        return true;
    }

    private static boolean zeros(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) != '0') {
                return false;
            }
        }
        return true;
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
