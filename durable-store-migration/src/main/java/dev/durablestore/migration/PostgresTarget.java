package dev.durablestore.migration;

import dev.durablestore.migration.Table.Column;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.Readable;
import io.r2dbc.spi.Result;
import io.r2dbc.spi.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import java.util.function.Function;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The PostgreSQL database a migration writes to, over one R2DBC connection: the marker of the
 * migration, the batches of rows and the reads of the verification. SQL is bound by position
 * ({@code $n}).
 *
 * <p>The marker table, {@code durable_store_migration}, holds one row naming the source being
 * copied: its file, its schema version and the fingerprint of its content. A later run of the same
 * source finds it and resumes; a run of another source is refused.
 */
final class PostgresTarget {

    /** The most parameters one PostgreSQL statement takes (the protocol counts them in 16 bits). */
    static final int MAX_PARAMETERS = 65_535;

    static final String MARKER_TABLE = "durable_store_migration";

    private static final String CREATE_MARKER = "CREATE TABLE IF NOT EXISTS " + MARKER_TABLE
            + " (source TEXT NOT NULL, source_schema_version INTEGER NOT NULL, source_fingerprint TEXT NOT NULL,"
            + " started_at BIGINT NOT NULL, completed_at BIGINT)";

    /** G6: one advisory lock per schema, keyed by the schema and the marker table's names. */
    static final String LOCK = "SELECT pg_try_advisory_lock(hashtext(current_schema() || '." + MARKER_TABLE + "'))";

    private final Connection connection;

    PostgresTarget(Connection connection) {
        this.connection = connection;
    }

    /**
     * The source a migration recorded on this database.
     *
     * @param source the source file, absolute
     * @param schemaVersion its schema version
     * @param fingerprint the fingerprint of its content
     * @param completed whether a run verified the copy
     */
    record Marker(String source, int schemaVersion, String fingerprint, boolean completed) {

        /**
         * @param other another marker
         * @return true when both name the same source, version and content
         */
        boolean sameSource(Marker other) {
            return source.equals(other.source)
                    && schemaVersion == other.schemaVersion
                    && fingerprint.equals(other.fingerprint);
        }

        @Override
        public String toString() {
            return "SQLite file " + source + " (schema version " + schemaVersion + ", fingerprint " + fingerprint + ")";
        }
    }

    /** @return the recorded marker, empty when no migration ever started here */
    Mono<Marker> marker() {
        return query("SELECT to_regclass('" + MARKER_TABLE + "') IS NOT NULL", r -> r.get(0, Boolean.class))
                .next()
                .flatMap(exists -> exists
                        ? query(
                                        "SELECT source, source_schema_version, source_fingerprint, completed_at"
                                                + " FROM " + MARKER_TABLE,
                                        r -> new Marker(
                                                r.get(0, String.class),
                                                r.get(1, Integer.class),
                                                r.get(2, String.class),
                                                r.get(3, Long.class) != null))
                                .next()
                        : Mono.empty());
    }

    /**
     * @return the tables that exist and hold at least one row, in copy order (one cheap probe
     *     each, never a count)
     */
    Mono<List<Table>> tablesWithRows() {
        return Flux.fromArray(Table.values())
                .concatMap(t -> query(
                                "SELECT to_regclass('" + t.sqlName() + "') IS NOT NULL", r -> r.get(0, Boolean.class))
                        .next()
                        .flatMap(exists -> exists
                                ? query(
                                                "SELECT EXISTS (SELECT 1 FROM " + t.sqlName() + ")",
                                                r -> r.get(0, Boolean.class))
                                        .next()
                                : Mono.just(false))
                        .filter(Boolean::booleanValue)
                        .map(yes -> t))
                .collectList();
    }

    /**
     * Records the source in a new marker table, before the first row is copied.
     *
     * @param marker the source
     * @param startedAt now, epoch nanoseconds
     * @return completes when committed
     */
    Mono<Void> recordMarker(Marker marker, long startedAt) {
        Mono<Void> insert = Mono.defer(() -> Flux.from(connection
                        .createStatement("INSERT INTO " + MARKER_TABLE
                                + " (source, source_schema_version, source_fingerprint, started_at)"
                                + " VALUES ($1, $2, $3, $4)")
                        .bind(0, marker.source())
                        .bind(1, marker.schemaVersion())
                        .bind(2, marker.fingerprint())
                        .bind(3, startedAt)
                        .execute())
                .concatMap(Result::getRowsUpdated)
                .then());
        return transaction(execute(CREATE_MARKER)
                .then(execute("DELETE FROM " + MARKER_TABLE))
                .then(insert));
    }

    /**
     * @param completedAt now, epoch nanoseconds
     * @return completes when the marker records a verified copy
     */
    Mono<Void> markCompleted(long completedAt) {
        return execute("UPDATE " + MARKER_TABLE + " SET completed_at = " + completedAt);
    }

    /**
     * @param table a table
     * @return the key of its last row in copy order, empty when it has none
     */
    Mono<Object[]> lastKey(Table table) {
        String order = String.join(" DESC, ", table.key()) + " DESC";
        List<Column> keyColumns = table.columns().subList(0, table.key().size());
        return query(
                        "SELECT " + table.keyList() + " FROM " + table.sqlName() + " ORDER BY " + order + " LIMIT 1",
                        r -> {
                            Object[] key = new Object[keyColumns.size()];
                            for (int i = 0; i < key.length; i++) {
                                key[i] = r.get(i, keyColumns.get(i).type().javaType());
                            }
                            return key;
                        })
                .next();
    }

    /**
     * @param table a table
     * @return its rows
     */
    Mono<Long> count(Table table) {
        return query("SELECT count(*) FROM " + table.sqlName(), r -> r.get(0, Long.class))
                .next();
    }

    /**
     * Inserts rows in one transaction; a row whose key is there already is left as it is (a batch
     * half-copied by an interrupted run).
     *
     * @param table the table
     * @param rows the rows, as {@link SqliteSource#batch} reads them
     * @return the rows inserted
     */
    Mono<Long> insert(Table table, List<Object[]> rows) {
        List<Column> columns = table.columns();
        int perStatement = MAX_PARAMETERS / columns.size();
        List<Mono<Long>> statements = new ArrayList<>();
        for (int from = 0; from < rows.size(); from += perStatement) {
            List<Object[]> part = rows.subList(from, Math.min(rows.size(), from + perStatement));
            statements.add(
                    Mono.defer(() -> Flux.from(insertStatement(table, part).execute())
                            .concatMap(Result::getRowsUpdated)
                            .reduce(0L, Long::sum)));
        }
        return transaction(Flux.concat(statements).reduce(0L, Long::sum));
    }

    private Statement insertStatement(Table table, List<Object[]> rows) {
        List<Column> columns = table.columns();
        StringBuilder sql = new StringBuilder("INSERT INTO ")
                .append(table.sqlName())
                .append(" (")
                .append(table.columnList())
                .append(") VALUES ");
        int n = 1;
        for (int r = 0; r < rows.size(); r++) {
            sql.append(r == 0 ? "(" : ", (");
            for (int c = 0; c < columns.size(); c++) {
                sql.append(c == 0 ? "$" : ", $").append(n++);
            }
            sql.append(')');
        }
        sql.append(" ON CONFLICT DO NOTHING");
        Statement s = connection.createStatement(sql.toString());
        int i = 0;
        for (Object[] row : rows) {
            for (int c = 0; c < columns.size(); c++) {
                if (row[c] == null) {
                    s.bindNull(i++, columns.get(c).type().javaType());
                } else {
                    s.bind(i++, row[c]);
                }
            }
        }
        return s;
    }

    /**
     * Every history's summary, computed by the server.
     *
     * @param each receives each workflow id and its digest
     * @return completes when every history was given
     */
    Mono<Void> histories(BiConsumer<String, HistoryDigest> each) {
        return query(
                        "SELECT workflow_id, count(*), max(seq), " + HistoryDigest.POSTGRES_CHECKSUM
                                + " FROM events GROUP BY workflow_id",
                        r -> {
                            each.accept(
                                    r.get(0, String.class),
                                    new HistoryDigest(
                                            r.get(1, Long.class), r.get(2, Long.class), r.get(3, byte[].class)));
                            return Boolean.TRUE;
                        })
                .then();
    }

    /** @return the outbox rows of each status, by status */
    Mono<Map<String, Long>> outboxByStatus() {
        return query(
                        "SELECT status, count(*) FROM outbox GROUP BY status",
                        r -> Map.entry(r.get(0, String.class), r.get(1, Long.class)))
                .collectMap(Map.Entry::getKey, Map.Entry::getValue, TreeMap::new)
                .map(m -> (Map<String, Long>) m);
    }

    /** @return the rows of each table, in copy order */
    Mono<Map<Table, Long>> counts() {
        return Flux.fromArray(Table.values())
                .concatMap(t -> count(t).map(n -> Map.entry(t, n)))
                .collectMap(Map.Entry::getKey, Map.Entry::getValue, LinkedHashMap::new)
                .map(m -> (Map<Table, Long>) m);
    }

    /**
     * G6: takes the session's advisory lock on the target schema's migrations, held until the
     * connection closes, so two migrations into one schema never run at once.
     *
     * @return true when taken, false when another session holds it
     */
    Mono<Boolean> tryLock() {
        return query(LOCK, r -> r.get(0, Boolean.class)).next();
    }

    private <T> Flux<T> query(String sql, Function<Readable, T> mapper) {
        return Flux.defer(() -> Flux.from(connection.createStatement(sql).execute()))
                .concatMap(result -> result.map(mapper));
    }

    private Mono<Void> execute(String sql) {
        return Flux.defer(() -> Flux.from(connection.createStatement(sql).execute()))
                .concatMap(Result::getRowsUpdated)
                .then();
    }

    private <T> Mono<T> transaction(Mono<T> work) {
        return Mono.from(connection.beginTransaction())
                .then(work)
                .flatMap(v -> Mono.from(connection.commitTransaction()).thenReturn(v))
                .switchIfEmpty(Mono.defer(
                        () -> Mono.from(connection.commitTransaction()).then(Mono.empty())))
                .onErrorResume(e -> Mono.from(connection.rollbackTransaction())
                        .onErrorResume(x -> Mono.empty())
                        .then(Mono.error(e)));
    }
}
