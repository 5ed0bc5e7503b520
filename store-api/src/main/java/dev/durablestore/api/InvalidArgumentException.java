package dev.durablestore.api;

import com.google.errorprone.annotations.CanIgnoreReturnValue;

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

    /**
     * @param argument the name of the offending argument (or {@code argument.field})
     * @param problem what is wrong with it
     */
    public InvalidArgumentException(String argument, String problem) {
        super("invalid argument '" + argument + "': " + problem, null);
        this.argument = argument;
    }

    /** @return the name of the offending argument */
    public String argument() {
        return argument;
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
}
