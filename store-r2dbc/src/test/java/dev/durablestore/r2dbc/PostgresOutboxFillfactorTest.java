package dev.durablestore.r2dbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.Payload;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.tck.TestClock;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * On PostgreSQL the outbox leaves half of each page free ({@code fillfactor} 50), so the new
 * versions its claims and settles write stay on the pages they read. Databases made before get the
 * setting when a store opens them (S7), without a rewrite; an outbox whose operator chose a
 * fillfactor keeps it. (H2 has no such setting.)
 */
class PostgresOutboxFillfactorTest {

    private static final Duration TIMEOUT = HarnessSupport.TIMEOUT;
    private static final ClaimScope SCOPE = new ClaimScope("ns", "q", "n1");

    private PostgresHarness h;

    @BeforeEach
    void newDatabase() {
        h = new PostgresHarness(TestClock.atDefaultStart());
    }

    @AfterEach
    void close() {
        h.close();
    }

    @Test
    void S6_a_new_outbox_leaves_half_of_each_page_free_and_opening_again_keeps_it() {
        // given a new database
        // when a store creates it, closes, and a store opens it again
        h.open().close();
        h.open().close();

        // then the outbox has the setting once
        assertThat(reloptions(h.factory())).isEqualTo("fillfactor=50");
    }

    @Test
    void S7_opening_an_outbox_made_before_the_setting_sets_it_in_place_and_its_rows_claim_as_before() {
        // given three pending rows in an outbox of the earlier layout (no fillfactor)
        List<OutboxRow> rows = pendingRows(3);
        ReactiveStore first = h.open();
        first.appendOutboxBatch(rows).block(TIMEOUT);
        first.close();
        HarnessSupport.execute(h.factory(), "ALTER TABLE outbox RESET (fillfactor)");
        assertThat(reloptions(h.factory())).isEqualTo("-");
        String file = fileOf(h.factory());

        // when a store opens it
        ReactiveStore store = h.open();

        // then the outbox has the setting, its file was not rewritten, and its rows claim in order
        assertThat(reloptions(h.factory())).isEqualTo("fillfactor=50");
        assertThat(fileOf(h.factory())).isEqualTo(file);
        assertThat(store.claim(ClaimRequest.of(10).withScope(SCOPE)).block(TIMEOUT))
                .extracting(OutboxRow::dispatchKey)
                .containsExactlyElementsOf(
                        rows.stream().map(OutboxRow::dispatchKey).toList());
    }

    @Test
    void S7_an_outbox_whose_operator_chose_a_fillfactor_keeps_it() {
        // given an outbox tuned by its operator
        h.open().close();
        HarnessSupport.execute(h.factory(), "ALTER TABLE outbox SET (fillfactor = 80)");

        // when a store opens it
        h.open().close();

        // then the operator's setting stands
        assertThat(reloptions(h.factory())).isEqualTo("fillfactor=80");
    }

    private static List<OutboxRow> pendingRows(int n) {
        WorkflowId w = WorkflowId.random();
        Instant due = TestClock.atDefaultStart().instant().minusSeconds(10);
        List<OutboxRow> rows = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            rows.add(OutboxRow.pending(w, i, "a", Payload.json("{}"), due.plusNanos(i))
                    .withRoute("ns", "q", null));
        }
        return rows;
    }

    /** @return the outbox's storage settings, {@code -} for none */
    private static String reloptions(ConnectionFactory db) {
        return text(
                db,
                "SELECT COALESCE(array_to_string(reloptions, ','), '-') FROM pg_class "
                        + "WHERE oid = 'outbox'::regclass");
    }

    /** @return the outbox's file, which a rewrite would change */
    private static String fileOf(ConnectionFactory db) {
        return text(db, "SELECT pg_relation_filenode('outbox')::text");
    }

    private static String text(ConnectionFactory db, String sql) {
        return Mono.usingWhen(
                        Mono.from(db.create()),
                        (Connection c) -> Flux.from(c.createStatement(sql).execute())
                                .flatMap(r -> r.map((row, meta) -> row.get(0, String.class)))
                                .single(),
                        Connection::close)
                .block(TIMEOUT);
    }
}
