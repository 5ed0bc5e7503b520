package dev.durablestore.r2dbc.internal;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * Many rows of one kind sent to PostgreSQL as one array per column and read back as a relation by
 * {@code unnest}. Its one list of named columns gives both the statement's text ({@link #unnest}:
 * the markers, their casts and the relation's column names) and its arguments ({@link #put}: one
 * array per column, under the column's parameter name), so the two cannot drift apart: adding a
 * column is one line.
 *
 * <p>Each array travels as the text of its PostgreSQL array literal ({@code {1,2,NULL}},
 * {@code {"a","b\"c"}}), which the statement's cast ({@code $n::bigint[]}) reads with the same
 * array input function that reads an array parameter sent as text. That is how r2dbc-postgresql
 * sends an array parameter itself, but it builds each element's quoted text in a buffer of its own,
 * which grows by copies: a fifth of the JVM's time in a statement of 1,000 outbox rows.
 *
 * <p>A {@link Type#PAYLOAD} column (at most one per relation) is not sent as an array of
 * {@code bytea}, which the driver writes as hex digits one by one: the bytes of every row's value
 * travel end to end as one value ({@link PayloadForm}), and the relation carries each row's
 * offset ({@code off}, from 1) and length ({@code len}) into it, which {@link #value} cuts out
 * again.
 *
 * @param <E> one row as sent
 */
final class ArrayRelation<E> {

    /** A column's type: the SQL type of its array's elements and the Java type of its values. */
    enum Type {
        /** {@code int}, from {@link Integer} */
        INT("int", Integer.class),
        /** {@code bigint}, from {@link Long} */
        BIGINT("bigint", Long.class),
        /** {@code text}, from {@link String} */
        TEXT("text", String.class),
        /** bytes, from {@code byte[]}: sent as an offset and a length into the statement's payload */
        PAYLOAD("bytea", byte[].class);

        private final String sql;
        private final Class<?> java;

        Type(String sql, Class<?> java) {
            this.sql = sql;
            this.java = java;
        }

        /** @return the Java type of a value, for a typed SQL NULL */
        Class<?> javaType() {
            return java;
        }
    }

    /**
     * One column.
     *
     * @param name its name in the relation (and the suffix of its parameter's name)
     * @param type its type
     * @param value its value for one row; {@code null} is SQL NULL
     * @param <E> one row as sent
     */
    record Column<E>(String name, Type type, Function<? super E, ?> value) {}

    private final String alias;
    private final List<Column<E>> columns;
    private final Column<E> payload;

    private ArrayRelation(String alias, List<Column<E>> columns) {
        this.alias = alias;
        this.columns = List.copyOf(columns);
        Set<String> names = new HashSet<>();
        Column<E> found = null;
        for (Column<E> c : this.columns) {
            if (!names.add(c.name())) {
                throw new IllegalArgumentException("relation " + alias + " names column " + c.name() + " twice");
            }
            if (c.type() == Type.PAYLOAD) {
                if (found != null) {
                    throw new IllegalArgumentException("relation " + alias + " has two payload columns");
                }
                found = c;
            }
        }
        this.payload = found;
    }

    /**
     * @param alias the relation's name in the statement
     * @param <E> one row as sent
     * @return a builder of its columns
     */
    static <E> Builder<E> named(String alias) {
        return new Builder<>(alias);
    }

    /** Collects the columns of a relation, in order. */
    static final class Builder<E> {
        private final String alias;
        private final List<Column<E>> columns = new ArrayList<>();

        private Builder(String alias) {
            this.alias = alias;
        }

        /**
         * @param name the column's name
         * @param type its type
         * @param value its value for one row
         * @return this
         */
        Builder<E> column(String name, Type type, Function<? super E, ?> value) {
            columns.add(new Column<>(name, type, value));
            return this;
        }

        /**
         * @param more columns shared with other relations, appended in their order
         * @return this
         */
        Builder<E> columns(List<Column<E>> more) {
            columns.addAll(more);
            return this;
        }

        /** @return the relation */
        ArrayRelation<E> build() {
            return new ArrayRelation<>(alias, columns);
        }
    }

    /**
     * Declares the relation's parameters in {@code statement} (each named {@code alias.column},
     * the payload's offsets and lengths {@code alias.off} and {@code alias.len}).
     *
     * @param statement the statement being written
     * @return {@code unnest($i::type[], …) AS alias(column, …)}
     */
    String unnest(NamedStatement.Builder statement) {
        List<String> arrays = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (Column<E> c : columns) {
            if (c.type() == Type.PAYLOAD) {
                arrays.add(statement.marker(alias + ".off") + "::int[]");
                arrays.add(statement.marker(alias + ".len") + "::int[]");
                names.add("off");
                names.add("len");
            } else {
                arrays.add(statement.marker(alias + "." + c.name()) + "::" + c.type().sql + "[]");
                names.add(c.name());
            }
        }
        return "unnest(" + String.join(", ", arrays) + ") AS " + alias + "(" + String.join(", ", names) + ")";
    }

    /**
     * @param name a column of this relation
     * @param statement the statement being written
     * @return the expression of the column's value in a statement that reads this relation:
     *     {@code alias.name}, or for the payload column its cut of the payload
     */
    String value(String name, NamedStatement.Builder statement) {
        Column<E> c = column(name);
        if (c.type() != Type.PAYLOAD) {
            return alias + "." + name;
        }
        String bytes = statement.form().bytes(statement.marker(payloadParameter()));
        return "substring(" + bytes + " FROM " + alias + ".off FOR " + alias + ".len)";
    }

    /**
     * @param names columns of this relation
     * @param statement the statement being written
     * @return their {@linkplain #value values}, comma-separated, in the order given
     */
    String values(List<String> names, NamedStatement.Builder statement) {
        List<String> values = new ArrayList<>(names.size());
        for (String name : names) {
            values.add(value(name, statement));
        }
        return String.join(", ", values);
    }

    private Column<E> column(String name) {
        for (Column<E> c : columns) {
            if (c.name().equals(name)) {
                return c;
            }
        }
        throw new IllegalArgumentException("relation " + alias + " has no column " + name);
    }

    private String payloadParameter() {
        return alias + "." + payload.name();
    }

    /**
     * Puts the relation's arguments for {@code rows}: one array literal per column, and for the
     * payload column the offsets, the lengths and the payload.
     *
     * @param rows the rows, in the order the relation returns them
     * @param arguments the values of one execution
     */
    void put(List<? extends E> rows, NamedStatement.Arguments arguments) {
        for (Column<E> c : columns) {
            if (c.type() == Type.PAYLOAD) {
                putPayload(c, rows, arguments);
            } else {
                arguments.put(alias + "." + c.name(), literal(c, rows));
            }
        }
    }

    /**
     * @return the column's values as the text of a PostgreSQL array literal: numbers as they are,
     *     text always quoted with {@code "} and {@code \} escaped by a {@code \}, SQL NULL as
     *     {@code NULL} (unquoted)
     * @throws ClassCastException when a value is not of the column's type
     */
    private static <E> String literal(Column<E> c, List<? extends E> rows) {
        StringBuilder sb = new StringBuilder(2 + rows.size() * (c.type() == Type.TEXT ? 40 : 12));
        sb.append('{');
        for (int r = 0; r < rows.size(); r++) {
            if (r > 0) {
                sb.append(',');
            }
            Object v = c.type().java.cast(c.value().apply(rows.get(r)));
            if (v == null) {
                sb.append("NULL");
            } else if (v instanceof String text) {
                quoted(sb, text);
            } else {
                sb.append(((Number) v).longValue());
            }
        }
        return sb.append('}').toString();
    }

    private static void quoted(StringBuilder sb, String text) {
        sb.append('"');
        int from = 0;
        for (int i = 0; i < text.length(); i++) {
            char ch = text.charAt(i);
            if (ch == '"' || ch == '\\') {
                sb.append(text, from, i).append('\\');
                from = i; // the character itself starts the next run
            }
        }
        sb.append(text, from, text.length()).append('"');
    }

    private void putPayload(Column<E> c, List<? extends E> rows, NamedStatement.Arguments arguments) {
        int n = rows.size();
        byte[][] values = new byte[n][];
        long total = 0;
        for (int r = 0; r < n; r++) {
            values[r] = (byte[]) c.value().apply(rows.get(r));
            total += values[r].length;
        }
        if (total > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException(
                    "relation " + alias + ": " + total + " payload bytes do not fit one statement");
        }
        StringBuilder offsets = new StringBuilder(2 + n * 8).append('{');
        StringBuilder lengths = new StringBuilder(2 + n * 5).append('{');
        byte[] payloadBytes = new byte[(int) total];
        int at = 0;
        for (int r = 0; r < n; r++) {
            if (r > 0) {
                offsets.append(',');
                lengths.append(',');
            }
            offsets.append(at + 1);
            lengths.append(values[r].length);
            System.arraycopy(values[r], 0, payloadBytes, at, values[r].length);
            at += values[r].length;
        }
        arguments.put(alias + ".off", offsets.append('}').toString());
        arguments.put(alias + ".len", lengths.append('}').toString());
        arguments.putPayload(payloadParameter(), payloadBytes);
    }

    /**
     * @param row one row
     * @return its values as bound one row per execution (no arrays): in column order, a typed
     *     {@link Sql.Null} for NULL, the payload column's bytes as they are
     */
    Object[] row(E row) {
        Object[] values = new Object[columns.size()];
        for (int i = 0; i < values.length; i++) {
            Column<E> c = columns.get(i);
            Object v = c.value().apply(row);
            values[i] = v == null ? new Sql.Null(c.type().javaType()) : v;
        }
        return values;
    }

    /** @return the names of the columns, in order */
    List<String> names() {
        List<String> names = new ArrayList<>(columns.size());
        for (Column<E> c : columns) {
            names.add(c.name());
        }
        return names;
    }
}
