package dev.durablestore.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxRowState;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs {@link MinimalDispatcher} as its command does and checks what it left in the database. */
class MinimalDispatcherTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @TempDir
    Path dir;

    @Test
    void everyStagedRowIsCompletedAndTheRunEndsByItself() {
        // given an empty database file
        Path db = dir.resolve("minimal.db");

        // when the dispatcher runs on it, twice (a second run adds a second workflow)
        MinimalDispatcher.main(new String[] {db.toString()});
        MinimalDispatcher.main(new String[] {db.toString()});

        // then two workflows are stored and every one of their rows is settled
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(db))) {
            List<WorkflowId> workflows = store.listWorkflowIds().collectList().block(TIMEOUT);
            assertThat(workflows).hasSize(2);
            assertThat(store.listUnsettledWorkflowIds().collectList().block(TIMEOUT)).isEmpty();
            assertThat(store.countInflight(OutboxRow.DEFAULT_ROUTE).block(TIMEOUT)).isZero();
            for (WorkflowId w : workflows) {
                assertThat(store.readHead(w).block(TIMEOUT)).isEqualTo(6L);
                for (long ordinal = 2; ordinal <= 6; ordinal++) {
                    // done; the even rows failed once and were retried (one more dispatch)
                    OutboxRowState state = store.rowState(OutboxRow.dispatchKey(w, ordinal)).block(TIMEOUT);
                    assertThat(state.status()).isEqualTo(OutboxStatus.DONE);
                    assertThat(state.attempt()).isEqualTo(ordinal % 2 == 0 ? 1 : 0);
                }
            }
        }
    }
}
