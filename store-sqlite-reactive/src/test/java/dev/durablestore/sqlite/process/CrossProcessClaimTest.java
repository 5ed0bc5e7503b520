package dev.durablestore.sqlite.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.OutboxStatus;
import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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
        List<String> keys = TwoWorkers.stage(db, WORKFLOWS, ROWS_PER_WORKFLOW, row -> row);

        // when two dispatcher processes drain it concurrently
        List<List<String>> outputs = TwoWorkers.run(ClaimWorker.class, dir, db.toString());

        // then each row was completed by exactly one of them, and all are done
        Map<String, Integer> completions = TwoWorkers.completions(outputs);
        assertThat(completions.values()).allMatch(n -> n == 1);
        assertThat(completions.keySet()).containsExactlyInAnyOrderElementsOf(keys);
        assertThat(outputs).as("both processes took part").allMatch(lines -> !lines.isEmpty());
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
