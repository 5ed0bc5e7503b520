package dev.durablestore.sqlite.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.Payload;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * O21 across processes: two JVMs claim and complete from one database file at the same time; every
 * row is completed exactly once and none is lost.
 */
class CrossProcessClaimTest {

    private static final int WORKFLOWS = 500;
    private static final int ROWS_PER_WORKFLOW = 10;

    @TempDir
    Path dir;

    @Test
    void O21_two_processes_complete_every_row_exactly_once() throws Exception {
        // given 5,000 pending rows in one file
        Path db = dir.resolve("shared.db");
        List<String> keys = new ArrayList<>();
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(db))) {
            Instant now = Instant.now();
            List<OutboxRow> rows = new ArrayList<>();
            for (int w = 0; w < WORKFLOWS; w++) {
                WorkflowId id = WorkflowId.random();
                for (int i = 1; i <= ROWS_PER_WORKFLOW; i++) {
                    OutboxRow row = OutboxRow.pending(id, i, "work", Payload.json("{\"n\":" + i + "}"), now);
                    rows.add(row);
                    keys.add(row.dispatchKey());
                }
            }
            store.appendOutboxBatch(rows).block(Duration.ofMinutes(1));
        }

        // when two dispatcher processes drain it concurrently
        CountDownLatch ready = new CountDownLatch(2);
        Consumer<String> onLine = line -> {
            if (line.equals("READY")) {
                ready.countDown();
            }
        };
        try (ChildJvm a = ChildJvm.start(ClaimWorker.class, dir.resolve("a.log"), onLine, db.toString());
                ChildJvm b = ChildJvm.start(ClaimWorker.class, dir.resolve("b.log"), onLine, db.toString())) {
            assertThat(ready.await(60, TimeUnit.SECONDS))
                    .as("both workers opened the store")
                    .isTrue();
            a.send("GO");
            b.send("GO");
            assertThat(a.await(300)).as("worker a exit code").isZero();
            assertThat(b.await(300)).as("worker b exit code").isZero();

            // then each row was completed by exactly one of them, and all are done
            Map<String, Integer> completions = new HashMap<>();
            for (ChildJvm child : List.of(a, b)) {
                for (String line : child.lines()) {
                    if (line.startsWith("DONE ")) {
                        completions.merge(line.substring(5), 1, Integer::sum);
                    }
                }
            }
            assertThat(completions.values()).allMatch(n -> n == 1);
            assertThat(completions.keySet()).containsExactlyInAnyOrderElementsOf(keys);
            assertThat(a.lines()).as("both processes took part").isNotEmpty();
            assertThat(b.lines()).as("both processes took part").isNotEmpty();
        }
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(db))) {
            assertThat(store.countInflight("default").block(Duration.ofSeconds(30)))
                    .isZero();
            for (String key : List.of(keys.get(0), keys.get(keys.size() - 1))) {
                assertThat(store.rowState(key).block(Duration.ofSeconds(30)).status())
                        .isEqualTo(OutboxStatus.DONE);
            }
        }
    }
}
