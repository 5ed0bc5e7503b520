package dev.durablestore.r2dbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.WorkflowStatus;
import dev.durablestore.api.WorkflowSummary;
import dev.durablestore.tck.TestClock;
import dev.durablestore.tck.TestEvents;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * PostgreSQL databases made before the event index held only the queryable events carry
 * {@code events_projection}, an index of every event. Opening one replaces it by the partial
 * {@code events_queryable} (S6, S7): activity events then cost no index write, and the summaries
 * read as before. (H2 has no partial index and keeps the full one.)
 */
class PostgresEventIndexMigrationTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @Test
    void S7_opening_a_database_with_the_full_event_index_replaces_it_by_the_queryable_one() {
        PostgresHarness h = new PostgresHarness(TestClock.atDefaultStart());
        try {
            // given a completed workflow of two activities, then given the old index layout
            WorkflowId w = WorkflowId.random();
            TestEvents ev = TestEvents.of(w);
            ReactiveStore first = h.open();
            first.append(
                            w,
                            List.of(
                                    ev.started("checkout"),
                                    ev.activityScheduled(1, "charge"),
                                    ev.activityCompleted(1, 1),
                                    ev.completed()),
                            0)
                    .block(TIMEOUT);
            first.close();
            HarnessSupport.execute(h.factory(), "DROP INDEX events_queryable");
            HarnessSupport.execute(
                    h.factory(),
                    "DROP TABLE durable_store_schema"); // as databases from before schema versions were recorded (S29)
            HarnessSupport.execute(
                    h.factory(),
                    "CREATE INDEX events_projection ON events "
                            + "(queryable, workflow_id, seq, kind, workflow_type, recorded_at, child_workflow_id)");
            assertThat(eventIndexes(h.factory())).containsExactly("events_pkey", "events_projection");

            // when a store opens it
            ReactiveStore store = h.open();

            // then only the partial index is there beside the key, and the summary reads as before
            assertThat(eventIndexes(h.factory())).containsExactly("events_pkey", "events_queryable");
            WorkflowSummary summary = store.readSummary(w).block(TIMEOUT);
            assertThat(summary).isNotNull();
            assertThat(summary.status()).isEqualTo(WorkflowStatus.COMPLETED);
            assertThat(summary.workflowType()).isEqualTo("checkout");
        } finally {
            h.close();
        }
    }

    private static List<String> eventIndexes(ConnectionFactory factory) {
        return Mono.usingWhen(
                        Mono.from(factory.create()),
                        (Connection c) -> Flux.from(c.createStatement("SELECT indexname FROM pg_indexes "
                                                + "WHERE tablename = 'events' ORDER BY indexname")
                                        .execute())
                                .flatMap(r -> r.map((row, meta) -> row.get(0, String.class)))
                                .collectList(),
                        Connection::close)
                .block(TIMEOUT);
    }
}
