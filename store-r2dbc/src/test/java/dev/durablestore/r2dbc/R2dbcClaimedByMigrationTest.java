package dev.durablestore.r2dbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.DispatchPolicy;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.Payload;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.tck.TestClock;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Databases made before claims recorded their claimer have no {@code claimed_by} column. Opening
 * one adds it in place (S7): the rows claimed before read back as claimed by no node, so they count
 * for the route's cap (O64) but for no node's (O65); claims from then on record their node.
 */
class R2dbcClaimedByMigrationTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final ClaimScope NODE_1 = new ClaimScope("ns", "q", "n1");

    @Test
    void O65_S7_opening_an_H2_database_without_the_claimed_by_column_adds_it_and_old_claims_count_for_no_node() {
        H2Harness h = new H2Harness(TestClock.atDefaultStart());
        try {
            migrates(h::open, h.factory());
        } finally {
            h.close();
        }
    }

    @Test
    void O65_S7_opening_a_PostgreSQL_database_without_the_claimed_by_column_adds_it_and_old_claims_count_for_no_node() {
        PostgresHarness h = new PostgresHarness(TestClock.atDefaultStart());
        try {
            migrates(h::open, h.factory());
        } finally {
            h.close();
        }
    }

    private static void migrates(Supplier<ReactiveStore> open, ConnectionFactory db) {
        // given a database with six rows on route ns/q, two of them claimed as node n1,
        // then given the outbox layout of earlier versions
        WorkflowId w = WorkflowId.random();
        Instant now = TestClock.atDefaultStart().instant().minusSeconds(10);
        List<OutboxRow> rows = new ArrayList<>();
        for (int i = 1; i <= 6; i++) {
            rows.add(OutboxRow.pending(w, i, "a", Payload.json("{}"), now.plusNanos(i))
                    .withRoute("ns", "q", null));
        }
        ReactiveStore first = open.get();
        first.appendOutboxBatch(rows).block(TIMEOUT);
        assertThat(first.claim(ClaimRequest.of(2).withScope(NODE_1)).block(TIMEOUT))
                .hasSize(2);
        first.close();
        HarnessSupport.execute(db, "ALTER TABLE outbox DROP COLUMN claimed_by");
        HarnessSupport.execute(
                db, "DROP TABLE durable_store_schema"); // as databases from before schema versions were recorded (S29)

        // when a store opens it and node n1 claims with a node cap of 2
        ReactiveStore store = open.get();
        ClaimRequest asNode1 = ClaimRequest.of(10).withScope(NODE_1);
        DispatchPolicy nodeCap2 = DispatchPolicy.none().withNodeConcurrencyCap(2);
        List<OutboxRow> taken = store.claim(asNode1.withPolicy(nodeCap2)).block(TIMEOUT);

        // then the old claims count for no node: it takes two, and then none
        assertThat(taken).extracting(OutboxRow::ordinal).containsExactly(3L, 4L);
        assertThat(store.claim(asNode1.withPolicy(nodeCap2)).block(TIMEOUT)).isEmpty();
        // and they still count for the route: four claimed, so a route cap of 4 has no room
        DispatchPolicy routeCap4 = DispatchPolicy.none().withConcurrencyCap(4);
        assertThat(store.claim(asNode1.withPolicy(routeCap4)).block(TIMEOUT)).isEmpty();
        // and the stored claimers are none for the old claims and n1 for the new ones
        assertThat(claimers(db))
                .containsExactly(
                        Map.entry(rows.get(0).dispatchKey(), "-"),
                        Map.entry(rows.get(1).dispatchKey(), "-"),
                        Map.entry(rows.get(2).dispatchKey(), "n1"),
                        Map.entry(rows.get(3).dispatchKey(), "n1"),
                        Map.entry(rows.get(4).dispatchKey(), "-"),
                        Map.entry(rows.get(5).dispatchKey(), "-"));
    }

    /** @return each row's claimer by dispatch key, in key order ({@code -} for none) */
    private static List<Map.Entry<String, String>> claimers(ConnectionFactory db) {
        return Mono.usingWhen(
                        Mono.from(db.create()),
                        c -> Flux.from(c.createStatement(
                                                "SELECT dispatch_key, claimed_by FROM outbox ORDER BY dispatch_key")
                                        .execute())
                                .concatMap(r -> r.map((row, meta) -> {
                                    String by = row.get(1, String.class);
                                    return Map.entry(row.get(0, String.class), by == null ? "-" : by);
                                }))
                                .collectList(),
                        c -> Mono.from(c.close()))
                .block(TIMEOUT);
    }
}
