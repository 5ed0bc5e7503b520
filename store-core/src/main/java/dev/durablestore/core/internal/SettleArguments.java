package dev.durablestore.core.internal;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.internal.StoredText;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

/**
 * The argument checks of {@code settleKeys} and of a retry after a delay that every backend runs
 * (O29–O34, O58, X10). For backends; not part of the user API.
 */
public final class SettleArguments {

    private SettleArguments() {}

    /**
     * Checks the keys of a bulk settle as {@link KeyArguments#checked} does and keeps those a row can
     * hold, each once, in {@link Claims#CODE_POINT_ORDER}: the order rows are visited in, so two
     * writers settling overlapping sets lock them in one order.
     *
     * @param dispatchKeys the argument
     * @return the storable keys, distinct and sorted; empty when no stored row can match
     * @throws InvalidArgumentException naming {@code dispatchKeys} or the element
     *     ({@code dispatchKeys[3]}) when the collection or an element is {@code null} or an element
     *     is empty
     */
    public static List<String> sortedKeys(Collection<String> dispatchKeys) {
        List<String> checked = StoredText.storableOnly(KeyArguments.checked(dispatchKeys, "dispatchKeys", true));
        TreeSet<String> sorted = new TreeSet<>(Claims.CODE_POINT_ORDER);
        sorted.addAll(checked);
        return new ArrayList<>(sorted);
    }

    /**
     * @param now the store clock's instant, read when the write runs
     * @param delay a checked delay
     * @return {@code now + delay} in epoch nanoseconds ({@link EpochNanos})
     * @throws InvalidArgumentException naming {@code settlement.delay} when the sum cannot be stored
     */
    public static long visibleAfterNanos(Instant now, Duration delay) {
        return visibleAfterNanos(now, delay, "settlement.delay");
    }

    /**
     * @param now the store clock's instant
     * @param delay a checked delay
     * @param argument the delay's name to report ({@code delay}, {@code settles[1].delay})
     * @return {@code now + delay} in epoch nanoseconds ({@link EpochNanos})
     * @throws InvalidArgumentException naming {@code argument} when the sum cannot be stored (O58, S15)
     */
    public static long visibleAfterNanos(Instant now, Duration delay, String argument) {
        Instant visible;
        try {
            visible = now.plus(delay);
        } catch (DateTimeException | ArithmeticException e) {
            throw new InvalidArgumentException(argument, "is too long: " + now + " + " + delay + " is not an instant");
        }
        return EpochNanos.of(visible, argument);
    }
}
