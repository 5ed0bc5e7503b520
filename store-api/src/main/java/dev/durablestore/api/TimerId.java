package dev.durablestore.api;

/**
 * Identifies a timer within a workflow (M5): either {@link Named} with a non-empty name, or
 * {@link Anonymous} with a sequence position. Two ids are equal only when variant and value are
 * equal ({@code Named("3")} differs from {@code Anonymous(3)}).
 */
public sealed interface TimerId permits TimerId.Named, TimerId.Anonymous {

    /**
     * @return {@code timer:named:<name>} or {@code timer:anonymous:<position>}; stores order timers by
     *     this text (T4)
     */
    String canonicalText();

    /**
     * @param name a non-empty name
     * @return a named timer id
     * @throws InvalidArgumentException when {@code name} is null or empty
     */
    static TimerId named(String name) {
        return new Named(name);
    }

    /**
     * @param position a non-negative sequence position
     * @return an anonymous timer id
     */
    static TimerId anonymous(long position) {
        return new Anonymous(position);
    }

    /**
     * Parses the canonical text produced by {@link #canonicalText()}.
     *
     * @param text {@code timer:named:<name>} or {@code timer:anonymous:<decimal>}
     * @return the timer id
     * @throws InvalidArgumentException when the text is not canonical
     */
    static TimerId parse(String text) {
        InvalidArgumentException.requireNonNull(text, "timerId");
        if (text.startsWith(Named.PREFIX)) {
            return new Named(text.substring(Named.PREFIX.length()));
        }
        if (text.startsWith(Anonymous.PREFIX)) {
            String digits = text.substring(Anonymous.PREFIX.length());
            if (!digits.isEmpty() && digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
                try {
                    return new Anonymous(Long.parseLong(digits));
                } catch (NumberFormatException e) {
                    // falls through to the error below
                }
            }
        }
        throw new InvalidArgumentException("timerId", "not a canonical timer id: '" + text + "'");
    }

    /**
     * A timer the workflow named.
     *
     * @param name the non-empty name
     */
    record Named(String name) implements TimerId {
        static final String PREFIX = "timer:named:";
        /**
         * Validates the components (see the record's description).
         *
         * @param name the non-empty name
         */
        public Named {
            InvalidArgumentException.requireNonEmpty(name, "name");
        }

        @Override
        public String canonicalText() {
            return PREFIX + name;
        }

        @Override
        public String toString() {
            return canonicalText();
        }
    }

    /**
     * A timer identified by the sequence position that started it.
     *
     * @param position the non-negative position
     */
    record Anonymous(long position) implements TimerId {
        static final String PREFIX = "timer:anonymous:";
        /**
         * Validates the components (see the record's description).
         *
         * @param position the non-negative position
         */
        public Anonymous {
            InvalidArgumentException.requireNonNegative(position, "position");
        }

        @Override
        public String canonicalText() {
            return PREFIX + position;
        }

        @Override
        public String toString() {
            return canonicalText();
        }
    }
}
