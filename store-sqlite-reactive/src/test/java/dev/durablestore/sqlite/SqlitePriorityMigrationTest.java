package dev.durablestore.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.Payload;
import dev.durablestore.api.WorkflowId;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files made before rows carried a priority have no {@code priority} column and no
 * {@code outbox_prioritized} index. Opening one adds both in place (S7): the old rows read back
 * with priority 0 and keep their claim order; new rows store theirs and are claimed first (O62).
 */
class SqlitePriorityMigrationTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    @Test
    void O62_S7_opening_a_file_without_the_priority_column_adds_it_and_keeps_every_row() throws Exception {
        // given a file with two pending rows, then given the outbox layout of earlier versions
        Path db = dir.resolve("old.db");
        WorkflowId w = WorkflowId.random();
        Instant now = Instant.parse("2026-01-01T00:00:00Z");
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(db))) {
            store.appendOutboxBatch(List.of(
                            OutboxRow.pending(w, 1, "a", Payload.json("{}"), now),
                            OutboxRow.pending(w, 2, "a", Payload.json("{}"), now.plusNanos(1))))
                    .block(TIMEOUT);
        }
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
                Statement s = c.createStatement()) {
            s.execute("DROP INDEX outbox_prioritized");
            s.execute("ALTER TABLE outbox DROP COLUMN priority");
            s.execute("PRAGMA user_version = 0"); // as files from before schema versions were recorded (S29)
        }

        // when the store opens it and a prioritized row is staged beside the old ones
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(db))) {
            store.appendOutboxBatch(List.of(OutboxRow.pending(w, 3, "a", Payload.json("{}"), now.plusNanos(2))
                            .withPriority(5)))
                    .block(TIMEOUT);
            List<OutboxRow> claimed = store.claim(ClaimRequest.of(10)).block(TIMEOUT);

            // then the new row comes first, the old rows follow in their old order with priority 0
            assertThat(claimed)
                    .extracting(OutboxRow::ordinal, OutboxRow::priority)
                    .containsExactly(Tuple.tuple(3L, 5), Tuple.tuple(1L, 0), Tuple.tuple(2L, 0));
        }
    }
}
