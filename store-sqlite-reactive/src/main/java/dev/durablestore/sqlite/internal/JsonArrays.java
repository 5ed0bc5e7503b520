package dev.durablestore.sqlite.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.durablestore.api.SerializationException;
import java.util.Collection;

/** Encodes a set of keys as one JSON array parameter, expanded in SQL with {@code json_each(?)}. */
final class JsonArrays {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private JsonArrays() {}

    static String of(Collection<String> values) {
        try {
            return MAPPER.writeValueAsString(values);
        } catch (JsonProcessingException e) {
            throw new SerializationException("cannot encode key list", e);
        }
    }
}
