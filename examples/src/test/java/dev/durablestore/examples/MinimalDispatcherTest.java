package dev.durablestore.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxRowState;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.ActivityCompleted;
import dev.durablestore.api.event.ActivityFailed;
import dev.durablestore.api.event.Event;
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

        // then two workflows are stored, every outcome is in their histories and every row is settled
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(db))) {
            List<WorkflowId> workflows = store.listWorkflowIds().collectList().block(TIMEOUT);
            assertThat(workflows).hasSize(2);
            assertThat(store.listUnsettledWorkflowIds().collectList().block(TIMEOUT))
                    .isEmpty();
            assertThat(store.countInflight(OutboxRow.DEFAULT_ROUTE).block(TIMEOUT))
                    .isZero();
            for (WorkflowId w : workflows) {
                // the start (6 events), then one step per outcome: 5 completions, 3 failed first attempts
                List<Event> history = store.readHistory(w).collectList().block(TIMEOUT);
                assertThat(history).hasSize(6 + 5 + 3);
                for (int i = 0; i < history.size(); i++) {
                    assertThat(history.get(i).seq()).isEqualTo(i + 1);
                }
                assertThat(history)
                        .filteredOn(ActivityCompleted.class::isInstance)
                        .hasSize(5);
                assertThat(history).filteredOn(ActivityFailed.class::isInstance).hasSize(3);
                for (long ordinal = 2; ordinal <= 6; ordinal++) {
                    // done; the even rows failed once and were retried (one more dispatch)
                    OutboxRowState state =
                            store.rowState(OutboxRow.dispatchKey(w, ordinal)).block(TIMEOUT);
                    assertThat(state.status()).isEqualTo(OutboxStatus.DONE);
                    assertThat(state.attempt()).isEqualTo(ordinal % 2 == 0 ? 1 : 0);
                }
            }
        }
    }
}
