package dev.durablestore.r2dbc.internal;

import static dev.durablestore.r2dbc.internal.PlanFixture.lines;
import static dev.durablestore.r2dbc.internal.PlanFixture.rowsReadFromOutbox;
import static dev.durablestore.r2dbc.internal.PlanFixture.run;
import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.r2dbc.PostgresServer;
import io.r2dbc.spi.ConnectionFactories;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The grouped settle statements keep their plan when the table's statistics are wrong, as the
 * claim does ({@link PostgresClaimPlanTest}): after autovacuum analysed the outbox while it was
 * empty and a burst refilled it, a settle of 64 keys must still find its rows through the primary
 * key, not walk an index over every row (which made a group of 64 completes cost 20 ms instead of
 * 1 ms, and a mixed group 167 ms). Checked on the generic plan, the one a driver's cached prepared
 * statement runs, and on the custom one.
 */
class PostgresSettlePlanTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final int ROWS = 10_000;
    private static final int GROUP = 64;

    /** Each statement, its parameter types, and its arguments but the keys (which come first). */
    private static final List<String[]> STATEMENTS = List.of(
            new String[] {GroupedSettles.SETTLE_ALIKE, "text, bigint, text[]", "'done', 5, %s"},
            new String[] {GroupedSettles.SETTLE, "text[], text[], bigint[], bigint[], bigint", "%s, %s, %s, %s, 5"},
            new String[] {GroupedFencedSettles.SETTLE_ALIKE, "text[], bigint[], text, bigint", "%s, %s, 'done', 5"},
            new String[] {
                GroupedFencedSettles.SETTLE,
                "text[], bigint[], text[], bigint[], bigint[], bigint, text[]",
                "%s, %s, %s, %s, %s, 5, %s"
            });

    @ParameterizedTest
    @ValueSource(strings = {"force_generic_plan", "force_custom_plan"})
    void a_settle_group_on_a_queue_analysed_while_empty_reads_only_its_rows(String planCacheMode) {
        // given an outbox analysed while it held no live row (autovacuum off, so the statistics stay
        // as they are), then refilled with 10,000 rows, the first thousand claimed under token 7
        String schema = "plan_" + UUID.randomUUID().toString().substring(0, 8);
        String rows = "INSERT INTO outbox (dispatch_key, workflow_id, ordinal, activity_type, input, status, "
                + "attempt, visible_after, namespace, task_queue, claimed_at, claim_token) "
                + "SELECT 'k' || lpad(g::text, 8, '0'), 'w' || (g / 10), g % 10, 'a', '\\x00'::bytea, "
                + "CASE WHEN g <= 1000 THEN 'claimed' ELSE 'pending' END, 0, 1000 + g / 100, 'default', 'default', "
                + "CASE WHEN g <= 1000 THEN 1 END, CASE WHEN g <= 1000 THEN 7 END "
                + "FROM generate_series(1, " + ROWS + ") g";
        List<String> work = new ArrayList<>();
        for (int i = 0; i < STATEMENTS.size(); i++) {
            String[] s = STATEMENTS.get(i);
            work.add("DO $do$ BEGIN EXECUTE $q$PREPARE settle" + i + "(" + s[1] + ") AS " + s[0] + "$q$; END $do$");
        }
        ConnectionFactory factory = ConnectionFactories.get(PostgresServer.options());
        List<String> lines = Mono.usingWhen(
                        Mono.from(factory.create()),
                        c -> PlanFixture.analysedWhileEmpty(c, schema, rows)
                                .then(run(c, "SET plan_cache_mode = " + planCacheMode))
                                .thenMany(Flux.fromIterable(work))
                                .concatMap(sql -> run(c, sql))
                                // when each settle statement settles its own 64 claimed rows
                                .thenMany(Flux.range(0, STATEMENTS.size())
                                        .concatMap(i -> lines(
                                                c,
                                                "EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF) EXECUTE settle" + i + "("
                                                        + arguments(i) + ")")))
                                .collectList()
                                .flatMap(plan -> run(c, "DROP SCHEMA " + schema + " CASCADE")
                                        .thenReturn(plan)),
                        c -> Mono.from(c.close()))
                .block(TIMEOUT);

        // then each statement looks its keys up in the primary key and reads no more of the table
        // than twice the rows it settles
        String plans = String.join("\n", lines);
        List<String> each = new ArrayList<>();
        for (String line : lines) {
            if (line.startsWith("Update on outbox")) {
                each.add(line);
            } else {
                each.set(each.size() - 1, each.get(each.size() - 1) + "\n" + line);
            }
        }
        assertThat(each).as(plans).hasSize(STATEMENTS.size());
        for (String plan : each) {
            assertThat(plan)
                    .containsPattern(
                            "Index Scan using outbox_pkey on outbox.*\n\\s*Index Cond: \\((o\\.)?dispatch_key = ANY");
            assertThat(plan).doesNotContain("Rows Removed by Filter"); // (a join filter compares in memory)
            assertThat(rowsReadFromOutbox(plan)).as(plan).isLessThanOrEqualTo(2 * GROUP);
        }
    }

    /** The arguments of statement {@code i}: keys {@code 64·i+1 … 64·(i+1)}, claimed under token 7. */
    private static String arguments(int i) {
        List<Integer> g =
                IntStream.rangeClosed(GROUP * i + 1, GROUP * (i + 1)).boxed().toList();
        String keys = array(g.stream().map(n -> String.format("'k%08d'", n)), "text");
        String tokens = array(g.stream().map(n -> "7"), "bigint");
        String statuses = array(g.stream().map(n -> n % 2 == 0 ? "'done'" : "'pending'"), "text");
        String numbers = array(g.stream().map(n -> "3"), "bigint");
        // every third settle records a failure (O66), the others leave the failures as they are
        String failures = array(
                g.stream().map(n -> n % 3 == 0 ? "'[{\"attempt\":1,\"at\":0,\"message\":\"m\"}]'" : "NULL"), "text");
        return switch (i) {
            case 0 -> String.format(STATEMENTS.get(0)[2], keys);
            case 1 -> String.format(STATEMENTS.get(1)[2], keys, statuses, numbers, numbers);
            case 2 -> String.format(STATEMENTS.get(2)[2], keys, tokens);
            default -> String.format(STATEMENTS.get(3)[2], keys, tokens, statuses, numbers, numbers, failures);
        };
    }

    private static String array(java.util.stream.Stream<String> values, String type) {
        return "ARRAY[" + values.collect(Collectors.joining(",")) + "]::" + type + "[]";
    }
}
