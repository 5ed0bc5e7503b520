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

        /** @return a new array of {@code n} values of this type (never for {@link #PAYLOAD}) */
        private Object[] array(int n) {
            return switch (this) {
                case INT -> new Integer[n];
                case BIGINT -> new Long[n];
                case TEXT -> new String[n];
                case PAYLOAD -> throw new IllegalStateException("a payload column is not sent as an array");
            };
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

    /** @return the relation's name in the statement */
    String alias() {
        return alias;
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
     * Puts the relation's arguments for {@code rows}: one array per column, and for the payload
     * column the offsets, the lengths and the payload.
     *
     * @param rows the rows, in the order the relation returns them
     * @param arguments the values of one execution
     */
    void put(List<? extends E> rows, NamedStatement.Arguments arguments) {
        int n = rows.size();
        for (Column<E> c : columns) {
            if (c.type() == Type.PAYLOAD) {
                putPayload(c, rows, arguments);
                continue;
            }
            Object[] array = c.type().array(n);
            for (int r = 0; r < n; r++) {
                array[r] = c.type().java.cast(c.value().apply(rows.get(r)));
            }
            arguments.put(alias + "." + c.name(), array);
        }
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
        Integer[] offsets = new Integer[n];
        Integer[] lengths = new Integer[n];
        byte[] payloadBytes = new byte[(int) total];
        int at = 0;
        for (int r = 0; r < n; r++) {
            offsets[r] = at + 1;
            lengths[r] = values[r].length;
            System.arraycopy(values[r], 0, payloadBytes, at, values[r].length);
            at += values[r].length;
        }
        arguments.put(alias + ".off", offsets);
        arguments.put(alias + ".len", lengths);
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
