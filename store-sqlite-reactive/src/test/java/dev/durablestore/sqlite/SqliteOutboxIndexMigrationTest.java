package dev.durablestore.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.Payload;
import dev.durablestore.api.WorkflowId;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.test.StepVerifier;

/**
 * Files made before the outbox was indexed by workflow alone carry a composite
 * {@code outbox_workflow (workflow_id, status)} index. Opening such a file replaces it (S6: once;
 * opening again changes nothing), and workflow-wide operations still find the workflow's rows
 * through the new index rather than a scan of the table.
 */
class SqliteOutboxIndexMigrationTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    @Test
    void S6_opening_a_file_with_the_composite_workflow_index_replaces_it_and_keeps_every_row() throws Exception {
        // given a file written by a store, then given the index layout of earlier versions
        Path db = dir.resolve("old.db");
        WorkflowId w = WorkflowId.random();
        Instant now = Instant.parse("2026-01-01T00:00:00Z");
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(db))) {
            store.appendOutboxBatch(List.of(
                            OutboxRow.pending(w, 1, "a", Payload.json("{}"), now),
                            OutboxRow.pending(w, 2, "a", Payload.json("{}"), now)))
                    .block(TIMEOUT);
        }
        SqliteFileSql.execute(
                db,
                "DROP INDEX outbox_by_workflow",
                "CREATE INDEX outbox_workflow ON outbox (workflow_id, status)",
                "PRAGMA user_version = 0"); // as files from before schema versions were recorded (S29)
        assertThat(SqliteFileSql.column(
                        db, "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'outbox'"))
                .contains("outbox_workflow")
                .doesNotContain("outbox_by_workflow");

        // when the store opens it, twice
        for (int open = 0; open < 2; open++) {
            try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(db))) {
                // then the old index is gone, the new one is there, and the rows are all still readable
                assertThat(SqliteFileSql.column(
                                db, "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'outbox'"))
                        .contains("outbox_by_workflow")
                        .doesNotContain("outbox_workflow");
                assertThat(store.rowState(OutboxRow.dispatchKey(w, 1)).block(TIMEOUT))
                        .isNotNull();
            }
        }

        // and cancelling the workflow's rows finds both through the index, not a table scan
        assertThat(SqliteFileSql.queryPlan(
                        db,
                        "SELECT dispatch_key FROM outbox WHERE workflow_id = 'x' "
                                + "AND status IN ('pending', 'claimed')"))
                .contains("outbox_by_workflow");
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(db))) {
            StepVerifier.create(store.cancelWorkflowRows(w))
                    .assertNext(keys -> assertThat(keys)
                            .containsExactlyInAnyOrder(OutboxRow.dispatchKey(w, 1), OutboxRow.dispatchKey(w, 2)))
                    .verifyComplete();
        }
    }
}
