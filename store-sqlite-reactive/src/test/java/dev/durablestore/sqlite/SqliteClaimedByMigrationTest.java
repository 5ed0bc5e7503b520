package dev.durablestore.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.DispatchPolicy;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.Payload;
import dev.durablestore.api.WorkflowId;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files made before claims recorded their claimer have no {@code claimed_by} column. Opening one
 * adds it in place (S7): the rows claimed before read back as claimed by no node, so they count for
 * the route's cap (O64) but for no node's (O65); claims from then on record their node.
 */
class SqliteClaimedByMigrationTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final ClaimScope NODE_1 = new ClaimScope("ns", "q", "n1");

    @TempDir
    Path dir;

    @Test
    void O65_S7_opening_a_file_without_the_claimed_by_column_adds_it_and_old_claims_count_for_no_node()
            throws Exception {
        // given a file with six rows on route ns/q, two of them claimed as node n1,
        // then given the outbox layout of earlier versions
        Path db = dir.resolve("old.db");
        WorkflowId w = WorkflowId.random();
        Instant now = Instant.parse("2026-01-01T00:00:00Z");
        List<OutboxRow> rows = new ArrayList<>();
        for (int i = 1; i <= 6; i++) {
            rows.add(OutboxRow.pending(w, i, "a", Payload.json("{}"), now.plusNanos(i))
                    .withRoute("ns", "q", null));
        }
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(db))) {
            store.appendOutboxBatch(rows).block(TIMEOUT);
            assertThat(store.claim(ClaimRequest.of(2).withScope(NODE_1)).block(TIMEOUT))
                    .hasSize(2);
        }
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
                Statement s = c.createStatement()) {
            s.execute("ALTER TABLE outbox DROP COLUMN claimed_by");
            s.execute("PRAGMA user_version = 0"); // as files from before schema versions were recorded (S29)
        }

        // when the store opens it and node n1 claims with a node cap of 2
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(db))) {
            ClaimRequest asNode1 = ClaimRequest.of(10).withScope(NODE_1);
            DispatchPolicy nodeCap2 = DispatchPolicy.none().withNodeConcurrencyCap(2);
            List<OutboxRow> taken = store.claim(asNode1.withPolicy(nodeCap2)).block(TIMEOUT);

            // then the old claims count for no node: it takes two, and then none
            assertThat(taken).extracting(OutboxRow::ordinal).containsExactly(3L, 4L);
            assertThat(store.claim(asNode1.withPolicy(nodeCap2)).block(TIMEOUT)).isEmpty();
            // and they still count for the route: four claimed, so a route cap of 4 has no room
            DispatchPolicy routeCap4 = DispatchPolicy.none().withConcurrencyCap(4);
            assertThat(store.claim(asNode1.withPolicy(routeCap4)).block(TIMEOUT))
                    .isEmpty();
        }
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
    private static Map<String, String> claimers(Path db) throws Exception {
        Map<String, String> claimers = new LinkedHashMap<>();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT dispatch_key, claimed_by FROM outbox ORDER BY dispatch_key")) {
            while (rs.next()) {
                String by = rs.getString(2);
                claimers.put(rs.getString(1), by == null ? "-" : by);
            }
        }
        return claimers;
    }
}
