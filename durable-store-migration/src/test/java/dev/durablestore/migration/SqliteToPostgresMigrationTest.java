package dev.durablestore.migration;

import static dev.durablestore.migration.Sources.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.OutboxQuery;
import dev.durablestore.api.SchemaVersionException;
import dev.durablestore.api.event.Event;
import dev.durablestore.examples.demo.Workload;
import dev.durablestore.migration.Table.Column;
import dev.durablestore.r2dbc.R2dbcReactiveStore;
import dev.durablestore.r2dbc.R2dbcStoreConfig;
import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import io.r2dbc.spi.Readable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

/** The migration's contract: what it copies, how it resumes, what it refuses, what it verifies. */
@Timeout(120)
class SqliteToPostgresMigrationTest {

    @TempDir
    Path dir;

    @Test
    void everyColumnOfEveryRowIsCarriedAndThePostgresStoreReadsTheSameRows() throws Exception {
        // given a store with rows in every status, failures, trace contexts, priorities, claims and timers
        Path file = dir.resolve("app.db");
        Sources.rich(file, 6, 3);
        try (PgSchema pg = new PgSchema()) {
            List<MigrationProgress> progress = new CopyOnWriteArrayList<>();

            // when it is migrated
            MigrationReport report = SqliteToPostgresMigration.from(file)
                    .to(pg.factory())
                    .withBatchSize(7)
                    .withProgress(progress::add)
                    .run()
                    .block(WAIT);

            // then every row of every table is on the target, column for column
            assertThat(report.verified())
                    .as("%s", report.verification().mismatches())
                    .isTrue();
            assertThat(report.resumed()).isFalse();
            assertThat(report.eventsCopied()).isEqualTo(6 * 4);
            assertThat(report.outboxRowsCopied()).isEqualTo(6 * 3);
            assertThat(report.timersCopied()).isEqualTo(2);
            assertThat(report.rowsAlreadyThere()).isZero();
            try (SqliteSource source = SqliteSource.open(file)) {
                List<Object[]> outbox = source.batch(Table.OUTBOX, null, 1_000);
                assertThat(column(outbox, "status"))
                        .containsOnly("pending", "claimed", "done", "failed", "cancelled")
                        .contains("pending", "claimed", "done", "failed", "cancelled");
                for (String carried :
                        List.of("failures", "trace_context", "claim_token", "claimed_at", "settled_at", "run_id")) {
                    assertThat(column(outbox, carried)).as(carried).anyMatch(v -> v != null);
                }
                assertThat(column(outbox, "priority")).contains(5);
                assertThat(column(outbox, "namespace")).contains("billing");
                assertThat(column(outbox, "attempt")).contains(1L);
                for (Table table : Table.values()) {
                    assertThat(rowsOnTarget(pg, table))
                            .as(table.sqlName())
                            .usingElementComparator((a, b) -> Arrays.deepEquals(a, b) ? 0 : 1)
                            .containsExactlyElementsOf(source.batch(table, null, 1_000));
                }
            }
            // and the PostgreSQL store reads what the SQLite store reads
            try (SqliteReactiveStore sqlite = SqliteReactiveStore.open(SqliteStoreConfig.of(file));
                    R2dbcReactiveStore postgres = R2dbcStoreConfig.of(pg.factory())
                            .withNotifications(false)
                            .open()
                            .block(WAIT)) {
                assertThat(postgres.listOutbox(OutboxQuery.all(1_000))
                                .collectList()
                                .block(WAIT))
                        .isEqualTo(sqlite.listOutbox(OutboxQuery.all(1_000))
                                .collectList()
                                .block(WAIT));
                for (int i = 0; i < 6; i++) {
                    List<Event> history = sqlite.readHistory(Workload.workflowId(i))
                            .collectList()
                            .block(WAIT);
                    assertThat(postgres.readHistory(Workload.workflowId(i))
                                    .collectList()
                                    .block(WAIT))
                            .isEqualTo(history);
                }
            }
            // and progress was reported per batch, table by table, then the verification
            assertThat(progress.stream().map(MigrationProgress::phase).distinct())
                    .containsExactly(
                            MigrationPhase.EVENTS, MigrationPhase.TIMERS, MigrationPhase.OUTBOX, MigrationPhase.VERIFY);
            assertThat(progress)
                    .filteredOn(p -> p.phase() == MigrationPhase.EVENTS)
                    .hasSize(4) // 24 events in batches of 7
                    .last()
                    .satisfies(p -> assertThat(p.done()).isEqualTo(p.total()).isEqualTo(24));
        }
    }

    @Test
    void aRunCancelledMidCopyIsResumedByTheNextRunOfTheSameSource() {
        // given a migration cancelled after its third batch of events
        Path file = dir.resolve("app.db");
        Sources.rich(file, 20, 4);
        try (PgSchema pg = new PgSchema()) {
            SqliteToPostgresMigration migration =
                    SqliteToPostgresMigration.from(file).to(pg.factory()).withBatchSize(10);
            Sinks.Empty<Void> stop = Sinks.empty();
            StepVerifier.create(migration
                            .withProgress(p -> {
                                if (p.done() >= 30) {
                                    stop.tryEmitEmpty();
                                }
                            })
                            .run()
                            .takeUntilOther(stop.asMono()))
                    .expectComplete()
                    .verify(WAIT);
            long copiedBefore = awaitStable(pg);
            assertThat(copiedBefore).isBetween(30L, 99L);

            // when the same source is migrated again
            MigrationReport report = migration.run().block(WAIT);

            // then it resumes after the rows already there and the copy is whole
            assertThat(report.resumed()).isTrue();
            assertThat(report.rowsAlreadyThere()).isEqualTo(copiedBefore);
            assertThat(report.eventsCopied()).isEqualTo(100 - copiedBefore);
            assertThat(report.verified())
                    .as("%s", report.verification().mismatches())
                    .isTrue();
            assertThat(pg.queryLong("SELECT count(*) FROM events")).isEqualTo(100);
            assertThat(pg.queryLong("SELECT count(*) FROM outbox")).isEqualTo(80);
            assertThat(pg.queryLong(
                            "SELECT count(*) FROM " + PostgresTarget.MARKER_TABLE + " WHERE completed_at IS NOT NULL"))
                    .isEqualTo(1);

            // and a third run copies nothing and verifies again
            MigrationReport again = migration.run().block(WAIT);
            assertThat(again.rowsCopied()).isZero();
            assertThat(again.verified()).isTrue();
        }
    }

    @Test
    void aTargetHoldingDataIsRefusedAndLeftAsItWas() {
        // given a PostgreSQL store that holds a workflow of its own
        Path file = dir.resolve("app.db");
        Sources.rich(file, 4, 3);
        try (PgSchema pg = new PgSchema()) {
            Path other = dir.resolve("other.db");
            Sources.rich(other, 4, 3);
            SqliteToPostgresMigration.from(other).to(pg.factory()).run().block(WAIT);
            pg.execute("DROP TABLE " + PostgresTarget.MARKER_TABLE);

            // when a migration targets it, then it is refused, naming what it found, and nothing is written
            assertThatThrownBy(() -> SqliteToPostgresMigration.from(file)
                            .to(pg.factory())
                            .run()
                            .block(WAIT))
                    .isInstanceOfSatisfying(
                            InvalidArgumentException.class,
                            e -> assertThat(e.argument()).isEqualTo("target"))
                    .hasMessageContaining("holds data (rows in events, timers, outbox)")
                    .hasMessageContaining("nothing was written");
            assertThat(pg.queryLong("SELECT count(*) FROM events")).isEqualTo(16);
            assertThat(pg.queryLong("SELECT count(to_regclass('" + PostgresTarget.MARKER_TABLE + "'))"))
                    .isZero();
        }
    }

    @Test
    void aSecondMigrationIntoTheSameSchemaIsRefusedWhileOneRuns() {
        // given a session holding the schema's migration lock, as a migration that runs does
        Path file = dir.resolve("app.db");
        Sources.rich(file, 4, 3);
        try (PgSchema pg = new PgSchema()) {
            io.r2dbc.spi.Connection holder = Mono.from(pg.factory().create()).block(WAIT);
            try {
                assertThat(Mono.from(holder.createStatement(PostgresTarget.LOCK).execute())
                                .flatMap(r -> Mono.from(r.map(row -> row.get(0, Boolean.class))))
                                .block(WAIT))
                        .isTrue();

                // when another migration targets the schema, then it is refused and writes nothing
                assertThatThrownBy(() -> SqliteToPostgresMigration.from(file)
                                .to(pg.factory())
                                .run()
                                .block(WAIT))
                        .isInstanceOfSatisfying(
                                InvalidArgumentException.class,
                                e -> assertThat(e.argument()).isEqualTo("target"))
                        .hasMessageContaining("another migration into this schema is running");
                assertThat(pg.queryLong("SELECT count(to_regclass('" + PostgresTarget.MARKER_TABLE + "'))"))
                        .isZero();
            } finally {
                Mono.from(holder.close()).block(WAIT);
            }
            // and once the lock is released, it runs
            assertThat(SqliteToPostgresMigration.from(file)
                            .to(pg.factory())
                            .run()
                            .block(WAIT)
                            .verified())
                    .isTrue();
        }
    }

    @Test
    void aTargetHoldingTheMigrationOfAnotherSourceIsRefused() {
        // given a target holding the copy of another file
        Path file = dir.resolve("app.db");
        Sources.rich(file, 4, 3);
        Path other = dir.resolve("other.db");
        Sources.rich(other, 5, 3);
        try (PgSchema pg = new PgSchema()) {
            SqliteToPostgresMigration.from(other).to(pg.factory()).run().block(WAIT);

            // when this file is migrated there, then it is refused, naming both sources
            assertThatThrownBy(() -> SqliteToPostgresMigration.from(file)
                            .to(pg.factory())
                            .run()
                            .block(WAIT))
                    .isInstanceOf(InvalidArgumentException.class)
                    .hasMessageContaining("holds a migration of another source: SQLite file " + other.toAbsolutePath())
                    .hasMessageContaining("this source is SQLite file " + file.toAbsolutePath());
            assertThat(pg.queryLong("SELECT count(*) FROM events")).isEqualTo(20);
        }
    }

    @Test
    void theVerificationFindsATamperedHistoryOutboxRowAndTimer() {
        // given a verified copy
        Path file = dir.resolve("app.db");
        Sources.rich(file, 4, 3);
        try (PgSchema pg = new PgSchema()) {
            SqliteToPostgresMigration migration =
                    SqliteToPostgresMigration.from(file).to(pg.factory());
            assertThat(migration.run().block(WAIT).verified()).isTrue();
            String tampered = Workload.workflowId(2).toString();

            // when one event's bytes, one row's status and one timer change on the target
            pg.execute(
                    "UPDATE events SET event = event || ' '::bytea WHERE workflow_id = '" + tampered + "' AND seq = 2");
            pg.execute("UPDATE outbox SET status = 'done' WHERE dispatch_key = (SELECT min(dispatch_key) FROM outbox"
                    + " WHERE status = 'pending')");
            pg.execute("DELETE FROM timers");
            pg.execute("DELETE FROM events WHERE workflow_id = '"
                    + Workload.workflowId(3).toString() + "'");
            MigrationVerification verification = migration.verify().block(WAIT);

            // then each is reported
            assertThat(verification.verified()).isFalse();
            assertThat(verification.mismatchCount()).isEqualTo(5);
            assertThat(verification.mismatches())
                    .anySatisfy(m -> assertThat(m)
                            .startsWith("workflow " + tampered + ": the source holds 4 events, head 4, checksum ")
                            .contains("; the target 4 events, head 4, checksum "))
                    .anySatisfy(m -> assertThat(m)
                            .startsWith("workflow " + Workload.workflowId(3).toString() + ": missing on the target"))
                    .anySatisfy(
                            m -> assertThat(m).matches("outbox rows pending: \\d+ in the source, \\d+ on the target"))
                    .anySatisfy(m -> assertThat(m).matches("outbox rows done: \\d+ in the source, \\d+ on the target"))
                    .anySatisfy(m -> assertThat(m).isEqualTo("timers: 2 in the source, 0 on the target"));
        }
    }

    @Test
    void aMissingSourceFileIsRefusedAndNotCreated() {
        Path missing = dir.resolve("missing.db");
        try (PgSchema pg = new PgSchema()) {
            StepVerifier.create(SqliteToPostgresMigration.from(missing)
                            .to(pg.factory())
                            .run())
                    .expectErrorSatisfies(e -> assertThat(e)
                            .isInstanceOfSatisfying(
                                    InvalidArgumentException.class,
                                    x -> assertThat(x.argument()).isEqualTo("sqliteFile"))
                            .hasMessageContaining("names no file: " + missing.toAbsolutePath()))
                    .verify(WAIT);
        }
        assertThat(Files.exists(missing)).isFalse();
    }

    @Test
    void aSourceOfANewerSchemaVersionIsRefused() throws Exception {
        Path file = dir.resolve("newer.db");
        Sources.rich(file, 4, 3);
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
                Statement s = c.createStatement()) {
            s.execute("PRAGMA user_version = 99");
        }
        try (PgSchema pg = new PgSchema()) {
            StepVerifier.create(SqliteToPostgresMigration.from(file)
                            .to(pg.factory())
                            .run())
                    .expectErrorSatisfies(e -> assertThat(e)
                            .isInstanceOf(SchemaVersionException.class)
                            .hasMessageContaining("schema version 99"))
                    .verify(WAIT);
            assertThat(pg.queryLong("SELECT count(to_regclass('events'))")).isZero();
        }
    }

    @Test
    void optionsAreCheckedWhenBuilt() {
        assertThatThrownBy(() -> SqliteToPostgresMigration.from(null))
                .isInstanceOfSatisfying(
                        InvalidArgumentException.class,
                        e -> assertThat(e.argument()).isEqualTo("sqliteFile"));
        SqliteToPostgresMigration.Source source = SqliteToPostgresMigration.from(dir.resolve("a.db"));
        assertThatThrownBy(() -> source.to(null))
                .isInstanceOfSatisfying(
                        InvalidArgumentException.class,
                        e -> assertThat(e.argument()).isEqualTo("target"));
        try (PgSchema pg = new PgSchema()) {
            SqliteToPostgresMigration m = source.to(pg.factory());
            assertThat(m.batchSize()).isEqualTo(SqliteToPostgresMigration.DEFAULT_BATCH_SIZE);
            for (int bad : new int[] {0, -1, SqliteToPostgresMigration.MAX_BATCH_SIZE + 1}) {
                assertThatThrownBy(() -> m.withBatchSize(bad))
                        .isInstanceOfSatisfying(
                                InvalidArgumentException.class,
                                e -> assertThat(e.argument()).isEqualTo("batchSize"));
            }
            assertThatThrownBy(() -> m.withProgress(null))
                    .isInstanceOfSatisfying(
                            InvalidArgumentException.class,
                            e -> assertThat(e.argument()).isEqualTo("progress"));
            assertThat(m.withBatchSize(SqliteToPostgresMigration.MAX_BATCH_SIZE).batchSize())
                    .isEqualTo(SqliteToPostgresMigration.MAX_BATCH_SIZE);
        }
    }

    /** The rows copied so far, once the cancelled run's batch in flight has been rolled back or committed. */
    private static long awaitStable(PgSchema pg) {
        return Flux.interval(java.time.Duration.ofMillis(50))
                .onBackpressureDrop()
                .concatMap(tick -> pg.readLong("SELECT count(*) FROM events"))
                .buffer(3, 1)
                .filter(last -> last.size() == 3 && last.stream().distinct().count() == 1)
                .map(last -> last.get(0))
                .blockFirst(WAIT);
    }

    private static List<Object> column(List<Object[]> rows, String name) {
        int index = Table.OUTBOX.columns().stream().map(Column::name).toList().indexOf(name);
        List<Object> values = new ArrayList<>();
        rows.forEach(r -> values.add(r[index]));
        return values;
    }

    private static List<Object[]> rowsOnTarget(PgSchema pg, Table table) {
        List<Column> columns = table.columns();
        return Mono.usingWhen(
                        Mono.from(pg.factory().create()),
                        c -> Flux.from(c.createStatement("SELECT " + table.columnList() + " FROM " + table.sqlName()
                                                + " ORDER BY " + table.keyList())
                                        .execute())
                                .concatMap(r -> r.map((Readable row) -> {
                                    Object[] values = new Object[columns.size()];
                                    for (int i = 0; i < values.length; i++) {
                                        values[i] =
                                                row.get(i, columns.get(i).type().javaType());
                                    }
                                    return values;
                                }))
                                .collectList(),
                        c -> c.close())
                .block(WAIT);
    }
}
