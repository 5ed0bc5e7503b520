package dev.durablestore.api.internal;

import com.google.errorprone.annotations.CanIgnoreReturnValue;
import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.TimerId;
import java.util.ArrayList;
import java.util.List;

/**
 * The one rule for text the store keeps in a column, applied the same way by every backend (an argument rule of X10):
 * dispatch keys, namespaces, task queues, nodes, activity types, workflow types and timer names.
 *
 * <p>Such a text is <em>storable</em> when it
 * <ul>
 *   <li>holds no NUL character (U+0000): PostgreSQL refuses it in {@code text} (SQLSTATE 22021);</li>
 *   <li>holds no unpaired UTF-16 surrogate: it has no UTF-8 form, and drivers replace it with
 *       {@code '?'}, so two different keys or routes would become one; a valid surrogate pair
 *       (a character outside the Basic Multilingual Plane, such as an emoji) is kept exactly;</li>
 *   <li>is at most {@link #MAX_UTF8_BYTES} bytes long in UTF-8: PostgreSQL refuses a b-tree index
 *       entry over about 2,700 bytes (SQLSTATE 54000), and the widest index holding such a text
 *       ({@code events_queryable}: the workflow type beside two ids, the kind, a sequence number
 *       and an instant) then stays well below that.</li>
 * </ul>
 *
 * <p>Writes refuse a text that is not storable with {@link InvalidArgumentException} naming the
 * argument, before anything is written. Reads, settles and counts given such a text answer as for
 * a text that is not stored (no row can hold it), without asking the database.
 */
public final class StoredText {

    /** The most UTF-8 bytes a stored text may have: keys, routes and names alike. */
    public static final int MAX_UTF8_BYTES = 1024;

    private StoredText() {}

    /**
     * Refuses a text the store cannot keep exactly; {@code null} passes (the caller checks
     * presence).
     *
     * @param value the text, or {@code null}
     * @param argument its name, as reported ({@code rows[3].dispatchKey})
     * @return {@code value}
     * @throws InvalidArgumentException when the text is not storable
     */
    @CanIgnoreReturnValue // a check; returns its argument
    public static String require(String value, String argument) {
        String problem = problem(value);
        if (problem != null) {
            throw new InvalidArgumentException(argument, problem);
        }
        return value;
    }

    /**
     * @param value a text, or {@code null}
     * @return true when the store can keep it exactly ({@code null} counts as storable)
     */
    public static boolean storable(String value) {
        return problem(value) == null;
    }

    /**
     * Checks a timer id for {@link dev.durablestore.api.ReactiveStore#scheduleTimer}: a named timer's name must be storable.
     *
     * @param timerId the timer id
     * @param argument its name
     * @return its canonical text, the stored form
     * @throws InvalidArgumentException when it is null or its name is not storable
     */
    public static String timerIdText(TimerId timerId, String argument) {
        InvalidArgumentException.requireNonNull(timerId, argument);
        if (timerId instanceof TimerId.Named named) {
            require(named.name(), argument + ".name");
        }
        return timerId.canonicalText();
    }

    /**
     * @param texts texts, none null
     * @return the storable ones, in the order given (the others match no stored row)
     */
    public static List<String> storableOnly(List<String> texts) {
        List<String> kept = new ArrayList<>(texts.size());
        for (String t : texts) {
            if (storable(t)) {
                kept.add(t);
            }
        }
        return kept;
    }

    /**
     * The scope a claim compares stored rows with: a node that cannot be stored pins no row, so the
     * scope then admits the unpinned rows only, exactly like a scope without a node.
     *
     * @param scope a scope, or {@code null} for any route
     * @return the scope to compare with, {@code scope} itself when every component is storable
     */
    public static ClaimScope matchable(ClaimScope scope) {
        if (scope == null || storable(scope.node())) {
            return scope;
        }
        return ClaimScope.of(scope.namespace(), scope.taskQueue());
    }

    /**
     * @param scope a scope, or {@code null} for any route
     * @return true when its namespace or task queue cannot be stored: it admits no stored row
     */
    public static boolean admitsNoStoredRow(ClaimScope scope) {
        return scope != null && !(storable(scope.namespace()) && storable(scope.taskQueue()));
    }

    /** @return what makes {@code value} unstorable, or {@code null} when it is storable */
    private static String problem(String value) {
        if (value == null) {
            return null;
        }
        long bytes = 0;
        int n = value.length();
        for (int i = 0; i < n; i++) {
            char ch = value.charAt(i);
            if (ch == '\0') {
                return "must not contain NUL (U+0000), found at index " + i;
            }
            if (Character.isHighSurrogate(ch) && i + 1 < n && Character.isLowSurrogate(value.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else if (Character.isSurrogate(ch)) {
                return String.format(
                        "must not contain an unpaired UTF-16 surrogate, found U+%04X at index %d", (int) ch, i);
            } else {
                bytes += ch < 0x80 ? 1 : ch < 0x800 ? 2 : 3;
            }
        }
        if (bytes > MAX_UTF8_BYTES) {
            return "must be at most " + MAX_UTF8_BYTES + " bytes in UTF-8, was " + bytes;
        }
        return null;
    }
}
