package dev.durablestore.sqlite.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.durablestore.api.SerializationException;
import dev.durablestore.core.storage.OutboxWriteStorage;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Encodes a set of keys (or of keys with their claim tokens) as one JSON array parameter, expanded
 * in SQL with {@code json_each(?)}.
 */
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

    /** @return {@code [[key, token], …]}: tokens are 64-bit integers, which SQLite's JSON keeps exactly */
    static String ofClaims(List<OutboxWriteStorage.ClaimedKey> claims) {
        List<List<Object>> pairs = new ArrayList<>(claims.size());
        for (OutboxWriteStorage.ClaimedKey c : claims) {
            pairs.add(List.of(c.dispatchKey(), c.claimToken()));
        }
        try {
            return MAPPER.writeValueAsString(pairs);
        } catch (JsonProcessingException e) {
            throw new SerializationException("cannot encode claim list", e);
        }
    }
}
