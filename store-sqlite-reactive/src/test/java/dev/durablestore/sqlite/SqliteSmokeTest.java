package dev.durablestore.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.PackageVersion;
import dev.durablestore.api.Payload;
import dev.durablestore.api.RunId;
import dev.durablestore.api.SequenceConflictException;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.event.EventEnvelope;
import dev.durablestore.api.event.WorkflowStarted;
import dev.durablestore.tck.TestClock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

class SqliteSmokeTest {

    @Test
    void append_read_claim_complete_round_trip() {
        TestClock clock = TestClock.atDefaultStart();
        try (SqliteTestHarness h = new SqliteTestHarness(clock)) {
            var store = h.open();
            WorkflowId w = WorkflowId.random();
            Event start = new WorkflowStarted(
                    new EventEnvelope(1, clock.instant(), w),
                    "t",
                    Payload.json("{}"),
                    RunId.random(),
                    null,
                    new PackageVersion("v"));
            OutboxRow row = OutboxRow.pending(w, 1, "a", Payload.json("{\"x\":1}"), clock.instant());
            StepVerifier.create(store.appendWithOutbox(w, List.of(start), 0, List.of(row)))
                    .verifyComplete();
            StepVerifier.create(store.append(w, List.of(start), 0))
                    .expectErrorMatches(e -> e.equals(new SequenceConflictException(0, 1)))
                    .verify(Duration.ofSeconds(10));
            assertThat(store.readHistory(w).collectList().block(Duration.ofSeconds(10)))
                    .containsExactly(start);
            List<OutboxRow> claimed = store.claim(ClaimRequest.of(10)).block(Duration.ofSeconds(10));
            assertThat(claimed).hasSize(1);
            StepVerifier.create(store.settleKeys(List.of(row.dispatchKey()), Settlement.complete()))
                    .verifyComplete();
            assertThat(store.rowState(row.dispatchKey())
                            .block(Duration.ofSeconds(10))
                            .status()
                            .token())
                    .isEqualTo("done");
        }
    }
}
