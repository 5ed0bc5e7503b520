package dev.durablestore.r2dbc.internal;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.core.internal.EpochNanos;
import java.time.Instant;

/**
 * Instants as signed 64-bit epoch nanoseconds: the one timestamp form of every column (S10), so SQL
 * order is time order (S11) and every instant reads back to the nanosecond (S13).
 */
final class Times {

    /** The earliest storable instant, 1677-09-21T00:12:43.145224192Z (S15). */
    static final Instant MIN = EpochNanos.MIN;
    /** The latest storable instant, 2262-04-11T23:47:16.854775807Z (S15). */
    static final Instant MAX = EpochNanos.MAX;

    private Times() {}

    /**
     * @param instant an instant
     * @param argument the argument name to report
     * @return epoch nanoseconds
     * @throws InvalidArgumentException when null or outside {@link #MIN}..{@link #MAX}
     */
    static long toNanos(Instant instant, String argument) {
        return EpochNanos.of(instant, argument);
    }

    /**
     * Like {@link #toNanos} but for instants produced by the store's own clock.
     *
     * @param instant an instant from the clock
     * @return epoch nanoseconds
     */
    static long nowNanos(Instant instant) {
        return toNanos(instant, "clock.instant()");
    }

    /**
     * @param nanos epoch nanoseconds
     * @return the instant
     */
    static Instant fromNanos(long nanos) {
        return EpochNanos.toInstant(nanos);
    }

    /**
     * @param nanos epoch nanoseconds, possibly SQL NULL
     * @return the instant or {@code null}
     */
    static Instant fromNanos(Long nanos) {
        return nanos == null ? null : fromNanos(nanos.longValue());
    }

    /**
     * Text order as the contract defines it (T4, O18): Unicode code points, which is what
     * PostgreSQL's {@code "C"} collation gives for UTF-8; {@link String#compareTo} compares UTF-16
     * units and disagrees once characters outside the Basic Multilingual Plane occur.
     */
    static final java.util.Comparator<String> CODE_POINT_ORDER = dev.durablestore.core.internal.Claims.CODE_POINT_ORDER;
}
