package dev.durablestore.r2dbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.google.errorprone.annotations.CanIgnoreReturnValue;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.Payload;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.SchemaVersionException;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.Event;
import dev.durablestore.core.storage.SchemaVersion;
import dev.durablestore.tck.StoreHarness;
import dev.durablestore.tck.TestClock;
import dev.durablestore.tck.TestEvents;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The database records its schema version in {@code durable_store_schema}; one of a newer version
 * than this library's is refused before anything is written to it, and an older one is migrated and
 * then records the current version (S29), on H2 and on PostgreSQL.
 */
class R2dbcSchemaVersionTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final String OUTBOX_COLUMNS = "SELECT LOWER(column_name) FROM information_schema.columns "
            + "WHERE LOWER(table_name) = 'outbox' AND table_schema = CURRENT_SCHEMA ORDER BY 1";
    private static final String VERSIONS = "SELECT version FROM durable_store_schema";

    @Test
    void S29_an_H2_database_of_a_newer_schema_version_is_refused_naming_both_versions_and_left_as_it_was() {
        try (H2Harness h = new H2Harness(TestClock.atDefaultStart())) {
            refusesNewer(h, h.factory(), "H2");
        }
    }

    @Test
    void S29_a_PostgreSQL_database_of_a_newer_schema_version_is_refused_naming_both_versions_and_left_as_it_was() {
        try (PostgresHarness h = new PostgresHarness(TestClock.atDefaultStart())) {
            refusesNewer(h, h.factory(), "PostgreSQL");
        }
    }

    @Test
    void S29_S7_an_H2_database_from_before_versions_were_recorded_is_migrated_and_then_records_the_current_one() {
        try (H2Harness h = new H2Harness(TestClock.atDefaultStart())) {
            upgradesUnversioned(h::open, h.factory());
        }
    }

    @Test
    void
            S29_S7_a_PostgreSQL_database_from_before_versions_were_recorded_is_migrated_and_then_records_the_current_one() {
        try (PostgresHarness h = new PostgresHarness(TestClock.atDefaultStart())) {
            upgradesUnversioned(h::open, h.factory());
        }
    }

    private static void refusesNewer(StoreHarness h, ConnectionFactory db, String dialect) {
        // given a database with a history and an outbox row, recording the next schema version, and
        // with a layout the migrations would change (no claimed_by column)
        written(h::open);
        int newer = SchemaVersion.CURRENT + 1;
        HarnessSupport.execute(db, "ALTER TABLE outbox DROP COLUMN claimed_by");
        HarnessSupport.execute(db, "UPDATE durable_store_schema SET version = " + newer);
        List<List<String>> before = snapshot(db);

        // when a store opens it
        SchemaVersionException e = catchThrowableOfType(SchemaVersionException.class, h::open);

        // then the open fails naming the database and both versions
        assertThat(e.getMessage())
                .contains("the " + dialect + " database of store ")
                .contains("schema version " + newer)
                .contains("up to " + SchemaVersion.CURRENT);
        assertThat(e.recordedVersion()).isEqualTo(newer);
        assertThat(e.supportedVersion()).isEqualTo(SchemaVersion.CURRENT);
        // and nothing was written: no migration, the same rows, the newer version alone
        assertThat(snapshot(db)).isEqualTo(before);
        assertThat(query(db, OUTBOX_COLUMNS)).isNotEmpty().doesNotContain("claimed_by");
        assertThat(query(db, VERSIONS)).containsExactly(String.valueOf(newer));
    }

    private static void upgradesUnversioned(Supplier<ReactiveStore> open, ConnectionFactory db) {
        // given a database without a recorded version, in the layout before claimed_by
        WorkflowId w = written(open);
        HarnessSupport.execute(db, "ALTER TABLE outbox DROP COLUMN claimed_by");
        HarnessSupport.execute(db, "DROP TABLE durable_store_schema");

        // when a store opens it, twice
        for (int i = 0; i < 2; i++) {
            ReactiveStore store = open.get();
            // then it reads what was written
            assertThat(store.readHead(w).block(TIMEOUT)).isEqualTo(2L);
            store.close();
        }
        // and it was migrated and records the current version in one row
        assertThat(query(db, OUTBOX_COLUMNS)).contains("claimed_by");
        assertThat(query(db, VERSIONS)).containsExactly(String.valueOf(SchemaVersion.CURRENT));
    }

    /**
     * Writes a two-event history with one outbox row through a store, and closes it.
     *
     * @return the workflow
     */
    @CanIgnoreReturnValue // most tests need only the database
    private static WorkflowId written(Supplier<ReactiveStore> open) {
        WorkflowId w = WorkflowId.random();
        TestEvents ev = TestEvents.of(w);
        ReactiveStore store = open.get();
        store.appendWithOutbox(
                        w,
                        List.<Event>of(ev.started("checkout"), ev.activityScheduled(1, "charge")),
                        0,
                        List.of(OutboxRow.pending(
                                w,
                                1,
                                "charge",
                                Payload.json("{}"),
                                TestClock.atDefaultStart().instant())))
                .block(TIMEOUT);
        store.close();
        return w;
    }

    /** @return what a write could change: the outbox columns, the version rows, every row of each table */
    private static List<List<String>> snapshot(ConnectionFactory db) {
        return List.of(
                query(db, OUTBOX_COLUMNS),
                query(db, VERSIONS),
                query(db, "SELECT workflow_id || '#' || seq || '@' || recorded_at FROM events ORDER BY 1"),
                query(db, "SELECT dispatch_key || ':' || status || ':' || attempt FROM outbox ORDER BY 1"),
                query(db, "SELECT workflow_id || '/' || timer_id FROM timers ORDER BY 1"));
    }

    /** @return the first column of every row, as text */
    private static List<String> query(ConnectionFactory db, String sql) {
        return Mono.usingWhen(
                        Mono.from(db.create()),
                        c -> Flux.from(c.createStatement(sql).execute())
                                .concatMap(r -> r.map((row, meta) -> String.valueOf(row.get(0))))
                                .collectList(),
                        c -> Mono.from(c.close()))
                .block(TIMEOUT);
    }
}
