package dev.durablestore.r2dbc.internal;

import static dev.durablestore.r2dbc.internal.PlanFixture.lines;
import static dev.durablestore.r2dbc.internal.PlanFixture.rowsReadFromOutbox;
import static dev.durablestore.r2dbc.internal.PlanFixture.run;
import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.r2dbc.PostgresServer;
import io.r2dbc.spi.ConnectionFactories;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The claim statement keeps its plan when the table's statistics are missing or wrong: the moment
 * after a queue was filled faster than autovacuum analyses it (or a migration added a column), or
 * after autovacuum analysed it while it was empty, is exactly when a dispatcher drains it. The
 * claim must then still walk {@code outbox_pending} in claim order and stop at its limit, not read
 * and sort every pending row (which once made each claim cost O(pending) and the PostgreSQL drain
 * 2.3× slower at 10,000 rows), and update the rows it took through their keys, not by walking the
 * table (which once made each claim of 64 on 10,000 rows cost 105 ms instead of 1 ms, and the
 * capped four-node drain, whose claims run one at a time, 18× slower). Checked on the generic
 * plan, the one a driver's cached prepared statement runs, and where it matters on the custom one.
 */
class PostgresClaimPlanTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final int PENDING = 10_000;

    @ParameterizedTest
    @ValueSource(strings = {"force_generic_plan", "force_custom_plan"})
    void a_claim_on_a_queue_analysed_while_empty_reads_only_the_rows_it_claims(String planCacheMode) {
        // given an outbox analysed while it held no live row (autovacuum off, so the statistics
        // stay as they are), then refilled with 10,000 due rows
        String schema = "plan_" + UUID.randomUUID().toString().substring(0, 8);
        String rows = "INSERT INTO outbox (dispatch_key, workflow_id, ordinal, activity_type, input, status, "
                + "attempt, visible_after, namespace, task_queue) "
                + "SELECT 'k' || lpad(g::text, 8, '0'), 'w' || (g / 10), g % 10, 'a', '\\x00'::bytea, 'pending', 0, "
                + "1000 + g / 100, 'default', 'default' FROM generate_series(1, " + PENDING + ") g";
        ConnectionFactory factory = ConnectionFactories.get(PostgresServer.options());
        List<String> lines = Mono.usingWhen(
                        Mono.from(factory.create()),
                        c -> PlanFixture.analysedWhileEmpty(c, schema, rows)
                                .thenMany(lines(
                                        c,
                                        "SELECT 'reltuples=' || reltuples FROM pg_class "
                                                + "WHERE oid = 'outbox'::regclass"))
                                // when each claim statement takes 30 of them, planned as the driver's cache would
                                .concatWith(run(c, "SET plan_cache_mode = " + planCacheMode)
                                        .thenMany(Flux.fromIterable(List.of(claimStatement(), plainClaimStatement()))
                                                .index()
                                                .concatMap(claim -> run(
                                                                c,
                                                                "DO $do$ BEGIN EXECUTE $q$PREPARE claim" + claim.getT1()
                                                                        + "(bigint, bigint, text, bigint, int) AS "
                                                                        + claim.getT2() + "$q$; END $do$")
                                                        .thenMany(lines(
                                                                c,
                                                                "EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF) EXECUTE claim"
                                                                        + claim.getT1()
                                                                        + "(5000, 7, NULL, 999999999, 30)")))))
                                .collectList()
                                .flatMap(plan -> run(c, "DROP SCHEMA " + schema + " CASCADE")
                                        .thenReturn(plan)),
                        c -> Mono.from(c.close()))
                .block(TIMEOUT);

        // then each claim reads 30 rows from the pending index and updates them through the
        // primary key: it reads no more of the table than twice what it claims
        assertThat(lines.get(0)).isEqualTo("reltuples=0");
        String plans = String.join("\n", lines.subList(1, lines.size()));
        assertThat(plans).contains("Index Cond: (dispatch_key = ANY (");
        assertThat(rowsReadFromOutbox(plans)).as(plans).isLessThanOrEqualTo(2 * 2 * 30);
    }

    @Test
    void a_claim_on_a_never_analysed_queue_reads_the_pending_index_in_order() {
        // given a fresh outbox with 10,000 due rows and no statistics on any column
        String schema = "plan_" + UUID.randomUUID().toString().substring(0, 8);
        ConnectionFactory factory = ConnectionFactories.get(PostgresServer.options());
        List<String> plan = Mono.usingWhen(
                        Mono.from(factory.create()),
                        c -> run(c, "CREATE SCHEMA " + schema)
                                .then(run(c, "SET search_path TO " + schema))
                                .thenMany(Flux.fromIterable(Schema.statements(SqlDialect.POSTGRES)))
                                .concatMap(sql -> run(c, sql))
                                .then(run(
                                        c,
                                        "INSERT INTO outbox (dispatch_key, workflow_id, ordinal, activity_type, input, "
                                                + "status, attempt, visible_after, namespace, task_queue) "
                                                + "SELECT 'k' || lpad(g::text, 8, '0'), 'w' || (g / 10), g % 10, 'a', "
                                                + "'\\x00'::bytea, 'pending', 0, 1000 + g / 100, 'default', 'default' "
                                                + "FROM generate_series(1, " + PENDING + ") g"))
                                // when the stream's claim statement is planned generically (as cached)
                                .then(run(c, "SET plan_cache_mode = force_generic_plan"))
                                // (inside a DO block: the driver sends no statement text with $n markers unbound)
                                .then(run(
                                        c,
                                        "DO $do$ BEGIN EXECUTE $q$PREPARE claim(bigint, bigint, text, bigint, int) AS "
                                                + claimStatement() + "$q$; END $do$"))
                                .thenMany(lines(c, "EXPLAIN EXECUTE claim(5000, 7, NULL, 999999999, 30)"))
                                .collectList()
                                .flatMap(lines -> run(c, "DROP SCHEMA " + schema + " CASCADE")
                                        .thenReturn(lines)),
                        c -> Mono.from(c.close()))
                .block(TIMEOUT);

        // then the due rows are read from the pending index in claim order, never sorted nor
        // gathered by a bitmap (the update may fetch the keys it took by one: outbox_pkey)
        String text = String.join("\n", plan);
        assertThat(text).contains("Index Scan using outbox_pending");
        assertThat(text).doesNotContain("Sort Key: outbox_1.visible_after");
        assertThat(text.replace("Bitmap Index Scan on outbox_pkey", "")).doesNotContain("Bitmap Index Scan");
    }

    /**
     * The stream's claim of every route, as {@link Claims} builds it: it records no claimer (O65),
     * and writing the unindexed {@code claimed_by} changes nothing in the plan.
     */
    private static String claimStatement() {
        return SqlDialect.POSTGRES.claimWithNextDue(
                "status = 'claimed', claimed_at = $1, claim_token = $2, claimed_by = $3",
                "status = 'pending' AND visible_after <= $4",
                "$5",
                OutboxRows.CLAIMED_RETURNING_PG,
                "status = 'pending'");
    }

    /** The claim of every route outside a stream ({@code ReactiveStore.claim}), as {@link Claims} builds it. */
    private static String plainClaimStatement() {
        return SqlDialect.POSTGRES.claim(
                "status = 'claimed', claimed_at = $1, claim_token = $2, claimed_by = $3",
                "status = 'pending' AND visible_after <= $4",
                "$5",
                OutboxRows.CLAIMED_RETURNING_PG);
    }
}
