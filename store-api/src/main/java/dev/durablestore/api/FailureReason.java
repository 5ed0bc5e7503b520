package dev.durablestore.api;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Objects;
import java.util.Set;

/**
 * Why an attempt of an outbox row failed: a message, optionally the failure's type and a trimmed
 * stack trace. A retry or a dead-letter carries one ({@link Settlement#withReason}), and the store
 * keeps it with the row, in the same transaction as the settle, as one of the row's
 * {@link OutboxRow#failures()} (O66).
 *
 * <pre>{@code
 * store.settle(row, Settlement.fail().withReason(FailureReason.of(error)));
 * store.settle(row, Settlement.retryAfter(row.attempt() + 1, backoff)
 *         .withReason(FailureReason.of("HTTP 503 from the payment service")));
 * }</pre>
 *
 * <p><b>Bounded.</b> A reason is a diagnostic, so it is cut to size rather than refused: the type
 * keeps at most {@value #MAX_TYPE_BYTES} bytes in UTF-8, the message at most
 * {@value #MAX_MESSAGE_BYTES}, and the trace what is left of {@value #MAX_BYTES} for the three
 * together. A text is cut at a character boundary and then ends in {@value #CUT}; a trace is cut
 * after its last whole line that fits and then ends in the line {@code \t... (cut)}.
 *
 * <p><b>Storable.</b> Like every text the store keeps (X10), a reason holds no NUL (U+0000) and no
 * unpaired UTF-16 surrogate: each becomes U+FFFD, the replacement character, when the reason is
 * built, so a reason always reads back exactly as built, on every backend.
 *
 * <p>Immutable; equal when type, message and trace are.
 */
public final class FailureReason {

    /** The most UTF-8 bytes of type, message and trace together. */
    public static final int MAX_BYTES = 4096;

    /** The most UTF-8 bytes of {@link #type()}. */
    public static final int MAX_TYPE_BYTES = 256;

    /** The most UTF-8 bytes of {@link #message()}. */
    public static final int MAX_MESSAGE_BYTES = 1024;

    /** The most stack frames {@link #of(Throwable)} keeps of the throwable and of each cause. */
    public static final int FRAMES_PER_THROWABLE = 10;

    /** What a cut type or message ends in. */
    public static final String CUT = "…";

    /** The last line of a cut trace. */
    private static final String CUT_LINE = "\t... (cut)";

    private final String type;
    private final String message;
    private final String trace;

    private FailureReason(String type, String message, String trace) {
        this.type = type;
        this.message = message;
        this.trace = trace;
    }

    /**
     * A reason without a type or trace.
     *
     * @param message what went wrong; may be empty
     * @return the reason, its message storable and bounded
     * @throws InvalidArgumentException naming {@code message} when it is {@code null}
     */
    public static FailureReason of(String message) {
        InvalidArgumentException.requireNonNull(message, "message");
        return bounded(null, message, null);
    }

    /**
     * The reason a {@link Throwable} gives: its class name as the type, its message ({@code ""} when
     * it has none), and a trimmed stack trace in the form {@link Throwable#printStackTrace()} uses,
     * without its first line (the type and message): at most {@value #FRAMES_PER_THROWABLE} frames
     * of the throwable and of each of its causes ({@code Caused by: …}), the frames a cause shares
     * with the trace it caused left out as {@code ... n more}, and the first line of each suppressed
     * exception ({@code Suppressed: …}, where Reactor puts its assembly traces); then cut to what is
     * left of {@value #MAX_BYTES} bytes.
     *
     * @param error the failure
     * @return the reason, bounded and storable
     * @throws InvalidArgumentException naming {@code error} when it is {@code null}
     */
    public static FailureReason of(Throwable error) {
        InvalidArgumentException.requireNonNull(error, "error");
        String message = error.getMessage();
        String trace = trace(error);
        return bounded(error.getClass().getName(), message == null ? "" : message, trace.isEmpty() ? null : trace);
    }

    /**
     * @param value the failure's type (an exception class, an error code), or {@code null} for none
     * @return a copy with the type set, bounded and storable; the trace cut again to what is left
     */
    public FailureReason withType(String value) {
        return bounded(value, message, trace);
    }

    /**
     * @param value a stack trace or other detail, lines separated by {@code \n}, or {@code null} for
     *     none
     * @return a copy with the trace set, bounded and storable
     */
    public FailureReason withTrace(String value) {
        return bounded(type, message, value);
    }

    /** @return the failure's type, such as an exception's class name, or {@code null} */
    public String type() {
        return type;
    }

    /** @return what went wrong; never {@code null}, possibly empty */
    public String message() {
        return message;
    }

    /** @return the trimmed stack trace or other detail, or {@code null} */
    public String trace() {
        return trace;
    }

    private static FailureReason bounded(String type, String message, String trace) {
        String t = type == null ? null : cut(storable(type), MAX_TYPE_BYTES);
        String m = cut(storable(message), MAX_MESSAGE_BYTES);
        String tr = null;
        if (trace != null) {
            int room = MAX_BYTES - utf8Length(t) - utf8Length(m);
            tr = cutLines(storable(trace), room);
        }
        return new FailureReason(t, m, tr);
    }

    /** @return the trimmed trace of {@link #of(Throwable)}, without a header line for {@code error} itself */
    private static String trace(Throwable error) {
        StringBuilder out = new StringBuilder();
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        seen.add(error);
        frames(out, error.getStackTrace(), new StackTraceElement[0]);
        for (Throwable s : error.getSuppressed()) {
            out.append("\tSuppressed: ").append(s).append('\n');
        }
        Throwable enclosing = error;
        for (Throwable cause = error.getCause(); cause != null && seen.add(cause); cause = cause.getCause()) {
            out.append("Caused by: ").append(cause).append('\n');
            frames(out, cause.getStackTrace(), enclosing.getStackTrace());
            enclosing = cause;
        }
        return out.toString();
    }

    /** The frames not shared with the enclosing trace, at most {@link #FRAMES_PER_THROWABLE}, then how many more. */
    private static void frames(StringBuilder out, StackTraceElement[] trace, StackTraceElement[] enclosing) {
        int m = trace.length - 1;
        int n = enclosing.length - 1;
        while (m >= 0 && n >= 0 && trace[m].equals(enclosing[n])) {
            m--;
            n--;
        }
        int own = m + 1;
        int shown = Math.min(own, FRAMES_PER_THROWABLE);
        for (int i = 0; i < shown; i++) {
            out.append("\tat ").append(trace[i]).append('\n');
        }
        if (shown < trace.length) {
            out.append("\t... ").append(trace.length - shown).append(" more\n");
        }
    }

    /** NUL and unpaired surrogates replaced by U+FFFD; line separators {@code \r\n} kept as they are. */
    private static String storable(String text) {
        StringBuilder out = null;
        int n = text.length();
        for (int i = 0; i < n; i++) {
            char ch = text.charAt(i);
            boolean pair = Character.isHighSurrogate(ch) && i + 1 < n && Character.isLowSurrogate(text.charAt(i + 1));
            boolean bad = ch == '\0' || (!pair && Character.isSurrogate(ch));
            if (bad && out == null) {
                out = new StringBuilder(n).append(text, 0, i);
            }
            if (out != null) {
                if (bad) {
                    out.append('\uFFFD');
                } else if (pair) {
                    out.append(ch).append(text.charAt(i + 1));
                } else {
                    out.append(ch);
                }
            }
            if (pair) {
                i++;
            }
        }
        return out == null ? text : out.toString();
    }

    /** @return the text, or its longest prefix that fits with {@link #CUT} in {@code max} bytes, plus {@link #CUT} */
    private static String cut(String text, int max) {
        if (utf8Length(text) <= max) {
            return text;
        }
        return text.substring(0, prefixFitting(text, max - utf8Length(CUT))) + CUT;
    }

    /** @return the text, or its first whole lines that fit with the cut line in {@code max} bytes, plus the cut line */
    private static String cutLines(String text, int max) {
        if (utf8Length(text) <= max) {
            return text;
        }
        int end = prefixFitting(text, max - utf8Length(CUT_LINE) - 1);
        int lineEnd = text.lastIndexOf('\n', end - 1);
        return (lineEnd < 0 ? "" : text.substring(0, lineEnd + 1)) + CUT_LINE;
    }

    /** @return the length in chars of the longest prefix of whole characters at most {@code maxBytes} long in UTF-8 */
    private static int prefixFitting(String text, int maxBytes) {
        int bytes = 0;
        int i = 0;
        while (i < text.length()) {
            int cp = text.codePointAt(i);
            int size = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
            if (bytes + size > maxBytes) {
                break;
            }
            bytes += size;
            i += Character.charCount(cp);
        }
        return i;
    }

    /** @return the UTF-8 length of a storable text, 0 for {@code null} */
    private static int utf8Length(String text) {
        if (text == null) {
            return 0;
        }
        int bytes = 0;
        for (int i = 0; i < text.length(); i++) {
            char ch = text.charAt(i);
            if (Character.isHighSurrogate(ch)) {
                bytes += 4; // storable: a pair
                i++;
            } else {
                bytes += ch < 0x80 ? 1 : ch < 0x800 ? 2 : 3;
            }
        }
        return bytes;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FailureReason r
                && Objects.equals(type, r.type)
                && message.equals(r.message)
                && Objects.equals(trace, r.trace);
    }

    @Override
    public int hashCode() {
        return Objects.hash(type, message, trace);
    }

    /** @return the type and message, as {@link Throwable#toString()} gives them; the trace's size, not the trace */
    @Override
    public String toString() {
        String head = type == null ? message : message.isEmpty() ? type : type + ": " + message;
        return trace == null ? head : head + " (trace: " + trace.length() + " chars)";
    }
}
