package dev.durablestore.r2dbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.AttemptFailure;
import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.FailureReason;
import dev.durablestore.api.OutboxQuery;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.Payload;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.core.storage.SchemaVersion;
import dev.durablestore.tck.TestClock;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Databases of schema version 1 have no {@code failures} column. Opening one adds it in place (S7,
 * S29): the rows stored before read back without failures, in whatever status they were, and a
 * retry or dead-letter from then on records its reason (O66); the database then records version 2.
 */
class R2dbcFailuresMigrationTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @Test
    void O66_S7_S29_opening_a_version_1_H2_database_adds_the_failures_column_and_old_rows_read_without_failures() {
        TestClock clock = TestClock.atDefaultStart();
        try (H2Harness h = new H2Harness(clock)) {
            migrates(h::open, h.factory(), clock.instant());
        }
    }

    @Test
    void
            O66_S7_S29_opening_a_version_1_PostgreSQL_database_adds_the_failures_column_and_old_rows_read_without_failures() {
        TestClock clock = TestClock.atDefaultStart();
        try (PostgresHarness h = new PostgresHarness(clock)) {
            migrates(h::open, h.factory(), clock.instant());
        }
    }

    private static void migrates(Supplier<ReactiveStore> open, ConnectionFactory db, Instant now) {
        // given a database with a failed, a claimed and a pending row, then given the layout of version 1
        WorkflowId w = WorkflowId.random();
        List<OutboxRow> rows = List.of(
                OutboxRow.pending(w, 0, "a", Payload.json("{}"), now),
                OutboxRow.pending(w, 1, "a", Payload.json("{}"), now),
                OutboxRow.pending(w, 2, "a", Payload.json("{}"), now.plusSeconds(60)));
        ReactiveStore first = open.get();
        first.appendOutboxBatch(rows).block(TIMEOUT);
        List<OutboxRow> claimed =
                new java.util.ArrayList<>(first.claim(ClaimRequest.of(2)).block(TIMEOUT));
        claimed.sort((a, b) -> Long.compare(a.ordinal(), b.ordinal()));
        first.settle(claimed.get(0), Settlement.fail()).block(TIMEOUT);
        first.close();
        HarnessSupport.execute(db, "ALTER TABLE outbox DROP COLUMN failures");
        HarnessSupport.execute(db, "UPDATE durable_store_schema SET version = 1");

        // when a store opens it
        ReactiveStore store = open.get();

        // then every old row reads back without failures
        List<OutboxRow> listed =
                store.listOutbox(OutboxQuery.all(10)).collectList().block(TIMEOUT);
        assertThat(listed)
                .extracting(OutboxRow::status)
                .containsExactly(OutboxStatus.FAILED, OutboxStatus.CLAIMED, OutboxStatus.PENDING);
        assertThat(listed).allSatisfy(r -> assertThat(r.failures()).isEmpty());

        // and the claimed row, dead-lettered with a reason under its old claim, records it
        FailureReason why = FailureReason.of("the ledger did not answer");
        store.settle(listed.get(1), Settlement.fail().withReason(why)).block(TIMEOUT);
        assertThat(store.listOutbox(
                                OutboxQuery.all(1).withDispatchKey(listed.get(1).dispatchKey()))
                        .blockFirst(TIMEOUT)
                        .failures())
                .containsExactly(AttemptFailure.of(1, now, why));

        // and the database records the current schema version
        assertThat(versions(db)).containsExactly(SchemaVersion.CURRENT);
        assertThat(SchemaVersion.CURRENT).isEqualTo(2);
    }

    private static List<Integer> versions(ConnectionFactory db) {
        return Mono.usingWhen(
                        Mono.from(db.create()),
                        c -> Flux.from(c.createStatement("SELECT version FROM durable_store_schema")
                                        .execute())
                                .concatMap(r -> r.map((row, meta) -> row.get(0, Integer.class)))
                                .collectList(),
                        c -> Mono.from(c.close()))
                .block(TIMEOUT);
    }
}
