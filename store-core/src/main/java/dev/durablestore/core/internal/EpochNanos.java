package dev.durablestore.core.internal;

import dev.durablestore.api.InvalidArgumentException;
import java.time.Instant;

/**
 * Instants as signed 64-bit epoch nanoseconds, the timestamp form of every backend's columns
 * (contract S10): SQL order is time order (S11) and every instant reads back to the nanosecond
 * (S13). The form covers {@link #MIN} to {@link #MAX}; anything outside is rejected (S15).
 */
public final class EpochNanos {

    /** The earliest storable instant, 1677-09-21T00:12:43.145224192Z. */
    public static final Instant MIN = Instant.ofEpochSecond(0, Long.MIN_VALUE);
    /** The latest storable instant, 2262-04-11T23:47:16.854775807Z. */
    public static final Instant MAX = Instant.ofEpochSecond(0, Long.MAX_VALUE);

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private EpochNanos() {}

    /**
     * @param instant an instant
     * @param argument the argument name to report
     * @return epoch nanoseconds
     * @throws InvalidArgumentException when null or outside {@link #MIN}..{@link #MAX}
     */
    public static long of(Instant instant, String argument) {
        InvalidArgumentException.requireNonNull(instant, argument);
        if (instant.isBefore(MIN) || instant.isAfter(MAX)) {
            throw new InvalidArgumentException(
                    argument, "instant " + instant + " is outside the storable range " + MIN + " .. " + MAX);
        }
        long seconds = instant.getEpochSecond();
        int nanos = instant.getNano();
        if (seconds < 0 && nanos > 0) {
            // (seconds + 1) s - (1e9 - nanos) ns: avoids overflowing near MIN before adding the nanos
            return Math.multiplyExact(seconds + 1, NANOS_PER_SECOND) - (NANOS_PER_SECOND - nanos);
        }
        return Math.addExact(Math.multiplyExact(seconds, NANOS_PER_SECOND), nanos);
    }

    /**
     * @param nanos epoch nanoseconds
     * @return the instant
     */
    public static Instant toInstant(long nanos) {
        return Instant.ofEpochSecond(Math.floorDiv(nanos, NANOS_PER_SECOND), Math.floorMod(nanos, NANOS_PER_SECOND));
    }
}
