package dev.durablestore.api;

import com.google.errorprone.annotations.CanIgnoreReturnValue;
import java.time.Duration;

/**
 * An argument broke a rule of the contract (X10): a null, a negative sequence, limit, attempt or
 * ordinal, an empty name, an envelope id that differs from the workflow argument (E11), an instant
 * outside the stored range (S15), a text to be stored that the store cannot keep exactly (a NUL, an
 * unpaired UTF-16 surrogate, or more than 1,024
 * UTF-8 bytes: rule X10). The message names the argument;
 * nothing was changed.
 */
public final class InvalidArgumentException extends StoreException {

    /** The name of the rejected argument. */
    private final String argument;

    /** What is wrong with it. */
    private final String problem;

    /**
     * @param argument the name of the offending argument (or {@code argument.field})
     * @param problem what is wrong with it
     */
    public InvalidArgumentException(String argument, String problem) {
        super("invalid argument '" + argument + "': " + problem, null);
        this.argument = argument;
        this.problem = problem;
    }

    /** @return the name of the offending argument */
    public String argument() {
        return argument;
    }

    /**
     * @return what is wrong with the argument, without its name (for example {@code must be between
     *     1 and 64, was 65}), for a caller that reports it under its own name for the argument, such
     *     as a configuration property
     */
    public String problem() {
        return problem;
    }

    /**
     * Fails with an {@code InvalidArgumentException} when {@code value} is null.
     *
     * @param value the value to check
     * @param argument its name
     * @param <T> its type
     * @return {@code value}
     */
    @CanIgnoreReturnValue
    public static <T> T requireNonNull(T value, String argument) {
        if (value == null) {
            throw new InvalidArgumentException(argument, "must not be null");
        }
        return value;
    }

    /**
     * Fails with an {@code InvalidArgumentException} when {@code value} is negative.
     *
     * @param value the value to check
     * @param argument its name
     * @return {@code value}
     */
    @CanIgnoreReturnValue
    public static long requireNonNegative(long value, String argument) {
        if (value < 0) {
            throw new InvalidArgumentException(argument, "must not be negative, was " + value);
        }
        return value;
    }

    /**
     * Fails with an {@code InvalidArgumentException} when {@code value} is null or empty.
     *
     * @param value the value to check
     * @param argument its name
     * @return {@code value}
     */
    @CanIgnoreReturnValue
    public static String requireNonEmpty(String value, String argument) {
        requireNonNull(value, argument);
        if (value.isEmpty()) {
            throw new InvalidArgumentException(argument, "must not be empty");
        }
        return value;
    }

    /**
     * Fails with an {@code InvalidArgumentException} when {@code value} is outside {@code min} to
     * {@code max}, both included.
     *
     * @param value the value to check
     * @param min the smallest value allowed
     * @param max the largest value allowed
     * @param argument its name
     * @return {@code value}
     */
    @CanIgnoreReturnValue
    public static int requireBetween(int value, int min, int max, String argument) {
        if (value < min || value > max) {
            throw new InvalidArgumentException(argument, "must be between " + min + " and " + max + ", was " + value);
        }
        return value;
    }

    /**
     * Fails with an {@code InvalidArgumentException} when {@code value} is below 1.
     *
     * @param value the value to check
     * @param argument its name
     * @return {@code value}
     */
    @CanIgnoreReturnValue
    public static int requirePositive(int value, String argument) {
        if (value < 1) {
            throw new InvalidArgumentException(argument, "must be at least 1, was " + value);
        }
        return value;
    }

    /**
     * Fails with an {@code InvalidArgumentException} when {@code value} is null, zero or negative.
     *
     * @param value the value to check
     * @param argument its name
     * @return {@code value}
     */
    @CanIgnoreReturnValue
    public static Duration requirePositive(Duration value, String argument) {
        requireNonNull(value, argument);
        if (value.isNegative() || value.isZero()) {
            throw new InvalidArgumentException(argument, "must be positive, was " + value);
        }
        return value;
    }

    /**
     * Fails with an {@code InvalidArgumentException} when {@code value} is null or negative.
     *
     * @param value the value to check
     * @param argument its name
     * @return {@code value}
     */
    @CanIgnoreReturnValue
    public static Duration requireNonNegative(Duration value, String argument) {
        requireNonNull(value, argument);
        if (value.isNegative()) {
            throw new InvalidArgumentException(argument, "must not be negative, was " + value);
        }
        return value;
    }
}
