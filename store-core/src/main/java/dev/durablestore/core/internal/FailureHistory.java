package dev.durablestore.core.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import dev.durablestore.api.AttemptFailure;
import dev.durablestore.api.FailureReason;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.SerializationException;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The stored form of a row's failures (O66), the same on every backend: the {@code failures} text
 * column holds a JSON array of the row's last {@value OutboxRow#MAX_FAILURES} failed attempts,
 * oldest first, each an object
 * {@code {"attempt":3,"at":<epoch nanoseconds>,"type":"…","message":"…","trace":"…"}} ({@code type}
 * and {@code trace} left out when the reason has none); SQL {@code NULL} for a row without failures.
 * A settle that records a failure writes the whole new array, computed here from the row's failures
 * as the settle's transaction sees them: the only way the column is written.
 */
public final class FailureHistory {

    private static final JsonFactory JSON = new JsonFactory();

    private FailureHistory() {}

    /**
     * @param previous the row's failures, oldest first
     * @param storedAttempt the row's attempt column as the settle finds it (its earlier dispatches)
     * @param nowNanos the store clock when the settle is written, epoch nanoseconds
     * @param reason why the attempt failed
     * @return the stored form of {@code previous} with the failure of attempt
     *     {@code storedAttempt + 1} added, keeping the last {@value OutboxRow#MAX_FAILURES}
     */
    public static String append(
            List<AttemptFailure> previous, long storedAttempt, long nowNanos, FailureReason reason) {
        // attempts are numbered from 1 (O67); a row at the largest attempt stays there
        int attempt = (int) Math.min(Integer.MAX_VALUE, storedAttempt + 1);
        List<AttemptFailure> kept = new ArrayList<>(OutboxRow.MAX_FAILURES);
        int from = Math.max(0, previous.size() - (OutboxRow.MAX_FAILURES - 1));
        kept.addAll(previous.subList(from, previous.size()));
        kept.add(AttemptFailure.of(attempt, EpochNanos.toInstant(nowNanos), reason));
        return encode(kept);
    }

    /**
     * {@link #append} of a row whose failures are still in their stored form, as a settle by key
     * reads them.
     *
     * @param dispatchKey the row, as an error names it
     * @param stored its {@code failures} column, or {@code null}
     * @param storedAttempt its attempt column
     * @param nowNanos the store clock when the settle is written
     * @param reason why the attempt failed
     * @return the new stored form
     * @throws SerializationException naming the row when its stored failures do not decode: the settle
     *     then writes nothing
     */
    public static String appendStored(
            String dispatchKey, String stored, long storedAttempt, long nowNanos, FailureReason reason) {
        List<AttemptFailure> previous;
        try {
            previous = decode(stored);
        } catch (SerializationException e) {
            throw new SerializationException(
                    "stored outbox row " + dispatchKey + " cannot be decoded: " + e.getMessage(), e);
        }
        return append(previous, storedAttempt, nowNanos, reason);
    }

    /**
     * @param failures failures, oldest first, at most {@value OutboxRow#MAX_FAILURES}
     * @return their stored form; {@code null} for none
     */
    public static String encode(List<AttemptFailure> failures) {
        if (failures.isEmpty()) {
            return null;
        }
        StringWriter out = new StringWriter();
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartArray();
            for (AttemptFailure f : failures) {
                g.writeStartObject();
                g.writeNumberField("attempt", f.attempt());
                g.writeNumberField("at", EpochNanos.of(f.failedAt(), "failedAt"));
                FailureReason r = f.reason();
                if (r.type() != null) {
                    g.writeStringField("type", r.type());
                }
                g.writeStringField("message", r.message());
                if (r.trace() != null) {
                    g.writeStringField("trace", r.trace());
                }
                g.writeEndObject();
            }
            g.writeEndArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringWriter does not fail
        }
        return out.toString();
    }

    /**
     * @param stored a {@code failures} column, or {@code null}
     * @return the failures, oldest first; the last {@value OutboxRow#MAX_FAILURES} when it holds more;
     *     empty for {@code null}
     * @throws SerializationException when the text is not the stored form; members it does not know
     *     are skipped
     */
    public static List<AttemptFailure> decode(String stored) {
        if (stored == null) {
            return List.of();
        }
        List<AttemptFailure> failures = new ArrayList<>();
        try (JsonParser p = JSON.createParser(stored)) {
            expect(p.nextToken(), JsonToken.START_ARRAY, "an array of failures");
            while (p.nextToken() == JsonToken.START_OBJECT) {
                failures.add(failure(p, failures.size()));
            }
            expect(p.currentToken(), JsonToken.END_ARRAY, "the end of the array of failures");
            if (p.nextToken() != null) {
                throw new SerializationException("stored failures: unexpected text after the array");
            }
        } catch (JsonProcessingException e) {
            throw new SerializationException("stored failures are not JSON: " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // reading a String does not fail
        }
        int from = Math.max(0, failures.size() - OutboxRow.MAX_FAILURES);
        return List.copyOf(failures.subList(from, failures.size()));
    }

    private static AttemptFailure failure(JsonParser p, int index) throws IOException {
        Long attempt = null;
        Long at = null;
        String type = null;
        String message = null;
        String trace = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken value = p.nextToken();
            switch (name) {
                case "attempt" -> attempt = number(p, value, index, name);
                case "at" -> at = number(p, value, index, name);
                case "type" -> type = text(p, value, index, name);
                case "message" -> message = text(p, value, index, name);
                case "trace" -> trace = text(p, value, index, name);
                default -> p.skipChildren(); // a member this version does not know
            }
        }
        if (attempt == null || attempt < 1 || attempt > Integer.MAX_VALUE || at == null || message == null) {
            throw new SerializationException(
                    "stored failure [" + index + "] needs an attempt from 1, an instant and a message");
        }
        FailureReason reason = FailureReason.of(message).withType(type).withTrace(trace);
        return AttemptFailure.of(attempt.intValue(), EpochNanos.toInstant(at), reason);
    }

    private static Long number(JsonParser p, JsonToken value, int index, String name) throws IOException {
        if (value != JsonToken.VALUE_NUMBER_INT) {
            throw new SerializationException("stored failure [" + index + "]." + name + ": expected an integer");
        }
        return p.getLongValue();
    }

    private static String text(JsonParser p, JsonToken value, int index, String name) throws IOException {
        if (value == JsonToken.VALUE_NULL) {
            return null;
        }
        if (value != JsonToken.VALUE_STRING) {
            throw new SerializationException("stored failure [" + index + "]." + name + ": expected a string");
        }
        return p.getText();
    }

    private static void expect(JsonToken actual, JsonToken expected, String what) {
        if (actual != expected) {
            throw new SerializationException("stored failures: expected " + what + ", found " + actual);
        }
    }
}
