package dev.durablestore.r2dbc.internal;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.core.storage.SchemaVersion;
import io.r2dbc.spi.Batch;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.Result;
import java.util.ArrayList;
import java.util.List;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Creates the tables and indexes idempotently (S1–S6) in one transaction, and migrates older
 * outbox tables by adding missing columns and rewriting legacy NULL routes to {@code 'default'}
 * (S7–S9). Every timestamp column holds epoch nanoseconds as {@code BIGINT} (S10); payloads are
 * {@code BYTEA}. On PostgreSQL an advisory lock makes nodes that open at the same moment apply the
 * schema one after another.
 *
 * <p>The database records its schema version in the one row of {@code durable_store_schema}
 * (databases from before versions were recorded have no such table, and read as version 0); one
 * that records a newer version than this library's is refused before anything is written to it
 * (S29, {@link SchemaVersion}). On H2 it first checks that the database speaks PostgreSQL's SQL.
 */
final class Schema {

    /**
     * H2's compatibility mode (H2 2.x: {@code REGULAR} unless the URL or {@code SET MODE} chose
     * another). Every statement of the store, the schema's {@code INSERT … ON CONFLICT DO NOTHING}
     * among them, is PostgreSQL's SQL, which H2 only accepts in {@code MODE=PostgreSQL}.
     */
    private static final String H2_MODE =
            "SELECT SETTING_VALUE FROM INFORMATION_SCHEMA.SETTINGS WHERE SETTING_NAME = 'MODE'";

    /** The mode {@link #H2_MODE} reads when the store can work on the database. */
    private static final String H2_POSTGRES_MODE = "PostgreSQL";

    /**
     * The table of the schema version, kept in every later version. Creating it when it exists
     * writes nothing, so it can run before the version is checked.
     */
    private static final String VERSION_TABLE =
            "CREATE TABLE IF NOT EXISTS durable_store_schema (version INTEGER NOT NULL)";

    /**
     * The recorded version: SQL NULL (read as 0) when the table has no row. The largest, because
     * first opens racing on H2, which has no schema lock, may each insert the row.
     */
    private static final String READ_VERSION = "SELECT MAX(version) FROM durable_store_schema";

    /** Columns added after the first outbox version, in the order they are added (S7). */
    private static final List<String[]> OUTBOX_COLUMNS = List.of(
            new String[] {"claimed_at", "BIGINT"},
            new String[] {"run_id", null},
            new String[] {"namespace", null},
            new String[] {"task_queue", null},
            new String[] {"node", null},
            new String[] {"settled_at", "BIGINT"},
            new String[] {"claim_token", "BIGINT"},
            new String[] {"trace_context", null},
            // O62: a constant default, so adding it rewrites no row (PostgreSQL 11+) and old rows read 0
            new String[] {"priority", "INTEGER NOT NULL DEFAULT 0"},
            // O65: the node of the claim that took the row (NULL for none, and in old rows), so
            // node-capped claims can count what a node holds; nullable without a default, so adding
            // it rewrites no row; not indexed, read only beside outbox_claimed
            new String[] {"claimed_by", null},
            // O66: the row's last failed attempts as a JSON array (FailureHistory), NULL for none and
            // in old rows; nullable without a default, so adding it rewrites no row; schema version 2
            new String[] {"failures", null});

    private Schema() {}

    /**
     * @param dialect the dialect
     * @return every statement, in order
     */
    static List<String> statements(SqlDialect dialect) {
        String text = dialect.text();
        List<String> all = new ArrayList<>();
        all.add("CREATE TABLE IF NOT EXISTS events ("
                + "workflow_id " + text + " NOT NULL, "
                + "seq BIGINT NOT NULL, "
                + "event BYTEA NOT NULL, "
                + "recorded_at BIGINT NOT NULL, "
                + "kind " + text + " NOT NULL, "
                + "queryable INTEGER NOT NULL, "
                + "workflow_type " + text + ", "
                + "child_workflow_id " + text + ", "
                + "PRIMARY KEY (workflow_id, seq))");
        all.add("CREATE TABLE IF NOT EXISTS timers ("
                + "workflow_id " + text + " NOT NULL, "
                + "timer_id " + text + " NOT NULL, "
                + "fire_at BIGINT NOT NULL, "
                + "PRIMARY KEY (workflow_id, timer_id))");
        all.add("CREATE TABLE IF NOT EXISTS outbox ("
                + "dispatch_key " + text + " NOT NULL PRIMARY KEY, "
                + "workflow_id " + text + " NOT NULL, "
                + "ordinal BIGINT NOT NULL, "
                + "activity_type " + text + " NOT NULL, "
                + "input BYTEA NOT NULL, "
                + "status " + text + " NOT NULL, "
                + "attempt BIGINT NOT NULL, "
                + "visible_after BIGINT NOT NULL)");
        for (String[] column : OUTBOX_COLUMNS) {
            all.add("ALTER TABLE outbox ADD COLUMN IF NOT EXISTS " + column[0] + " "
                    + (column[1] == null ? text : column[1]));
        }
        // S9: legacy rows get real routes, so every predicate can compare the columns directly.
        all.add("UPDATE outbox SET namespace = 'default' WHERE namespace IS NULL");
        all.add("UPDATE outbox SET task_queue = 'default' WHERE task_queue IS NULL");
        all.add("CREATE INDEX IF NOT EXISTS timers_fire_at ON timers (fire_at, workflow_id, timer_id)");
        all.add("CREATE INDEX IF NOT EXISTS outbox_workflow ON outbox (workflow_id, status)");
        all.addAll(dialect.schemaExtras());
        return all;
    }

    /**
     * In one transaction: takes the schema lock (PostgreSQL), reads the recorded schema version and
     * refuses one this library does not read, then applies every statement and, when the database
     * records an older version, records the current one. Three round trips: the lock and the version
     * table, the version, then the rest in one batch.
     *
     * @param c a connection
     * @param dialect the dialect
     * @param database the database, as errors name it
     * @return completes when the schema is committed; fails with
     *     {@link dev.durablestore.api.SchemaVersionException} when the database records a version
     *     this library does not read, after rolling back a transaction that wrote nothing, and with
     *     {@link InvalidArgumentException} naming {@code connectionFactory}, before anything is
     *     written, when an H2 database is not in {@code MODE=PostgreSQL}
     */
    static Mono<Void> apply(Connection c, SqlDialect dialect, String database) {
        Mono<Void> schema = Mono.defer(() -> create(c, dialect, database));
        return dialect.postgres() ? schema : requirePostgresMode(c).then(schema);
    }

    /**
     * Reads an H2 database's compatibility mode. Without {@code MODE=PostgreSQL} H2 would create
     * tables (its DDL commits at once, whatever the transaction), then reject the first
     * {@code ON CONFLICT} with a raw syntax error, leaving a half-made schema behind.
     */
    private static Mono<Void> requirePostgresMode(Connection c) {
        return Flux.from(c.createStatement(H2_MODE).execute())
                .concatMap(result -> result.map((row, meta) -> String.valueOf(row.get(0, String.class))))
                .next()
                .defaultIfEmpty("unknown")
                .flatMap(mode -> H2_POSTGRES_MODE.equalsIgnoreCase(mode)
                        ? Mono.<Void>empty()
                        : Mono.<Void>error(new InvalidArgumentException(
                                "connectionFactory",
                                "is an H2 database in mode " + mode + ", and the store needs H2's PostgreSQL mode:"
                                        + " add MODE=PostgreSQL to the URL's options, for example"
                                        + " r2dbc:h2:mem:///db?options=DB_CLOSE_DELAY=-1;MODE=PostgreSQL"
                                        + " (nothing was written)")));
    }

    private static Mono<Void> create(Connection c, SqlDialect dialect, String database) {
        return Mono.from(c.beginTransaction())
                .thenMany(Flux.defer(() -> {
                    Batch batch = c.createBatch();
                    if (dialect.schemaLock() != null) {
                        batch.add(dialect.schemaLock());
                    }
                    batch.add(VERSION_TABLE);
                    return Flux.from(batch.execute()).concatMap(Result::getRowsUpdated);
                }))
                .then(Mono.defer(() -> Flux.from(c.createStatement(READ_VERSION).execute())
                        .concatMap(r -> r.map((row, meta) -> {
                            Integer version = row.get(0, Integer.class);
                            return version == null ? 0 : version;
                        }))
                        .single()))
                .flatMapMany(recorded -> {
                    SchemaVersion.requireOpenable(recorded, database);
                    // one batch: a single round trip on PostgreSQL (simple query protocol)
                    Batch batch = c.createBatch();
                    statements(dialect).forEach(batch::add);
                    if (recorded < SchemaVersion.CURRENT) {
                        batch.add("DELETE FROM durable_store_schema");
                        batch.add("INSERT INTO durable_store_schema (version) VALUES (" + SchemaVersion.CURRENT + ")");
                    }
                    return Flux.from(batch.execute()).concatMap(Result::getRowsUpdated);
                })
                .then(Mono.from(c.commitTransaction()))
                .onErrorResume(e -> Mono.from(c.rollbackTransaction())
                        .onErrorResume(x -> Mono.empty())
                        .then(Mono.error(e)));
    }
}
