package dev.durablestore.migration;

import java.util.List;
import java.util.stream.Collectors;

/**
 * The tables a migration copies, each with every column it carries, in one place: the reads of the
 * SQLite file, the writes to PostgreSQL and the drift guard (a test that fails when either backend's
 * schema has a column this list does not) all take their column lists from here.
 *
 * <p>Both backends name the tables and columns alike; only the storage types differ (SQLite
 * {@code INTEGER}, {@code TEXT} and {@code BLOB}; PostgreSQL {@code BIGINT} or {@code INTEGER},
 * {@code TEXT} and {@code BYTEA}), which {@link ColumnType} maps. Timestamps are epoch nanoseconds
 * in both (S10) and are copied as they are.
 */
enum Table {
    /** Every event of every history (run chains are events too), keyed by workflow and sequence. */
    EVENTS(
            List.of("workflow_id", "seq"),
            List.of(
                    new Column("workflow_id", ColumnType.TEXT, false),
                    new Column("seq", ColumnType.BIGINT, false),
                    new Column("event", ColumnType.BYTES, false),
                    new Column("recorded_at", ColumnType.BIGINT, false),
                    new Column("kind", ColumnType.TEXT, false),
                    new Column("queryable", ColumnType.INTEGER, false),
                    new Column("workflow_type", ColumnType.TEXT, true),
                    new Column("child_workflow_id", ColumnType.TEXT, true))),
    /** Every armed timer. */
    TIMERS(
            List.of("workflow_id", "timer_id"),
            List.of(
                    new Column("workflow_id", ColumnType.TEXT, false),
                    new Column("timer_id", ColumnType.TEXT, false),
                    new Column("fire_at", ColumnType.BIGINT, false))),
    /** Every outbox row, in whatever status, with its claim, route, priority and failures. */
    OUTBOX(
            List.of("dispatch_key"),
            List.of(
                    new Column("dispatch_key", ColumnType.TEXT, false),
                    new Column("workflow_id", ColumnType.TEXT, false),
                    new Column("ordinal", ColumnType.BIGINT, false),
                    new Column("activity_type", ColumnType.TEXT, false),
                    new Column("input", ColumnType.BYTES, false),
                    new Column("status", ColumnType.TEXT, false),
                    new Column("attempt", ColumnType.BIGINT, false),
                    new Column("visible_after", ColumnType.BIGINT, false),
                    new Column("claimed_at", ColumnType.BIGINT, true),
                    new Column("run_id", ColumnType.TEXT, true),
                    new Column("namespace", ColumnType.TEXT, true),
                    new Column("task_queue", ColumnType.TEXT, true),
                    new Column("node", ColumnType.TEXT, true),
                    new Column("settled_at", ColumnType.BIGINT, true),
                    new Column("claim_token", ColumnType.BIGINT, true),
                    new Column("trace_context", ColumnType.TEXT, true),
                    new Column("priority", ColumnType.INTEGER, false),
                    new Column("claimed_by", ColumnType.TEXT, true),
                    new Column("failures", ColumnType.TEXT, true)));

    /** How a column's values are read, bound and compared. */
    enum ColumnType {
        /** Text: SQLite {@code TEXT}, PostgreSQL {@code text}. */
        TEXT("text"),
        /** A 32-bit integer: SQLite {@code INTEGER}, PostgreSQL {@code integer}. */
        INTEGER("integer"),
        /** A 64-bit integer: SQLite {@code INTEGER}, PostgreSQL {@code bigint}. */
        BIGINT("bigint"),
        /** Bytes: SQLite {@code BLOB}, PostgreSQL {@code bytea}. */
        BYTES("bytea");

        private final String postgresType;

        ColumnType(String postgresType) {
            this.postgresType = postgresType;
        }

        /** @return the type PostgreSQL's {@code information_schema.columns.data_type} names */
        String postgresType() {
            return postgresType;
        }

        /** @return the Java type values of this column are read and bound as */
        Class<?> javaType() {
            return switch (this) {
                case TEXT -> String.class;
                case INTEGER -> Integer.class;
                case BIGINT -> Long.class;
                case BYTES -> byte[].class;
            };
        }
    }

    /**
     * One column.
     *
     * @param name its name in both backends
     * @param type its type
     * @param nullable whether it may hold SQL NULL
     */
    record Column(String name, ColumnType type, boolean nullable) {}

    private final List<String> key;
    private final List<Column> columns;

    Table(List<String> key, List<Column> columns) {
        this.key = key;
        this.columns = columns;
    }

    /** @return the table's name in both backends */
    String sqlName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** @return the primary key's columns, in the order rows are copied (keyset order) */
    List<String> key() {
        return key;
    }

    /** @return every column, the key's first */
    List<Column> columns() {
        return columns;
    }

    /** @return the column names, comma separated */
    String columnList() {
        return columns.stream().map(Column::name).collect(Collectors.joining(", "));
    }

    /** @return the key columns, comma separated */
    String keyList() {
        return String.join(", ", key);
    }

    /** @return the key as a row value, for keyset comparisons: {@code (a, b)} or {@code a} */
    String keyRow() {
        return key.size() == 1 ? key.get(0) : "(" + keyList() + ")";
    }
}
