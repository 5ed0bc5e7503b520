package dev.durablestore.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.WorkflowFilter;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.WorkflowStatus;
import dev.durablestore.api.WorkflowSummary;
import dev.durablestore.tck.TestEvents;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files made before the event index held only the queryable events carry
 * {@code events_projection}, an index of every event. Opening such a file replaces it by the
 * partial {@code events_queryable} (S6: once; opening again changes nothing); the projections
 * read the same summaries, through the new index rather than the whole history.
 */
class SqliteEventIndexMigrationTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final String EVENT_INDEXES = "SELECT name FROM sqlite_master WHERE type = 'index' "
            + "AND tbl_name = 'events' AND sql IS NOT NULL ORDER BY name";

    @TempDir
    Path dir;

    @Test
    void S6_opening_a_file_with_the_full_event_index_replaces_it_by_the_queryable_one() throws Exception {
        // given a file with a completed workflow of three activities, then given the old index layout
        Path db = dir.resolve("old.db");
        WorkflowId w = WorkflowId.random();
        TestEvents ev = TestEvents.of(w);
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(db))) {
            store.append(
                            w,
                            List.of(
                                    ev.started("checkout"),
                                    ev.activityScheduled(1, "charge"),
                                    ev.activityCompleted(1, 1),
                                    ev.activityScheduled(2, "ship"),
                                    ev.activityCompleted(2, 1),
                                    ev.completed()),
                            0)
                    .block(TIMEOUT);
        }
        SqliteFileSql.execute(
                db,
                "DROP INDEX events_queryable",
                "CREATE INDEX events_projection ON events "
                        + "(queryable, workflow_id, seq, kind, workflow_type, recorded_at, child_workflow_id)",
                "PRAGMA user_version = 0"); // as files from before schema versions were recorded (S29)
        assertThat(SqliteFileSql.column(db, EVENT_INDEXES)).containsExactly("events_projection");

        // when the store opens it, twice
        for (int open = 0; open < 2; open++) {
            try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(db))) {
                // then only the partial index is there, holding the start and the end alone
                assertThat(SqliteFileSql.column(db, EVENT_INDEXES)).containsExactly("events_queryable");
                assertThat(SqliteFileSql.column(
                                db, "SELECT count(*) FROM events INDEXED BY events_queryable WHERE queryable = 1"))
                        .containsExactly("2");

                // and the summaries read as before
                WorkflowSummary one = store.readSummary(w).block(TIMEOUT);
                assertThat(one).isNotNull();
                assertThat(one.status()).isEqualTo(WorkflowStatus.COMPLETED);
                assertThat(one.workflowType()).isEqualTo("checkout");
                assertThat(store.query(WorkflowFilter.all()).collectList().block(TIMEOUT))
                        .containsExactly(one);
            }
        }

        // and the projections find the queryable events through the index, not the table
        assertThat(SqliteFileSql.queryPlan(
                        db,
                        "SELECT workflow_id, kind FROM events WHERE queryable = 1 "
                                + "AND kind <> 'ChildWorkflowStarted' ORDER BY workflow_id, seq"))
                .contains("events_queryable");
    }
}
