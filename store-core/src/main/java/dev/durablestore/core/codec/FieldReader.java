package dev.durablestore.core.codec;

import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeType;
import dev.durablestore.api.SerializationException;
import java.time.Instant;
import java.util.UUID;

/**
 * Typed, path-aware access to the members of one JSON object of a decoded tree. Every failure is a
 * {@link SerializationException} naming the member's path (for example {@code data.envelope.seq}).
 * A member that is absent and a member whose value is JSON {@code null} are treated alike.
 */
final class FieldReader {

    private final JsonNode node;
    private final String path;

    private FieldReader(JsonNode node, String path) {
        this.node = node;
        this.path = path;
    }

    /**
     * @param value the value that must be a JSON object
     * @param where the value's path, empty for the document root
     * @return a reader over its members
     */
    static FieldReader of(JsonNode value, String where) {
        if (value == null || !value.isObject()) {
            throw new SerializationException(describe(where) + ": expected an object, found " + typeOf(value));
        }
        return new FieldReader(value, where.isEmpty() ? "" : where + ".");
    }

    /** @return the underlying object */
    JsonNode node() {
        return node;
    }

    /** @return the path of member {@code name} */
    String where(SerializedString name) {
        return path + name.getValue();
    }

    /** @return the path of the member with the run-time key {@code key} (a map entry) */
    String whereKey(String key) {
        return path + key;
    }

    /** @return the member's value, or {@code null} when it is absent or JSON {@code null} */
    JsonNode optional(SerializedString name) {
        JsonNode value = node.get(name.getValue());
        return value == null || value.isNull() ? null : value;
    }

    /** @return the member's value, failing when it is absent or JSON {@code null} */
    JsonNode required(SerializedString name) {
        JsonNode value = optional(name);
        if (value == null) {
            throw new SerializationException(where(name) + ": missing required field");
        }
        return value;
    }

    FieldReader object(SerializedString name) {
        return of(required(name), where(name));
    }

    String text(SerializedString name) {
        return text(required(name), where(name));
    }

    String optionalText(SerializedString name) {
        JsonNode value = optional(name);
        return value == null ? null : text(value, where(name));
    }

    long unsigned(SerializedString name) {
        return unsigned(required(name), where(name));
    }

    /**
     * Reads an unsigned 32-bit count that must fit a Java {@code int}.
     *
     * @param fallback the value when the member is absent, or {@code null} when it is required
     */
    int count(SerializedString name, Integer fallback) {
        JsonNode value = fallback == null ? required(name) : optional(name);
        if (value == null) {
            return fallback;
        }
        long n = unsigned(value, where(name));
        if (n > Integer.MAX_VALUE) {
            throw new SerializationException(where(name) + ": " + n + " exceeds " + Integer.MAX_VALUE);
        }
        return (int) n;
    }

    UUID uuid(SerializedString name) {
        return uuid(required(name), where(name));
    }

    UUID optionalUuid(SerializedString name) {
        JsonNode value = optional(name);
        return value == null ? null : uuid(value, where(name));
    }

    Instant instant(SerializedString name) {
        return instant(required(name), where(name));
    }

    static String text(JsonNode value, String where) {
        if (!value.isTextual()) {
            throw wrongType(value, where, "a string");
        }
        return value.textValue();
    }

    /** @return a JSON integer in {@code [0, 2^63-1]} */
    static long unsigned(JsonNode value, String where) {
        if (!value.isIntegralNumber()) {
            throw wrongType(value, where, "an unsigned integer");
        }
        if (!value.canConvertToLong() || value.longValue() < 0) {
            throw new SerializationException(where + ": " + value + " is outside 0.." + Long.MAX_VALUE);
        }
        return value.longValue();
    }

    static long signed(JsonNode value, String where) {
        if (!value.isIntegralNumber()) {
            throw wrongType(value, where, "an integer");
        }
        if (!value.canConvertToLong()) {
            throw new SerializationException(where + ": " + value + " does not fit a signed 64-bit integer");
        }
        return value.longValue();
    }

    static Instant instant(JsonNode value, String where) {
        Instant instant = Rfc3339.parse(text(value, where));
        if (instant == null) {
            throw new SerializationException(where + ": not an RFC 3339 timestamp: '" + value.textValue() + "'");
        }
        return instant;
    }

    /** Parses the canonical 8-4-4-4-12 hexadecimal form (either case). */
    static UUID uuid(JsonNode value, String where) {
        String text = text(value, where);
        if (text.length() != 36) {
            throw badUuid(text, where);
        }
        long high = 0;
        long low = 0;
        int digits = 0;
        for (int i = 0; i < 36; i++) {
            char c = text.charAt(i);
            if (i == 8 || i == 13 || i == 18 || i == 23) {
                if (c != '-') {
                    throw badUuid(text, where);
                }
                continue;
            }
            int nibble = Character.digit(c, 16);
            if (nibble < 0 || c > 'f') {
                throw badUuid(text, where);
            }
            if (digits < 16) {
                high = high << 4 | nibble;
            } else {
                low = low << 4 | nibble;
            }
            digits++;
        }
        return new UUID(high, low);
    }

    static SerializationException wrongType(JsonNode value, String where, String expected) {
        return new SerializationException(where + ": expected " + expected + ", found " + typeOf(value));
    }

    private static SerializationException badUuid(String text, String where) {
        return new SerializationException(where + ": not a canonical UUID: '" + text + "'");
    }

    private static String describe(String where) {
        return where.isEmpty() ? "document" : where;
    }

    private static String typeOf(JsonNode value) {
        if (value == null || value.isMissingNode()) {
            return "nothing";
        }
        JsonNodeType type = value.getNodeType();
        return switch (type) {
            case OBJECT -> "an object";
            case ARRAY -> "an array";
            case STRING -> "a string";
            case NUMBER -> "a number";
            case BOOLEAN -> "a boolean";
            case NULL -> "null";
            default -> type.toString().toLowerCase(java.util.Locale.ROOT);
        };
    }
}
