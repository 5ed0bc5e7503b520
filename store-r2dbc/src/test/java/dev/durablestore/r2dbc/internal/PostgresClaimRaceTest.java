package dev.durablestore.r2dbc.internal;

import static dev.durablestore.r2dbc.internal.PlanFixture.lines;
import static dev.durablestore.r2dbc.internal.PlanFixture.run;
import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.r2dbc.PostgresServer;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactories;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * O21 and O52 when a due row changes under a claim: another transaction updates the row (it stays
 * due) and commits after the claim statement took its snapshot and before its arm locks the row.
 * The arm then locks the row's newest version, which the update's snapshot does not see, so the
 * claim leaves the row out: it is not claimed twice nor lost, it stays pending, the claim reports it
 * due (so a stream claims again at once instead of waiting for its poll), and the next claim takes
 * it. The window is opened on purpose: the claim's due predicate waits, at the row, for an advisory
 * lock that the other transaction holds until it commits its update.
 */
class PostgresClaimRaceTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    /** The advisory lock the claim's arm waits for at each row it reads. */
    private static final int GATE = 72800999;

    @Test
    void a_due_row_updated_while_a_claim_reads_it_stays_pending_is_reported_due_and_the_next_claim_takes_it()
            throws Exception {
        String schema = "race_" + UUID.randomUUID().toString().substring(0, 8);
        ConnectionFactory factory = ConnectionFactories.get(PostgresServer.options());
        Connection claimer = Mono.from(factory.create()).block(TIMEOUT);
        Connection writer = Mono.from(factory.create()).block(TIMEOUT);
        try {
            // given one due row (visible after 1000), the stream's claim prepared with a gate in its
            // due predicate, and a writer transaction holding the gate
            PlanFixture.created(claimer, schema).block(TIMEOUT);
            run(
                            claimer,
                            "INSERT INTO outbox (dispatch_key, workflow_id, ordinal, activity_type, input, status, "
                                    + "attempt, visible_after, namespace, task_queue) VALUES ('k1', 'w1', 0, 'a', "
                                    + "'\\x00'::bytea, 'pending', 0, 1000, 'default', 'default')")
                    .block(TIMEOUT);
            run(
                            claimer,
                            "DO $do$ BEGIN EXECUTE $q$PREPARE claim(bigint, bigint, text, bigint, int) AS "
                                    + gatedClaimStatement() + "$q$; END $do$")
                    .block(TIMEOUT);
            run(writer, "SET search_path TO " + schema).block(TIMEOUT);
            run(writer, "BEGIN").block(TIMEOUT);
            lines(writer, "SELECT pg_advisory_xact_lock(" + GATE + ")").blockLast(TIMEOUT);

            // when the claim has taken its snapshot and waits at the row
            CompletableFuture<List<String>> first = claim(claimer).toFuture();
            // (asked again as soon as each answer is in, until the claim's lock request waits)
            Flux.defer(() -> lines(
                            writer,
                            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = " + GATE
                                    + " AND NOT granted"))
                    .repeat()
                    .filter("1"::equals)
                    .next()
                    .block(TIMEOUT);
            // and the writer moves the row (still due) and commits, which lets the claim go on
            run(writer, "UPDATE outbox SET visible_after = 999 WHERE dispatch_key = 'k1'")
                    .block(TIMEOUT);
            run(writer, "COMMIT").block(TIMEOUT);
            List<String> firstClaim = first.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);

            // then the claim took nothing and reported the row due (the version its snapshot sees)
            assertThat(firstClaim).containsExactly("null due 1000");
            // and the row is pending, as the writer left it
            assertThat(lines(claimer, "SELECT status || ' ' || visible_after FROM outbox")
                            .collectList()
                            .block(TIMEOUT))
                    .containsExactly("pending 999");
            // and the next claim takes it
            assertThat(claim(claimer).block(TIMEOUT)).containsExactly("k1 due null");
            assertThat(lines(claimer, "SELECT status || ' ' || claim_token FROM outbox")
                            .collectList()
                            .block(TIMEOUT))
                    .containsExactly("claimed 7");
        } finally {
            // the writer first: closing it ends its transaction and lets a claim still waiting go on
            Mono.from(writer.close()).block(TIMEOUT);
            run(claimer, "DROP SCHEMA IF EXISTS " + schema + " CASCADE").block(TIMEOUT);
            Mono.from(claimer.close()).block(TIMEOUT);
        }
    }

    /** @return each returned row as its claimed key and the next due time */
    private static Mono<List<String>> claim(Connection c) {
        return Flux.from(c.createBatch()
                        .add("EXECUTE claim(5000, 7, NULL, 999999999, 30)")
                        .execute())
                .concatMap(r -> r.map((row, meta) ->
                        row.get("dispatch_key", String.class) + " due " + row.get("next_due", Long.class)))
                .collectList();
    }

    /**
     * The stream's claim of every route, as {@link Claims} builds it, with one more due predicate that
     * waits for {@link #GATE} (shared) at each row the arms read: after the statement's snapshot,
     * before the row is locked. {@code void} cast to text is the empty string.
     */
    private static String gatedClaimStatement() {
        return PlanFixture.streamClaim(" AND pg_advisory_xact_lock_shared(" + GATE + ")::text = ''");
    }
}
