package dev.durablestore.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.AttemptFailure;
import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.FailureReason;
import dev.durablestore.api.OutboxQuery;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.Payload;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.core.storage.SchemaVersion;
import dev.durablestore.tck.TestClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files of schema version 1 have no {@code failures} column. Opening one adds it in place (S7, S29):
 * the rows stored before read back without failures, in whatever status they were, and a retry or
 * dead-letter from then on records its reason (O66); the file then records version 2.
 */
class SqliteFailuresMigrationTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    @Test
    void O66_S7_S29_opening_a_version_1_file_adds_the_failures_column_and_old_rows_read_without_failures()
            throws Exception {
        // given a file with a pending, a claimed and a failed row, then given the layout of version 1
        Path db = dir.resolve("v1.db");
        TestClock clock = TestClock.atDefaultStart();
        WorkflowId w = WorkflowId.random();
        List<OutboxRow> rows = List.of(
                OutboxRow.pending(w, 0, "a", Payload.json("{}"), clock.instant()),
                OutboxRow.pending(w, 1, "a", Payload.json("{}"), clock.instant()),
                OutboxRow.pending(w, 2, "a", Payload.json("{}"), clock.instant().plusSeconds(60)));
        try (SqliteReactiveStore store =
                SqliteReactiveStore.open(SqliteStoreConfig.of(db).withClock(clock))) {
            store.appendOutboxBatch(rows).block(TIMEOUT);
            List<OutboxRow> claimed = store.claim(ClaimRequest.of(2)).block(TIMEOUT);
            store.settle(claimed.get(0), Settlement.fail()).block(TIMEOUT);
        }
        SqliteFileSql.execute(db, "ALTER TABLE outbox DROP COLUMN failures", "PRAGMA user_version = 1");

        // when the store opens it
        try (SqliteReactiveStore store =
                SqliteReactiveStore.open(SqliteStoreConfig.of(db).withClock(clock))) {
            // then every old row reads back without failures
            List<OutboxRow> listed =
                    store.listOutbox(OutboxQuery.all(10)).collectList().block(TIMEOUT);
            assertThat(listed)
                    .extracting(OutboxRow::status)
                    .containsExactly(OutboxStatus.FAILED, OutboxStatus.CLAIMED, OutboxStatus.PENDING);
            assertThat(listed).allSatisfy(r -> assertThat(r.failures()).isEmpty());

            // and the claimed row, dead-lettered with a reason under its old claim, records it
            FailureReason why = FailureReason.of("the ledger did not answer");
            store.settle(listed.get(1), Settlement.fail().withReason(why)).block(TIMEOUT);
            assertThat(store.listOutbox(OutboxQuery.all(1)
                                    .withDispatchKey(listed.get(1).dispatchKey()))
                            .blockFirst(TIMEOUT)
                            .failures())
                    .containsExactly(AttemptFailure.of(1, clock.instant(), why));
        }
        // and the file records the current schema version
        assertThat(SqliteFileSql.column(db, "PRAGMA user_version"))
                .containsExactly(String.valueOf(SchemaVersion.CURRENT));
        assertThat(SchemaVersion.CURRENT).isEqualTo(2);
    }
}
