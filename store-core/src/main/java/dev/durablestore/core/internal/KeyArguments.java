package dev.durablestore.core.internal;

import static dev.durablestore.api.InvalidArgumentException.requireNonEmpty;
import static dev.durablestore.api.InvalidArgumentException.requireNonNull;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The checks of collection arguments (dispatch keys, namespaces) that every backend runs before it
 * touches storage (X10), and the answer for arguments no stored row can match. For backends; not
 * part of the user API.
 */
public final class KeyArguments {

    private KeyArguments() {}

    /**
     * @param keys a collection argument
     * @param argument its name
     * @param nonEmpty true when each element must be a non-empty dispatch key
     * @return its elements in order, each checked (an error names the element: {@code keys[2]})
     * @throws dev.durablestore.api.InvalidArgumentException when the collection or an element is
     *     {@code null}, or an element is empty where {@code nonEmpty}
     */
    public static List<String> checked(Collection<String> keys, String argument, boolean nonEmpty) {
        requireNonNull(keys, argument);
        List<String> list = new ArrayList<>(keys.size());
        int i = 0;
        for (String k : keys) {
            String name = argument + "[" + i++ + "]";
            list.add(nonEmpty ? requireNonEmpty(k, name) : requireNonNull(k, name));
        }
        return list;
    }

    /**
     * @param namespaces checked namespaces
     * @return each of them counted 0: the answer when none can be stored ({@link dev.durablestore.api.internal.StoredText})
     */
    public static Map<String, Long> zeroCounts(List<String> namespaces) {
        Map<String, Long> none = new LinkedHashMap<>();
        namespaces.forEach(ns -> none.put(ns, 0L));
        return Map.copyOf(none);
    }
}
