package dev.durablestore.r2dbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.Payload;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.tck.TestClock;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;

/**
 * Databases made before rows carried a priority have no {@code priority} column and no
 * {@code outbox_prioritized} index. Opening one adds both in place (S7): the old rows read back
 * with priority 0 and keep their claim order; new rows store theirs and are claimed first (O62).
 */
class R2dbcPriorityMigrationTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @Test
    void O62_S7_opening_an_H2_database_without_the_priority_column_adds_it_and_keeps_every_row() {
        H2Harness h = new H2Harness(TestClock.atDefaultStart());
        try {
            migrates(h::open, h.factory());
        } finally {
            h.close();
        }
    }

    @Test
    void O62_S7_opening_a_PostgreSQL_database_without_the_priority_column_adds_it_and_keeps_every_row() {
        PostgresHarness h = new PostgresHarness(TestClock.atDefaultStart());
        try {
            migrates(h::open, h.factory());
        } finally {
            h.close();
        }
    }

    private static void migrates(java.util.function.Supplier<ReactiveStore> open, ConnectionFactory db) {
        // given a database with two pending rows, then given the outbox layout of earlier versions
        WorkflowId w = WorkflowId.random();
        Instant now = TestClock.atDefaultStart().instant().minusSeconds(10);
        ReactiveStore first = open.get();
        first.appendOutboxBatch(List.of(
                        OutboxRow.pending(w, 1, "a", Payload.json("{}"), now),
                        OutboxRow.pending(w, 2, "a", Payload.json("{}"), now.plusNanos(1))))
                .block(TIMEOUT);
        first.close();
        HarnessSupport.execute(db, "DROP INDEX outbox_prioritized");
        HarnessSupport.execute(db, "ALTER TABLE outbox DROP COLUMN priority");
        HarnessSupport.execute(
                db, "DROP TABLE durable_store_schema"); // as databases from before schema versions were recorded (S29)

        // when a store opens it and a prioritized row is staged beside the old ones
        ReactiveStore store = open.get();
        store.appendOutboxBatch(List.of(OutboxRow.pending(w, 3, "a", Payload.json("{}"), now.plusNanos(2))
                        .withPriority(5)))
                .block(TIMEOUT);
        List<OutboxRow> claimed = store.claim(ClaimRequest.of(10)).block(TIMEOUT);

        // then the new row comes first, the old rows follow in their old order with priority 0
        assertThat(claimed)
                .extracting(OutboxRow::ordinal, OutboxRow::priority)
                .containsExactly(Tuple.tuple(3L, 5), Tuple.tuple(1L, 0), Tuple.tuple(2L, 0));
    }
}
