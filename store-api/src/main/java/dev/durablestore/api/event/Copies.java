package dev.durablestore.api.event;

import dev.durablestore.api.InvalidArgumentException;
import java.util.List;
import java.util.Map;

/** Immutable copies of collection fields that name the offending argument on a null element (X10). */
final class Copies {

    private Copies() {}

    static <T> List<T> list(List<T> values, String argument) {
        InvalidArgumentException.requireNonNull(values, argument);
        for (int i = 0; i < values.size(); i++) {
            InvalidArgumentException.requireNonNull(values.get(i), argument + "[" + i + "]");
        }
        return List.copyOf(values);
    }

    static <K, V> Map<K, V> map(Map<K, V> values, String argument) {
        InvalidArgumentException.requireNonNull(values, argument);
        for (Map.Entry<K, V> e : values.entrySet()) {
            InvalidArgumentException.requireNonNull(e.getKey(), argument + " key");
            InvalidArgumentException.requireNonNull(e.getValue(), argument + "[" + e.getKey() + "]");
        }
        return Map.copyOf(values);
    }
}
