package dev.durablestore.core.codec;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.Payload;
import dev.durablestore.api.SerializationException;
import dev.durablestore.api.event.Event;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;

/**
 * Encodes {@link Event events} and {@link Payload payloads} as UTF-8 JSON and decodes them back,
 * field for field (M20). Thread-safe and stateless: create one and share it.
 *
 * <h2>Wire format</h2>
 *
 * <p>The shape follows upstream's storage format (M25). An event is
 * <pre>{@code
 * {"type":"<EventKind.typeName()>",
 *  "data":{"envelope":{"seq":17,"recorded_at":"2026-06-03T02:30:00.123456789Z",
 *                      "workflow_id":"0b5d…"},
 *          …the kind's fields…}}
 * }</pre>
 * Member names are the snake_case form of the record components, with the exceptions listed
 * below. Values:
 * <ul>
 *   <li>strings: JSON strings in UTF-8 (an unpaired UTF-16 surrogate is written as a <code>&#92;uXXXX</code>
 *       escape, so every Java string round-trips);</li>
 *   <li>workflow, run and schedule ids: canonical lower-case UUID text (M1, M2);</li>
 *   <li>{@code ActivityId}: its position as a JSON number;</li>
 *   <li>{@code TimerId}: {@code {"Named":"x"}} or {@code {"Anonymous":3}};</li>
 *   <li>{@code PackageVersion}: its text;</li>
 *   <li>instants: RFC 3339 in UTC with exactly nine fraction digits and {@code Z} (S10);</li>
 *   <li>a payload: {@code {"content_type":"Json","bytes":"<standard base64>"}};</li>
 *   <li>{@code WorkflowError}: {@code {"message":…,"details":payload}};
 *       {@code ActivityError}: {@code {"kind":"Retryable"|"Terminal","message":…,"details":payload}};</li>
 *   <li>enums: PascalCase tokens — {@code TimerCancelCause} {@code WorkflowIntent},
 *       {@code CancelTeardown}; {@code WithTimeoutOutcome} {@code OperationCompleted},
 *       {@code TimedOut}; {@code OverlapPolicy} {@code Skip}, {@code BufferOne},
 *       {@code CancelPrevious}, {@code AllowAll}; {@code CatchUpPolicy} {@code All}, {@code One},
 *       {@code Skip};</li>
 *   <li>{@code ScheduleConfig}: {@code {"trigger":…,"overlap_policy":…,"catch_up_policy":…,
 *       "workflow_type":…,"input":payload,"search_attributes":{…}}}, with the trigger
 *       {@code {"Cron":{"expression":"…"}}} or
 *       {@code {"Interval":{"period":{"secs":300,"nanos":0}}}};</li>
 *   <li>a search attribute value: {@code {"String":"x"}}, {@code {"Int":5}}, {@code {"Float":1.5}}
 *       (non-finite values as the strings {@code "NaN"}, {@code "Infinity"}, {@code "-Infinity"}),
 *       {@code {"Bool":true}}, {@code {"Datetime":"…Z"}}, {@code {"KeywordList":["a"]}}; maps of
 *       them are written with their keys sorted, so equal events encode to identical bytes.</li>
 * </ul>
 * Names that differ from the plain snake_case of the record component:
 * {@code SearchAttributesUpdated.attributesWorkflowId} is {@code "workflow_id"} and
 * {@code ScheduleTriggered.startedWorkflowId} is {@code "workflow_id"} (both inside {@code data},
 * beside the nested envelope, as upstream names them).
 *
 * <h2>Decoding</h2>
 *
 * <ul>
 *   <li>A nullable field whose value is absent is omitted on encode; on decode a missing member and
 *       JSON {@code null} both read as absent.</li>
 *   <li>Fields added after upstream's first release decode with defaults when missing (M16):
 *       {@code ActivityScheduled.task_queue} → {@code "default"}; {@code attempt} of
 *       {@code ActivityStarted}, {@code ActivityCompleted} and {@code ActivityCancelled} → 0;
 *       {@code TimerCancelled.cause} → {@code WorkflowIntent}; in a schedule configuration
 *       {@code overlap_policy} → {@code Skip}, {@code catch_up_policy} → {@code One},
 *       {@code search_attributes} → empty. Any other missing field fails.</li>
 *   <li>Timestamps may carry any RFC 3339 offset (or {@code t}/space separators, or any number of
 *       fraction digits, of which the first nine count) and are normalised to UTC (S12).</li>
 *   <li>Payload {@code bytes} may also be an array of numbers 0..255 (upstream's form); a
 *       {@code TimerId} may also be its canonical text ({@code timer:named:x}); a search attribute
 *       value may also be upstream's {@code {"type":"Int","data":5}}.</li>
 *   <li>Unknown members are ignored. Duplicate members, trailing content, unknown types or tokens,
 *       wrong JSON types, non-canonical UUIDs, numbers out of range (ids and sequence numbers above
 *       2^63−1, attempts above 2^31−1) and values the model rejects all fail.</li>
 * </ul>
 *
 * <h2>Errors</h2>
 *
 * <p>Every encode and decode failure is a {@link SerializationException} (X6) whose message names
 * the offending member path (for example {@code data.run_id}) and, once the envelope has been read,
 * the event's type, sequence and workflow. A {@code null} argument to an encode method fails with
 * {@link InvalidArgumentException} (X10); {@code null} bytes given to a decode method are treated as
 * undecodable data.
 */
public final class EventCodec {

    private static final int INITIAL_BUFFER = 256;
    private static final EventCodec INSTANCE = new EventCodec();

    private final JsonFactory factory;
    private final JsonMapper mapper;

    private EventCodec() {
        // Payloads travel as base64 strings: lift the default string and name length limits so
        // everything that encodes also decodes (M20).
        this.factory = JsonFactory.builder()
                .streamReadConstraints(StreamReadConstraints.builder()
                        .maxStringLength(Integer.MAX_VALUE)
                        .maxNameLength(Integer.MAX_VALUE)
                        .build())
                .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                .build();
        this.mapper = JsonMapper.builder(factory)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .build();
        // The mapper builds its tree deserializer on first use, under a lock (Jackson's
        // DeserializerCache): built here, a first decode on a Netty event loop never waits for
        // another thread's (BlockHound caught two event loops decoding their first events at once).
        try {
            mapper.readTree(new byte[] {'{', '}'});
        } catch (IOException e) {
            throw new IllegalStateException("the JSON mapper cannot read an empty object", e);
        }
    }

    /**
     * Returns a codec. Codecs hold no mutable state, so this may return a shared instance.
     *
     * @return a thread-safe codec
     */
    public static EventCodec create() {
        return INSTANCE;
    }

    /**
     * Encodes one event.
     *
     * @param event the event
     * @return its UTF-8 JSON
     * @throws InvalidArgumentException when {@code event} is null
     * @throws SerializationException when the event cannot be encoded: an instant outside the years
     *     0000–9999
     */
    public byte[] encode(Event event) {
        InvalidArgumentException.requireNonNull(event, "event");
        try {
            return write(g -> EventWriter.writeEvent(g, event));
        } catch (IOException | RuntimeException e) {
            throw new SerializationException("cannot encode " + describe(event) + ": " + e.getMessage(), e);
        }
    }

    /**
     * Decodes one event produced by {@link #encode} (or by upstream, M25).
     *
     * @param json UTF-8 JSON
     * @return the event
     * @throws SerializationException when the bytes do not hold a decodable event
     */
    public Event decode(byte[] json) {
        try {
            return EventReader.readEvent(readTree(json), "");
        } catch (IOException | RuntimeException e) {
            throw decodeFailure("event", e);
        }
    }

    /**
     * Encodes a history as a JSON array of events, in list order.
     *
     * @param events the events
     * @return the UTF-8 JSON array
     * @throws InvalidArgumentException when {@code events} or one of its elements is null
     * @throws SerializationException when an event cannot be encoded
     */
    public byte[] encodeHistory(List<Event> events) {
        InvalidArgumentException.requireNonNull(events, "events");
        for (int i = 0; i < events.size(); i++) {
            InvalidArgumentException.requireNonNull(events.get(i), "events[" + i + "]");
        }
        int[] index = {0};
        try {
            return write(g -> {
                g.writeStartArray();
                for (Event event : events) {
                    EventWriter.writeEvent(g, event);
                    index[0]++;
                }
                g.writeEndArray();
            });
        } catch (IOException | RuntimeException e) {
            String at = index[0] < events.size()
                    ? "events[" + index[0] + "] (" + describe(events.get(index[0])) + "): "
                    : "";
            throw new SerializationException("cannot encode history: " + at + e.getMessage(), e);
        }
    }

    /**
     * Decodes a JSON array of events produced by {@link #encodeHistory}.
     *
     * @param json UTF-8 JSON
     * @return the events, in array order; an unmodifiable list
     * @throws SerializationException when the bytes do not hold an array of decodable events
     */
    public List<Event> decodeHistory(byte[] json) {
        try {
            JsonNode root = readTree(json);
            if (!root.isArray()) {
                throw FieldReader.wrongType(root, "document", "an array of events");
            }
            List<Event> events = new ArrayList<>(root.size());
            for (int i = 0; i < root.size(); i++) {
                events.add(EventReader.readEvent(root.get(i), "[" + i + "]"));
            }
            return List.copyOf(events);
        } catch (IOException | RuntimeException e) {
            throw decodeFailure("history", e);
        }
    }

    /**
     * Encodes a payload on its own, as {@code {"content_type":"Json","bytes":"<base64>"}}; used by
     * backends to store outbox row inputs.
     *
     * @param payload the payload
     * @return its UTF-8 JSON
     * @throws InvalidArgumentException when {@code payload} is null
     * @throws SerializationException when the payload cannot be encoded
     */
    public byte[] encodePayload(Payload payload) {
        InvalidArgumentException.requireNonNull(payload, "payload");
        try {
            return write(g -> EventWriter.writePayload(g, payload));
        } catch (IOException | RuntimeException e) {
            throw new SerializationException("cannot encode payload: " + e.getMessage(), e);
        }
    }

    /**
     * Decodes a payload produced by {@link #encodePayload}; {@code bytes} may also be an array of
     * numbers 0..255.
     *
     * @param json UTF-8 JSON
     * @return the payload
     * @throws SerializationException when the bytes do not hold a decodable payload
     */
    public Payload decodePayload(byte[] json) {
        byte[] canonical = json == null ? null : canonicalPayloadBytes(json);
        if (canonical != null) {
            return Payload.json(canonical);
        }
        try {
            return EventReader.readPayload(readTree(json), "");
        } catch (IOException | RuntimeException e) {
            throw decodeFailure("payload", e);
        }
    }

    /** What {@link #encodePayload} writes before a payload's base64 text. */
    private static final byte[] PAYLOAD_PREFIX = ("{\"" + WireNames.CONTENT_TYPE.getValue() + "\":\""
                    + WireNames.JSON_CONTENT.getValue() + "\",\"" + WireNames.BYTES.getValue() + "\":\"")
            .getBytes(StandardCharsets.US_ASCII);
    /** What {@link #encodePayload} writes after it. */
    private static final byte[] PAYLOAD_SUFFIX = "\"}".getBytes(StandardCharsets.US_ASCII);

    /**
     * The fast path of {@link #decodePayload}: the bytes of a payload stored exactly as
     * {@link #encodePayload} writes it ({@code {"content_type":"Json","bytes":"<base64>"}}, byte for
     * byte), as every claimed outbox row's input is, without a JSON parser: the text between the
     * fixed prefix and suffix is decoded as base64, which admits only the base64 alphabet (no quote,
     * backslash or space), so the JSON reader would have read the same string and decoded it alike.
     *
     * @param json the stored bytes
     * @return the payload's bytes, or {@code null} for anything else (another layout, whitespace,
     *     other members, malformed base64), which the JSON reader then decodes or refuses with its
     *     own message
     */
    private static byte[] canonicalPayloadBytes(byte[] json) {
        int from = PAYLOAD_PREFIX.length;
        int to = json.length - PAYLOAD_SUFFIX.length;
        if (to < from
                || !Arrays.equals(json, 0, from, PAYLOAD_PREFIX, 0, from)
                || !Arrays.equals(json, to, json.length, PAYLOAD_SUFFIX, 0, PAYLOAD_SUFFIX.length)) {
            return null;
        }
        try {
            return Base64.getDecoder().decode(Arrays.copyOfRange(json, from, to));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private interface Body {
        void write(JsonGenerator generator) throws IOException;
    }

    private byte[] write(Body body) throws IOException {
        ByteArrayBuilder out = new ByteArrayBuilder(INITIAL_BUFFER);
        try (JsonGenerator generator = factory.createGenerator(out, JsonEncoding.UTF8)) {
            body.write(generator);
        }
        return out.toByteArray();
    }

    private JsonNode readTree(byte[] json) throws IOException {
        if (json == null) {
            throw new SerializationException("no bytes (null)");
        }
        return mapper.readTree(json);
    }

    private static SerializationException decodeFailure(String what, Exception e) {
        String message = e instanceof com.fasterxml.jackson.core.JsonProcessingException jpe
                ? "malformed JSON: " + jpe.getOriginalMessage()
                : e.getMessage();
        return new SerializationException("cannot decode " + what + ": " + message, e);
    }

    private static String describe(Event event) {
        return event.kind().typeName() + " seq " + event.seq() + " of workflow " + event.workflowId();
    }
}
