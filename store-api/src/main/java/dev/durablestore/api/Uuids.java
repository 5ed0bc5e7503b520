package dev.durablestore.api;

import java.util.UUID;
import java.util.regex.Pattern;

/** Strict canonical-text parsing and unsigned ordering shared by the UUID-based identifiers. */
final class Uuids {

    private static final Pattern CANONICAL =
            Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

    private Uuids() {}

    static UUID parse(String text, String argument) {
        InvalidArgumentException.requireNonNull(text, argument);
        if (!CANONICAL.matcher(text).matches()) {
            throw new InvalidArgumentException(argument, "not a canonical 8-4-4-4-12 UUID: '" + text + "'");
        }
        return UUID.fromString(text);
    }

    /** Unsigned 128-bit order, which equals the order of the canonical lower-case text (M3). */
    static int compare(UUID a, UUID b) {
        int high = Long.compareUnsigned(a.getMostSignificantBits(), b.getMostSignificantBits());
        return high != 0 ? high : Long.compareUnsigned(a.getLeastSignificantBits(), b.getLeastSignificantBits());
    }
}
