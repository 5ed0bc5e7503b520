package dev.durablestore.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.ReactiveStore;
import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * The overview over 1,000,000 outbox rows: the count reads at most {@code countCap} rows per status and
 * is cached, so a page answers well under a second, and later pages answer from the cache.
 */
class OverviewScaleTest {

    private static final int ROWS = 1_000_000;

    @TempDir
    Path dir;

    @Test
    @SuppressWarnings("unchecked")
    void a_page_over_a_million_rows_answers_well_under_a_second() throws Exception {
        Path file = dir.resolve("big.db");
        SqliteReactiveStore.open(SqliteStoreConfig.of(file)).close(); // the schema
        long now = Instant.now().minusSeconds(3600).getEpochSecond() * 1_000_000_000L;
        byte[] input =
                dev.durablestore.core.codec.EventCodec.create().encodePayload(dev.durablestore.api.Payload.json("{}"));
        String hex = java.util.HexFormat.of().formatHex(input);
        long loadStart = System.nanoTime();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
                Statement s = c.createStatement()) {
            s.execute("PRAGMA synchronous=OFF");
            // 90 % done, 5 % pending, 3 % failed, 2 % claimed, over four namespaces
            s.execute("WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < " + (ROWS - 1) + ") "
                    + "INSERT INTO outbox (dispatch_key, workflow_id, ordinal, activity_type, input, status, attempt, "
                    + "visible_after, claimed_at, namespace, task_queue, node, settled_at, claim_token) "
                    + "SELECT printf('%08d-0000-4000-8000-000000000000:0', i), printf('%08d-0000-4000-8000-000000000000', i), "
                    + "0, 'charge', x'" + hex
                    + "', CASE WHEN i % 100 < 90 THEN 'done' WHEN i % 100 < 95 THEN 'pending' "
                    + "WHEN i % 100 < 98 THEN 'failed' ELSE 'claimed' END, 0, " + now + ", "
                    + "CASE WHEN i % 100 >= 98 THEN " + now + " END, 'ns' || (i % 4), 'q', NULL, "
                    + "CASE WHEN i % 100 < 90 OR i % 100 BETWEEN 95 AND 97 THEN " + now + " END, "
                    + "CASE WHEN i % 100 >= 98 THEN 1 ELSE 0 END FROM n");
        }
        long loadMillis = (System.nanoTime() - loadStart) / 1_000_000;
        try (ReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(file))) {
            DurableConsole console = DurableConsole.builder(store)
                    .withOptions(ConsoleOptions.defaults().withCountTtl(Duration.ofSeconds(30)))
                    .build();
            WebTestClient client = WebTestClient.bindToRouterFunction(console.router("/c"))
                    .configureClient()
                    .responseTimeout(Duration.ofSeconds(30))
                    .build();

            long cold = System.nanoTime();
            Map<String, Object> first = client.get()
                    .uri("/c/api/overview")
                    .exchange()
                    .expectStatus()
                    .isOk()
                    .expectBody(Map.class)
                    .returnResult()
                    .getResponseBody();
            long coldMillis = (System.nanoTime() - cold) / 1_000_000;

            long warmMax = 0;
            for (int i = 0; i < 20; i++) {
                long t = System.nanoTime();
                client.get().uri("/c/api/overview").exchange().expectStatus().isOk();
                warmMax = Math.max(warmMax, (System.nanoTime() - t) / 1_000_000);
            }
            long list = System.nanoTime();
            client.get()
                    .uri("/c/api/rows?status=failed&namespace=ns3&limit=50")
                    .exchange()
                    .expectStatus()
                    .isOk();
            long listMillis = (System.nanoTime() - list) / 1_000_000;
            System.out.printf(
                    "OverviewScaleTest: %,d rows loaded in %d ms; first overview %d ms (count %s ms), "
                            + "cached overview at most %d ms over 20 pages, a page of dead letters %d ms%n",
                    ROWS, loadMillis, coldMillis, first.get("countMillis"), warmMax, listMillis);

            // done (900,000) and pending (50,000)... are read at most 100,000 rows per status
            assertThat((List<String>) first.get("capped")).containsExactly("done");
            Map<String, Object> totals = (Map<String, Object>) first.get("totals");
            assertThat(((Number) totals.get("done")).longValue()).isEqualTo(100_000);
            assertThat(((Number) totals.get("pending")).longValue()).isEqualTo(50_000);
            assertThat(((Number) totals.get("failed")).longValue()).isEqualTo(30_000);
            assertThat(((Number) totals.get("claimed")).longValue()).isEqualTo(20_000);
            // measured here: first page 616 ms (count 480 ms), cached pages at most 6 ms; the first page gets
            // headroom for a loaded CI machine, the cached pages none
            assertThat(coldMillis).as("the first, counted page").isLessThan(2500);
            assertThat(warmMax).as("a cached page").isLessThan(200);
        }
    }
}
