package dev.durablestore.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.PackageVersion;
import dev.durablestore.api.Payload;
import dev.durablestore.api.RunId;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.event.EventEnvelope;
import dev.durablestore.api.event.WorkflowStarted;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;

/**
 * The writer's checkpoint threshold ({@link SqliteStoreConfig#checkpointPages()}): the write-ahead
 * log is copied back into the database file once it holds that many pages, so the log file stays
 * near that size; a larger threshold lets it grow further. Every write stays readable either way,
 * also after reopening. (A setting of this store's design; no contract rule names checkpoints.)
 */
class SqliteCheckpointTest {

    private static final int WORKFLOWS = 1_400;
    private static final String PADDING = "x".repeat(4_000);

    @TempDir
    Path dir;

    @Test
    void the_log_is_checkpointed_at_the_configured_size_and_by_default_past_sqlites_1000_pages() {
        // given two stores that differ only in the checkpoint threshold
        Path small = dir.resolve("small.db");
        Path large = dir.resolve("large.db");

        // when each takes the same ~6 MB of appends, 8 appends per transaction at most
        long smallLog = writeAndMeasureLog(SqliteStoreConfig.of(small).withCheckpointPages(50));
        long largeLog = writeAndMeasureLog(SqliteStoreConfig.of(large));

        // then the log of the small threshold stayed near 50 pages (plus the commit that crossed it),
        // while the default threshold (10,000 pages) kept everything in the log: more than SQLite's
        // own threshold of 1,000 pages (~4 MB) would have let it hold
        assertThat(smallLog).isLessThan(600 * 1024L);
        assertThat(largeLog).isGreaterThan(4_500 * 1024L);

        // and both files hold every append after reopening
        for (Path db : List.of(small, large)) {
            try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(db))) {
                assertThat(store.listWorkflowIds().count().block(Duration.ofSeconds(30)))
                        .isEqualTo(WORKFLOWS);
            }
        }
    }

    private long writeAndMeasureLog(SqliteStoreConfig config) {
        try (SqliteReactiveStore store = SqliteReactiveStore.open(config)) {
            Flux.fromIterable(starts())
                    .flatMap(e -> store.append(e.workflowId(), List.of(e), 0), 8)
                    .then()
                    .block(Duration.ofSeconds(60));
            Path log = Path.of(config.path() + "-wal");
            try {
                return Files.size(log);
            } catch (IOException e) {
                throw new AssertionError("no write-ahead log at " + log, e);
            }
        }
    }

    private static List<Event> starts() {
        Instant now = Instant.parse("2026-01-01T00:00:00Z");
        List<Event> events = new ArrayList<>(WORKFLOWS);
        for (int i = 0; i < WORKFLOWS; i++) {
            WorkflowId w = WorkflowId.random();
            events.add(new WorkflowStarted(
                    new EventEnvelope(1, now, w),
                    "t",
                    Payload.json("{\"pad\":\"" + PADDING + "\"}"),
                    RunId.random(),
                    null,
                    new PackageVersion("v")));
        }
        return events;
    }
}
