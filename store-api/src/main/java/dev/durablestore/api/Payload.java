package dev.durablestore.api;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * Opaque bytes with a content type (M7). Immutable: the bytes are copied in and out. Two payloads
 * are equal when content type and bytes are identical. Construction does not validate the JSON.
 */
public final class Payload {

    private final ContentType contentType;
    private final byte[] bytes;

    private Payload(ContentType contentType, byte[] bytes, boolean copy) {
        this.contentType = InvalidArgumentException.requireNonNull(contentType, "contentType");
        InvalidArgumentException.requireNonNull(bytes, "bytes");
        this.bytes = copy ? bytes.clone() : bytes;
    }

    /**
     * @param contentType the content type
     * @param bytes the bytes, copied
     * @return a payload
     */
    public static Payload of(ContentType contentType, byte[] bytes) {
        return new Payload(contentType, bytes, true);
    }

    /**
     * @param bytes UTF-8 JSON bytes, copied (not validated)
     * @return a JSON payload
     */
    public static Payload json(byte[] bytes) {
        return new Payload(ContentType.JSON, bytes, true);
    }

    /**
     * @param json JSON text (not validated as JSON)
     * @return a JSON payload holding its UTF-8 bytes
     * @throws InvalidArgumentException when the text holds an unpaired UTF-16 surrogate, which has
     *     no UTF-8 form (Java's encoder would store {@code '?'} in its place)
     */
    public static Payload json(String json) {
        InvalidArgumentException.requireNonNull(json, "json");
        requirePairedSurrogates(json);
        return new Payload(ContentType.JSON, json.getBytes(StandardCharsets.UTF_8), false);
    }

    private static void requirePairedSurrogates(String text) {
        int n = text.length();
        for (int i = 0; i < n; i++) {
            char ch = text.charAt(i);
            if (Character.isHighSurrogate(ch) && i + 1 < n && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(ch)) {
                throw new InvalidArgumentException(
                        "json",
                        String.format(
                                "must not contain an unpaired UTF-16 surrogate (it has no UTF-8 form), found U+%04X at index %d",
                                (int) ch, i));
            }
        }
    }

    /** @return the content type */
    public ContentType contentType() {
        return contentType;
    }

    /** @return a copy of the bytes */
    public byte[] bytes() {
        return bytes.clone();
    }

    /** @return the number of bytes */
    public int size() {
        return bytes.length;
    }

    /** @return the bytes decoded as UTF-8 */
    public String asString() {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Payload other && other.contentType == contentType && Arrays.equals(other.bytes, bytes);
    }

    @Override
    public int hashCode() {
        return 31 * contentType.hashCode() + Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        if (bytes.length <= 64) {
            return "Payload[" + contentType + ", " + asString() + "]";
        }
        return "Payload[" + contentType + ", " + bytes.length + " bytes, "
                + HexFormat.of().formatHex(bytes, 0, 16) + "...]";
    }
}
