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
 * 2.3× slower at 10,000 rows), and update the rows it took where its arms locked them (by tuple
 * id), not by walking the table (which once made each claim of 64 on 10,000 rows cost 105 ms
 * instead of 1 ms, and the capped four-node drain, whose claims run one at a time, 18× slower).
 * Checked on the generic plan, the one a driver's cached prepared statement runs, and where it
 * matters on the custom one.
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
        String rows = PlanFixture.pendingRows(PENDING);
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

        // then each claim reads 30 rows from the pending index and updates them where it locked
        // them, by tuple id: it reads no more of the table than twice what it claims
        assertThat(lines.get(0)).isEqualTo("reltuples=0");
        String plans = String.join("\n", lines.subList(1, lines.size()));
        assertThat(plans).contains("TID Cond: (ctid = ANY (");
        assertThat(rowsReadFromOutbox(plans)).as(plans).isLessThanOrEqualTo(2 * 2 * 30);
    }

    @ParameterizedTest
    @ValueSource(strings = {"force_generic_plan", "force_custom_plan"})
    void a_claim_on_a_never_analysed_queue_reads_the_pending_index_in_order(String mode) {
        // given a fresh outbox with 10,000 due rows and no statistics on any column
        String schema = "plan_" + UUID.randomUUID().toString().substring(0, 8);
        ConnectionFactory factory = ConnectionFactories.get(PostgresServer.options());
        List<String> plan = Mono.usingWhen(
                        Mono.from(factory.create()),
                        c -> PlanFixture.created(c, schema)
                                .then(run(c, PlanFixture.pendingRows(PENDING)))
                                // when the stream's claim statement is planned generically (as a cached
                                // statement is once PostgreSQL keeps its plan) or with its parameters known
                                .then(run(c, "SET plan_cache_mode = " + mode))
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
        // gathered by a bitmap, and the update fetches the rows it locked by their tuple ids
        String text = String.join("\n", plan);
        assertThat(text).contains("Index Scan using outbox_pending");
        assertThat(text).doesNotContain("Sort Key: outbox_1.visible_after");
        assertThat(text).doesNotContain("Bitmap Index Scan");
        assertThat(text).contains("Tid Scan on outbox o");
    }

    @Test
    void a_cached_claim_keeps_its_generic_plan_and_locks_only_its_limit() {
        // given 20,000 due rows, analysed
        String schema = "plan_" + UUID.randomUUID().toString().substring(0, 8);
        ConnectionFactory factory = ConnectionFactories.get(PostgresServer.options());
        List<String> seen = Mono.usingWhen(
                        Mono.zip(Mono.from(factory.create()), Mono.from(factory.create())),
                        both -> {
                            io.r2dbc.spi.Connection c = both.getT1();
                            io.r2dbc.spi.Connection other = both.getT2();
                            return PlanFixture.created(c, schema)
                                    .then(run(other, "SET search_path TO " + schema))
                                    .then(run(
                                            c,
                                            "INSERT INTO outbox (dispatch_key, workflow_id, ordinal, activity_type, "
                                                    + "input, status, attempt, visible_after, namespace, task_queue) "
                                                    + "SELECT 'k' || lpad(g::text, 8, '0'), 'w' || g, 0, 'a', "
                                                    + "'\\x00'::bytea, 'pending', 0, 1000 + g, 'default', 'default' "
                                                    + "FROM generate_series(1, 20000) g"))
                                    .then(run(c, "ANALYZE outbox"))
                                    // when the stream's claim of 40 runs ten times as a cached statement
                                    // (planned as PostgreSQL chooses), each in its own transaction
                                    .then(run(c, "SET plan_cache_mode = auto"))
                                    .then(run(
                                            c,
                                            "DO $do$ BEGIN EXECUTE $q$PREPARE claim(bigint, bigint, text, bigint, "
                                                    + "int) AS " + claimStatement() + "$q$; END $do$"))
                                    .thenMany(Flux.range(0, 10)
                                            .concatMap(i -> run(c, "BEGIN")
                                                    .thenMany(lines(c, "EXECUTE claim(5000, 7, NULL, 999999999, 40)"))
                                                    .count()
                                                    // and while the tenth is not yet committed, another
                                                    // transaction takes every row it can lock
                                                    .flatMap(claimed -> (i < 9
                                                                    ? Mono.just("")
                                                                    : lines(
                                                                                    other,
                                                                                    "SELECT count(*) FROM (SELECT 1 "
                                                                                            + "FROM outbox FOR UPDATE SKIP "
                                                                                            + "LOCKED) free")
                                                                            .next()
                                                                            .map(free -> " free=" + free))
                                                            .map(free -> "claimed=" + claimed + free))
                                                    .flatMap(line ->
                                                            run(c, "COMMIT").thenReturn(line))))
                                    .concatWith(lines(
                                            c,
                                            "SELECT 'generic=' || generic_plans || ' custom=' || custom_plans "
                                                    + "FROM pg_prepared_statements WHERE name = 'claim'"))
                                    .collectList()
                                    .flatMap(lines -> run(c, "DROP SCHEMA " + schema + " CASCADE")
                                            .thenReturn(lines));
                        },
                        both -> Mono.from(both.getT1().close())
                                .then(Mono.from(both.getT2().close())))
                .block(TIMEOUT);

        // then every claim took its 40 rows and locked no more (the other transaction could lock
        // all 20,000 rows but the 40 of the claim in flight), and PostgreSQL kept the generic plan
        // after its first five custom ones rather than planning each run afresh
        assertThat(seen.subList(0, 9)).containsOnly("claimed=40");
        assertThat(seen.get(9)).isEqualTo("claimed=40 free=19960");
        assertThat(seen.get(10)).isEqualTo("generic=5 custom=5");
    }

    /** The stream's claim of every route, as {@link Claims} builds it. */
    private static String claimStatement() {
        return PlanFixture.streamClaim("");
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
