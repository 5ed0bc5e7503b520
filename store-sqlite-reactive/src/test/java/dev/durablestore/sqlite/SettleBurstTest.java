package dev.durablestore.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.Payload;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.WorkflowId;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;

/**
 * O29, O31, O32, O34 under load: settles sent in one burst run as grouped statements inside the
 * group commit, and the outcome is what the same settles one by one would leave.
 */
class SettleBurstTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    @TempDir
    Path tmp;

    @Test
    void O29_O31_O32_O34_a_burst_of_settles_leaves_what_the_same_settles_one_by_one_would() {
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(tmp.resolve("burst.db")))) {
            // given 300 rows: 200 claimed, 100 pending, of which 20 claimed ones are already failed
            WorkflowId w = WorkflowId.random();
            List<OutboxRow> rows = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                rows.add(OutboxRow.pending(
                        w, i, "work", Payload.json("{}"), Instant.now().minusSeconds(1)));
            }
            store.appendOutboxBatch(rows).block(TIMEOUT);
            assertThat(store.claim(ClaimRequest.of(200)).block(TIMEOUT)).hasSize(200);
            for (int i = 0; i < 20; i++) {
                store.settleKeys(List.of(OutboxRow.dispatchKey(w, i)), Settlement.fail())
                        .block(TIMEOUT);
            }

            // when every row is completed at once, each key twice, with cancels of rows 280..299 among them
            Flux<Void> completes = Flux.range(0, 600)
                    .flatMap(
                            n -> store.settleKeys(List.of(OutboxRow.dispatchKey(w, n % 300)), Settlement.complete()),
                            256);
            Flux<Void> cancels = Flux.range(280, 20)
                    .flatMap(n -> store.settleKeys(List.of(OutboxRow.dispatchKey(w, n)), Settlement.cancel()));
            Flux.merge(completes, cancels).then().block(TIMEOUT);

            // then failed rows stay failed (O34: only live rows settle), rows 280..299 are done or
            // cancelled (whichever came first), and every other row is done
            for (int i = 0; i < 300; i++) {
                OutboxStatus status = store.rowState(OutboxRow.dispatchKey(w, i))
                        .block(TIMEOUT)
                        .status();
                if (i < 20) {
                    assertThat(status).as("row %d", i).isEqualTo(OutboxStatus.FAILED);
                } else if (i >= 280) {
                    assertThat(status).as("row %d", i).isIn(OutboxStatus.DONE, OutboxStatus.CANCELLED);
                } else {
                    assertThat(status).as("row %d", i).isEqualTo(OutboxStatus.DONE);
                }
            }
            assertThat(store.countInflight("default").block(TIMEOUT)).isZero();
        }
    }
}
