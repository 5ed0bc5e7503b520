package dev.durablestore.r2dbc.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A statement whose parameters have names. Its text is written through a {@link Builder}, whose
 * {@link Builder#marker} gives each name its {@code $n} the first time the text uses it; the values
 * of one execution are given by name ({@link Arguments}) and {@link #bind} puts them in marker
 * order. No value is bound at a position counted by hand, and a parameter left without a value, or
 * a value for a parameter the text does not have, fails loudly instead of shifting the others.
 */
final class NamedStatement {

    private final String sql;
    private final List<String> names;
    private final PayloadForm form;

    private NamedStatement(String sql, List<String> names, PayloadForm form) {
        this.sql = sql;
        this.names = List.copyOf(names);
        this.form = form;
    }

    /**
     * @param form how the statement's payloads travel
     * @return a builder of the statement's text
     */
    static Builder builder(PayloadForm form) {
        return new Builder(form);
    }

    /** Numbers the parameters of a statement's text as the text uses them. */
    static final class Builder {
        private final PayloadForm form;
        private final Map<String, Integer> numbers = new LinkedHashMap<>();

        private Builder(PayloadForm form) {
            this.form = form;
        }

        /**
         * @param name a parameter's name
         * @return its marker, {@code $n}: the same for every use of the name
         */
        String marker(String name) {
            return "$" + numbers.computeIfAbsent(name, n -> numbers.size() + 1);
        }

        /** @return how the statement's payloads travel */
        PayloadForm form() {
            return form;
        }

        /**
         * @param sql the text, written with this builder's markers
         * @return the statement
         */
        NamedStatement build(String sql) {
            return new NamedStatement(sql, new ArrayList<>(numbers.keySet()), form);
        }
    }

    /** @return the text */
    String sql() {
        return sql;
    }

    /**
     * @param arguments the values of one execution, by name
     * @return the values in marker order, payloads in this statement's form
     * @throws IllegalStateException naming a parameter without a value or a value of no parameter
     */
    Object[] bind(Arguments arguments) {
        if (arguments.values.size() != names.size()) {
            List<String> unknown = new ArrayList<>(arguments.values.keySet());
            unknown.removeAll(names);
            if (!unknown.isEmpty()) {
                throw new IllegalStateException("the statement has no parameter " + unknown + ": " + sql);
            }
        }
        Object[] values = new Object[names.size()];
        for (int i = 0; i < values.length; i++) {
            String name = names.get(i);
            if (!arguments.values.containsKey(name)) {
                throw new IllegalStateException("parameter " + name + " ($" + (i + 1) + ") has no value: " + sql);
            }
            Object value = arguments.values.get(name);
            if (value instanceof Payload p) {
                if (form == PayloadForm.TEXT && !p.ascii()) {
                    throw new IllegalStateException("payload " + name + " is not ASCII and cannot travel as text");
                }
                value = form.value(p.bytes());
            }
            values[i] = value;
        }
        return values;
    }

    /** A payload's bytes, and whether they can travel as text. */
    private record Payload(byte[] bytes, boolean ascii) {}

    /** The values of one execution, by parameter name. */
    static final class Arguments {
        private final Map<String, Object> values = new HashMap<>();

        /**
         * @param name a parameter's name
         * @param value its value (an array, or a scalar)
         * @throws IllegalStateException when the name has a value already
         */
        void put(String name, Object value) {
            if (values.putIfAbsent(name, Objects.requireNonNull(value, name)) != null) {
                throw new IllegalStateException("parameter " + name + " is given twice");
            }
        }

        /**
         * @param name a payload parameter's name
         * @param bytes its bytes, bound in the form of the statement chosen ({@link #form})
         */
        void putPayload(String name, byte[] bytes) {
            put(name, new Payload(bytes, PayloadForm.ascii(bytes)));
        }

        /** @return {@link PayloadForm#TEXT} when every payload is ASCII, else {@link PayloadForm#BYTEA} */
        PayloadForm form() {
            for (Object v : values.values()) {
                if (v instanceof Payload p && !p.ascii()) {
                    return PayloadForm.BYTEA;
                }
            }
            return PayloadForm.TEXT;
        }
    }
}
