package dev.durablestore.api.event;

import dev.durablestore.api.InvalidArgumentException;
import java.time.Instant;
import java.util.List;

/** A typed search attribute value (M19). */
public sealed interface SearchAttributeValue {

    /** The type of a search attribute value. */
    enum Type {
        /** {@link StringValue}. */
        STRING,
        /** {@link IntValue}. */
        INT,
        /** {@link FloatValue}. */
        FLOAT,
        /** {@link BoolValue}. */
        BOOL,
        /** {@link DatetimeValue}. */
        DATETIME,
        /** {@link KeywordListValue}. */
        KEYWORD_LIST
    }

    /** @return the type of this value */
    Type type();

    /**
     * @param value a string
     * @return the value
     */
    static SearchAttributeValue of(String value) {
        return new StringValue(value);
    }

    /**
     * @param value a signed 64-bit integer
     * @return the value
     */
    static SearchAttributeValue of(long value) {
        return new IntValue(value);
    }

    /**
     * @param value a 64-bit float
     * @return the value
     */
    static SearchAttributeValue of(double value) {
        return new FloatValue(value);
    }

    /**
     * @param value a boolean
     * @return the value
     */
    static SearchAttributeValue of(boolean value) {
        return new BoolValue(value);
    }

    /**
     * @param value a UTC instant
     * @return the value
     */
    static SearchAttributeValue of(Instant value) {
        return new DatetimeValue(value);
    }

    /**
     * @param value a list of keywords
     * @return the value
     */
    static SearchAttributeValue of(List<String> value) {
        return new KeywordListValue(value);
    }

    /** @param value the string */
    record StringValue(String value) implements SearchAttributeValue {
        /**
         * Validates the components (see the record's description).
         *
         * @param value see the record component
         */
        public StringValue {
            InvalidArgumentException.requireNonNull(value, "value");
        }

        @Override
        public Type type() {
            return Type.STRING;
        }
    }

    /** @param value the signed 64-bit integer */
    record IntValue(long value) implements SearchAttributeValue {
        @Override
        public Type type() {
            return Type.INT;
        }
    }

    /** @param value the 64-bit float */
    record FloatValue(double value) implements SearchAttributeValue {
        @Override
        public Type type() {
            return Type.FLOAT;
        }
    }

    /** @param value the boolean */
    record BoolValue(boolean value) implements SearchAttributeValue {
        @Override
        public Type type() {
            return Type.BOOL;
        }
    }

    /** @param value the UTC instant */
    record DatetimeValue(Instant value) implements SearchAttributeValue {
        /**
         * Validates the components (see the record's description).
         *
         * @param value see the record component
         */
        public DatetimeValue {
            InvalidArgumentException.requireNonNull(value, "value");
        }

        @Override
        public Type type() {
            return Type.DATETIME;
        }
    }

    /** @param value the keywords (copied) */
    record KeywordListValue(List<String> value) implements SearchAttributeValue {
        /**
         * Validates the components (see the record's description).
         *
         * @param value see the record component
         */
        public KeywordListValue {
            InvalidArgumentException.requireNonNull(value, "value");
            value = Copies.list(value, "value");
        }

        @Override
        public Type type() {
            return Type.KEYWORD_LIST;
        }
    }
}
