package dev.durablestore.sqlite.internal;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.SerializationException;
import dev.durablestore.core.internal.EpochNanos;
import java.sql.ResultSet;
import java.sql.SQLException;
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
     * Reads a timestamp column, refusing anything but an integer (a damaged TEXT or REAL value
     * would otherwise read as some arbitrary instant).
     *
     * @param rs a positioned result set
     * @param index the column index
     * @param column the column name, for the error
     * @return epoch nanoseconds, or {@code null} for SQL NULL
     * @throws SQLException on driver failure
     * @throws SerializationException when the stored value is not an integer
     */
    static Long readNanos(ResultSet rs, int index, String column) throws SQLException {
        Object value = rs.getObject(index);
        if (value == null) {
            return null;
        }
        if (value instanceof Integer || value instanceof Long) {
            return ((Number) value).longValue();
        }
        throw new SerializationException("stored " + column + " '" + value + "' is not epoch nanoseconds");
    }

    /**
     * Like {@link #readNanos} for a NOT NULL column.
     *
     * @param rs a positioned result set
     * @param index the column index
     * @param column the column name, for the error
     * @return the instant
     * @throws SQLException on driver failure
     */
    static Instant readInstant(ResultSet rs, int index, String column) throws SQLException {
        return fromNanos(readRequiredNanos(rs, index, column));
    }

    /**
     * Like {@link #readNanos} for a NOT NULL column.
     *
     * @param rs a positioned result set
     * @param index the column index
     * @param column the column name, for the error
     * @return epoch nanoseconds
     * @throws SQLException on driver failure
     */
    static long readRequiredNanos(ResultSet rs, int index, String column) throws SQLException {
        Long nanos = readNanos(rs, index, column);
        if (nanos == null) {
            throw new SerializationException("stored " + column + " is NULL");
        }
        return nanos;
    }
}
