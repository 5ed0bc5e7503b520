package dev.durablestore.console;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.durablestore.api.ContentType;
import dev.durablestore.api.Payload;
import dev.durablestore.api.event.Event;
import dev.durablestore.core.codec.EventCodec;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Iterator;
import java.util.Map;

/**
 * Payloads as the console shows them: as JSON when their content type is JSON and their bytes are
 * UTF-8 JSON, otherwise as base64 with a note, cut at {@link ConsoleOptions#previewBytes()}; not at
 * all without {@link ConsoleOptions#previews()}. The text is data for the page, which writes it as
 * text, never as markup.
 */
final class PayloadPreview {

    /** How a preview's text is to be read. */
    enum Format {
        /** JSON text. */
        JSON,
        /** Base64 of bytes that are not UTF-8 JSON. */
        BASE64;

        String token() {
            return this == JSON ? "json" : "base64";
        }
    }

    /** The note a payload shown as base64 carries. */
    static final String NOT_JSON = "not UTF-8 JSON: shown as base64";

    // numbers kept as written (no double rounding); "{} x" is not JSON
    private static final JsonMapper MAPPER = JsonMapper.builder()
            .nodeFactory(JsonNodeFactory.withExactBigDecimals(true))
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    private final EventCodec codec = EventCodec.create();
    private final boolean previews;
    private final int previewBytes;

    /** @param options whether previews are shown, and their most bytes */
    PayloadPreview(ConsoleOptions options) {
        this.previews = options.previews();
        this.previewBytes = options.previewBytes();
    }

    /**
     * Puts a payload's preview into a row of the API: {@code <name>} (the text, cut),
     * {@code <name>Truncated} and {@code <name>Format} ({@code json} or {@code base64}); nothing
     * without previews.
     *
     * @param m the row
     * @param name the field name
     * @param payload the payload
     */
    void payload(Map<String, Object> m, String name, Payload payload) {
        if (!previews) {
            return;
        }
        String text = payload.contentType() == ContentType.JSON ? utf8(payload.bytes()) : null;
        if (text != null && parse(text) != null) {
            put(m, name, text, Format.JSON);
        } else {
            put(m, name, Base64.getEncoder().encodeToString(payload.bytes()), Format.BASE64);
        }
    }

    /**
     * Puts an event's preview into an entry of the history: the event as the store encodes it, with
     * each payload in it, {@code {"content_type":"Json","bytes":"<base64>"}}, shown as
     * {@code {"content_type":"Json","json":<its JSON>}}, or with a {@code "note"} beside its base64
     * when its bytes are not UTF-8 JSON; no preview without previews.
     *
     * @param m the entry
     * @param name the field name
     * @param event the event
     * @return the size of the event as the store encodes it, in bytes
     */
    int event(Map<String, Object> m, String name, Event event) {
        byte[] encoded = codec.encode(event);
        if (!previews) {
            return encoded.length;
        }
        JsonNode tree;
        try {
            tree = MAPPER.readTree(encoded);
        } catch (IOException e) {
            throw new IllegalStateException("the event codec wrote no JSON for " + event.kind(), e);
        }
        decodePayloads(tree);
        put(m, name, tree.toString(), Format.JSON);
        return encoded.length;
    }

    /** Replaces each payload object in the tree by its decoded form. */
    private static void decodePayloads(JsonNode node) {
        if (node instanceof ObjectNode o) {
            if (isPayload(o)) {
                String text = utf8(Base64.getDecoder().decode(o.get("bytes").asText()));
                JsonNode value = text == null ? null : parse(text);
                if (value != null) {
                    o.remove("bytes");
                    o.set("json", value);
                } else {
                    o.put("note", NOT_JSON);
                }
                return;
            }
            for (Iterator<JsonNode> it = o.elements(); it.hasNext(); ) {
                decodePayloads(it.next());
            }
        } else if (node.isArray()) {
            node.forEach(PayloadPreview::decodePayloads);
        }
    }

    /** A payload as the event codec writes it: {@code {"content_type":"Json","bytes":"<base64>"}}. */
    private static boolean isPayload(ObjectNode o) {
        return o.size() == 2
                && o.path("content_type").asText("").equals("Json")
                && o.path("bytes").isTextual();
    }

    /** @return the bytes as text when they are UTF-8, else null */
    private static String utf8(byte[] bytes) {
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    /** @return the one JSON value the text holds, or null when it holds none or more */
    private static JsonNode parse(String text) {
        try {
            JsonNode node = MAPPER.readTree(text);
            return node == null || node.isMissingNode() ? null : node;
        } catch (JsonProcessingException e) {
            return null;
        }
    }

    private void put(Map<String, Object> m, String name, String text, Format format) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        int n = Math.min(bytes.length, previewBytes);
        m.put(name, utf8Prefix(bytes, n));
        m.put(name + "Truncated", bytes.length > n);
        m.put(name + "Format", format.token());
    }

    /** The longest valid UTF-8 text in the first {@code n} bytes (a cut character is dropped). */
    private static String utf8Prefix(byte[] bytes, int n) {
        CharsetDecoder d = StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE);
        CharBuffer out = CharBuffer.allocate(n + 1);
        d.decode(ByteBuffer.wrap(bytes, 0, n), out, n == bytes.length);
        out.flip();
        return out.toString();
    }
}
