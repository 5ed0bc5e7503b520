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
 * Files made before rows carried a trace context have no {@code trace_context} column. Opening one
 * adds it in place (S7): the old rows read back without a context, new rows store theirs (O59).
 */
class SqliteTraceContextMigrationTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    @Test
    void O59_S7_opening_a_file_without_the_trace_context_column_adds_it_and_keeps_every_row() throws Exception {
        // given a file with a pending row, then given the outbox layout of earlier versions
        Path db = dir.resolve("old.db");
        WorkflowId w = WorkflowId.random();
        Instant now = Instant.parse("2026-01-01T00:00:00Z");
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(db))) {
            store.appendOutboxBatch(List.of(OutboxRow.pending(w, 1, "a", Payload.json("{}"), now)))
                    .block(TIMEOUT);
        }
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
                Statement s = c.createStatement()) {
            s.execute("ALTER TABLE outbox DROP COLUMN trace_context");
            s.execute("PRAGMA user_version = 0"); // as files from before schema versions were recorded (S29)
        }

        // when the store opens it and a row with a context is staged beside the old one
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(db))) {
            store.appendOutboxBatch(List.of(OutboxRow.pending(w, 2, "a", Payload.json("{}"), now)
                            .withTraceContext("traceparent=00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")))
                    .block(TIMEOUT);
            List<OutboxRow> claimed = store.claim(ClaimRequest.of(10)).block(TIMEOUT);

            // then the old row has no context and the new one has its own
            assertThat(claimed)
                    .extracting(OutboxRow::ordinal, OutboxRow::traceContext)
                    .containsExactlyInAnyOrder(
                            Tuple.tuple(1L, null),
                            Tuple.tuple(2L, "traceparent=00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"));
        }
    }
}
