package dev.durablestore.r2dbc.internal;

import io.r2dbc.spi.Connection;
import io.r2dbc.spi.Result;
import io.r2dbc.spi.Row;
import io.r2dbc.spi.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Function;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Statement helpers over the R2DBC SPI: positional {@code $n} binding with typed NULLs, update
 * counts, and row mapping. A {@link Row} is only valid inside its mapping callback, so every mapper
 * copies the columns it needs into a plain value there.
 */
final class Sql {

    /** A typed SQL NULL for a bind position (drivers need the type of a NULL parameter). */
    record Null(Class<?> type) {}

    static final Null NULL_TEXT = new Null(String.class);
    static final Null NULL_BIGINT = new Null(Long.class);

    private static final HexFormat HEX = HexFormat.of();

    private Sql() {}

    /**
     * @param value a string or {@code null}
     * @return the value, or a typed text NULL
     */
    static Object text(String value) {
        return value == null ? NULL_TEXT : value;
    }

    /**
     * @param value a number or {@code null}
     * @return the value, or a typed bigint NULL
     */
    static Object bigint(Long value) {
        return value == null ? NULL_BIGINT : value;
    }

    /**
     * Builds SQL with {@code $n} markers while collecting their values, for statements whose shape
     * depends on the arguments (IN lists, optional filters).
     */
    static final class Params {
        private final List<Object> values = new ArrayList<>();

        /**
         * @param value the value to bind
         * @return its marker
         */
        String add(Object value) {
            values.add(value);
            return "$" + values.size();
        }

        /**
         * @param items values for an IN list; must not be empty
         * @return {@code ($i, $j, …)}
         */
        String list(Collection<?> items) {
            StringBuilder sb = new StringBuilder("(");
            for (Object item : items) {
                if (sb.length() > 1) {
                    sb.append(", ");
                }
                sb.append(add(item));
            }
            return sb.append(')').toString();
        }

        Object[] values() {
            return values.toArray();
        }
    }

    /**
     * @param c a connection
     * @param sql the statement
     * @param args positional values ({@link Null} for NULL)
     * @return the statement with its values bound
     */
    static Statement statement(Connection c, String sql, Object... args) {
        Statement s = c.createStatement(sql);
        bind(s, args);
        return s;
    }

    static void bind(Statement s, Object... args) {
        for (int i = 0; i < args.length; i++) {
            Object arg = args[i];
            if (arg instanceof Null n) {
                s.bindNull(i, n.type());
            } else {
                s.bind(i, arg);
            }
        }
    }

    /**
     * @param c a connection
     * @param sql a DML statement
     * @param args positional values
     * @return the number of rows it changed
     */
    static Mono<Long> update(Connection c, String sql, Object... args) {
        return Flux.from(statement(c, sql, args).execute())
                .concatMap(Result::getRowsUpdated)
                .reduce(0L, Long::sum);
    }

    /**
     * Runs a statement once per binding row (one {@code add()} per row) and sums the counts.
     *
     * @param c a connection
     * @param sql a DML statement
     * @param rows the values of each execution
     * @return the number of rows changed by all executions
     */
    static Mono<Long> updateEach(Connection c, String sql, List<Object[]> rows) {
        if (rows.isEmpty()) {
            return Mono.just(0L);
        }
        Statement s = c.createStatement(sql);
        for (int i = 0; i < rows.size(); i++) {
            if (i > 0) {
                s.add();
            }
            bind(s, rows.get(i));
        }
        return Flux.from(s.execute()).concatMap(Result::getRowsUpdated).reduce(0L, Long::sum);
    }

    /**
     * @param c a connection
     * @param sql a query (or a statement returning rows)
     * @param mapper copies one row into a value
     * @param args positional values
     * @param <T> the value type
     * @return the mapped rows in result order
     */
    static <T> Flux<T> query(Connection c, String sql, Function<Row, T> mapper, Object... args) {
        return Flux.from(statement(c, sql, args).execute())
                .concatMap(result -> result.map((row, meta) -> mapper.apply(row)));
    }

    /**
     * @param row a row
     * @param index a column
     * @return the column as a long, or {@code null} for SQL NULL
     */
    static Long longAt(Row row, int index) {
        Object v = row.get(index);
        return v == null ? null : ((Number) v).longValue();
    }

    /**
     * @param row a row
     * @param index a column
     * @return the column as text
     */
    static String textAt(Row row, int index) {
        return row.get(index, String.class);
    }

    /**
     * @param row a row
     * @param index a text column of hex digits (PostgreSQL's {@code encode(…, 'hex')})
     * @return the bytes they spell, or {@code null}
     */
    static byte[] hexAt(Row row, int index) {
        String hex = row.get(index, String.class);
        return hex == null ? null : HEX.parseHex(hex);
    }

    /**
     * @param row a row
     * @param index a column
     * @return the column's bytes, or {@code null}
     */
    static byte[] bytesAt(Row row, int index) {
        Object v = row.get(index);
        if (v == null) {
            return null;
        }
        if (v instanceof byte[] bytes) {
            return bytes;
        }
        if (v instanceof java.nio.ByteBuffer buffer) {
            byte[] bytes = new byte[buffer.remaining()];
            buffer.duplicate().get(bytes);
            return bytes;
        }
        return row.get(index, byte[].class);
    }
}
