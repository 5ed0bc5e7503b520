package dev.durablestore.sqlite.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.OutboxRow;
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
 * O63 and O64 across processes: two JVMs claim serially with a cap from one file at the same time;
 * no workflow ever has two rows claimed, none is handed out before the rows before it are done, the
 * route never has more rows claimed than the cap, and every row is completed exactly once.
 */
class CrossProcessPolicyTest {

    private static final int WORKFLOWS = 60;
    private static final int ROWS_PER_WORKFLOW = 5;
    private static final int CAP = 6;

    @TempDir
    Path dir;

    @Test
    void O63_O64_two_processes_keep_one_row_per_workflow_in_flight_and_the_route_under_its_cap() throws Exception {
        // given 300 pending rows of 60 workflows on route ns/q, all staged at once
        Path db = dir.resolve("shared.db");
        List<String> keys = new ArrayList<>();
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(db))) {
            Instant now = Instant.now();
            List<OutboxRow> rows = new ArrayList<>();
            for (int w = 0; w < WORKFLOWS; w++) {
                WorkflowId id = WorkflowId.random();
                for (int i = 1; i <= ROWS_PER_WORKFLOW; i++) {
                    OutboxRow row = OutboxRow.pending(id, i, "work", Payload.json("{\"n\":" + i + "}"), now)
                            .withRoute("ns", "q", null);
                    rows.add(row);
                    keys.add(row.dispatchKey());
                }
            }
            store.appendOutboxBatch(rows).block(Duration.ofMinutes(1));
        }

        // when two dispatcher processes drain it, each claiming serially with a cap of 6
        CountDownLatch ready = new CountDownLatch(2);
        Consumer<String> onLine = line -> {
            if (line.equals("READY")) {
                ready.countDown();
            }
        };
        String[] args = {db.toString(), "serial", "cap=" + CAP};
        try (ChildJvm a = ChildJvm.start(PolicyClaimWorker.class, dir.resolve("a.log"), onLine, args);
                ChildJvm b = ChildJvm.start(PolicyClaimWorker.class, dir.resolve("b.log"), onLine, args)) {
            assertThat(ready.await(60, TimeUnit.SECONDS))
                    .as("both workers opened the store")
                    .isTrue();
            a.send("GO");
            b.send("GO");
            assertThat(a.await(300)).as("worker a exit code").isZero();
            assertThat(b.await(300)).as("worker b exit code").isZero();

            // then every row was completed once, each held alone in its workflow after the rows
            // before it, and the route never above the cap
            Map<String, Integer> completions = new HashMap<>();
            for (ChildJvm child : List.of(a, b)) {
                for (String line : child.lines()) {
                    if (line.startsWith("DONE ")) {
                        completions.merge(line.substring(5), 1, Integer::sum);
                    } else if (line.startsWith("WORKFLOW ")) {
                        assertThat(line)
                                .as("one claimed row per workflow, none before it open")
                                .isEqualTo("WORKFLOW 1 0");
                    } else if (line.startsWith("ROUTE ")) {
                        assertThat(Integer.parseInt(line.substring(6)))
                                .as("claimed rows of the route")
                                .isBetween(1, CAP);
                    }
                }
            }
            assertThat(completions.values()).allMatch(n -> n == 1);
            assertThat(completions.keySet()).containsExactlyInAnyOrderElementsOf(keys);
            assertThat(a.lines()).as("both processes took part").anyMatch(l -> l.startsWith("DONE "));
            assertThat(b.lines()).as("both processes took part").anyMatch(l -> l.startsWith("DONE "));
        }
    }
}
