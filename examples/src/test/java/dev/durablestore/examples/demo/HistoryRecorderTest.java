package dev.durablestore.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.ActivityCompleted;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.event.WorkflowCompleted;
import dev.durablestore.examples.demo.HistoryRecorder.Ended;
import dev.durablestore.examples.demo.HistoryRecorder.Outcome;
import dev.durablestore.examples.demo.HistoryRecorder.Recorded;
import dev.durablestore.examples.demo.HistoryRecorder.Settle;
import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

class HistoryRecorderTest {

    @TempDir
    Path dir;

    @Test
    void concurrentOutcomesOfOneWorkflowAreAppendedInOrderAndRedeliveryIsDeduplicated() {
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(dir.resolve("r.db")))) {
            int k = 20;
            WorkflowId w = Workload.workflowId(0);
            Instant now = Instant.now();
            store.appendWithOutbox(w, Workload.startEvents(0, k, now), 0, Workload.rows(0, k, now))
                    .block(Duration.ofSeconds(10));
            DemoStats stats = new DemoStats();
            HistoryRecorder recorder = new HistoryRecorder(store, stats);

            // All k outcomes at once, from parallel threads.
            List<Recorded> results = Flux.range(1, k)
                    .parallel(4)
                    .flatMap(o -> recorder.record(w, new Outcome(Workload.activityId(o), 1, true, false, null)))
                    .sequential()
                    .collectList()
                    .block(Duration.ofSeconds(10));
            assertThat(results).hasSize(k).allSatisfy(r -> {
                assertThat(r.settle()).isEqualTo(Settle.COMPLETE);
                assertThat(r.fresh()).isTrue();
            });
            assertThat(results).filteredOn(r -> r.ended() == Ended.COMPLETED).hasSize(1);

            List<Event> history = store.readHistory(w).collectList().block(Duration.ofSeconds(10));
            assertThat(history).hasSize(1 + k + k + 1);
            for (int i = 0; i < history.size(); i++) {
                assertThat(history.get(i).seq()).isEqualTo(i + 1);
            }
            assertThat(history).filteredOn(ActivityCompleted.class::isInstance).hasSize(k);
            assertThat(history.get(history.size() - 1)).isInstanceOf(WorkflowCompleted.class);

            // A redelivered row: nothing appended, the row is still to be completed.
            StepVerifier.create(recorder.record(w, new Outcome(Workload.activityId(3), 2, false, false, "late")))
                    .expectNext(new Recorded(Settle.COMPLETE, false, Ended.NO))
                    .verifyComplete();
            assertThat(store.readHead(w).block(Duration.ofSeconds(10))).isEqualTo(history.size());
        }
    }
}
