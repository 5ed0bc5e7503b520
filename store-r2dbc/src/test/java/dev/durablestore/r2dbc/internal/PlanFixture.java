package dev.durablestore.r2dbc.internal;

import io.r2dbc.spi.Connection;
import io.r2dbc.spi.Result;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** What the plan tests share: an outbox with wrong statistics, and reading {@code EXPLAIN} output. */
final class PlanFixture {

    private PlanFixture() {}

    /**
     * Creates the store's schema in {@code schema} (the connection's search path from then on),
     * fills the outbox with {@code rows}, empties it, analyses it while it holds no live row
     * (autovacuum off, so the statistics stay as they are: {@code reltuples = 0}), and fills it again.
     *
     * @param c the connection
     * @param schema a fresh schema name
     * @param rows an {@code INSERT INTO outbox …}
     * @return completes once the outbox is refilled
     */
    static Mono<Void> analysedWhileEmpty(Connection c, String schema, String rows) {
        return created(c, schema)
                .then(run(c, "ALTER TABLE outbox SET (autovacuum_enabled = false)"))
                .then(run(c, rows))
                .then(run(c, "DELETE FROM outbox"))
                .then(run(c, "ANALYZE outbox"))
                .then(run(c, rows))
                .then();
    }

    /**
     * Creates the store's schema in {@code schema}, the connection's search path from then on.
     *
     * @param c the connection
     * @param schema a fresh schema name
     * @return completes once the tables and indexes exist
     */
    static Mono<Void> created(Connection c, String schema) {
        return run(c, "CREATE SCHEMA " + schema)
                .then(run(c, "SET search_path TO " + schema))
                .thenMany(Flux.fromIterable(Schema.statements(SqlDialect.POSTGRES)))
                .concatMap(sql -> run(c, sql))
                .then();
    }

    /**
     * @param n rows
     * @return an {@code INSERT INTO outbox …} of {@code n} due rows, ten per workflow, on the
     *     default route
     */
    static String pendingRows(int n) {
        return "INSERT INTO outbox (dispatch_key, workflow_id, ordinal, activity_type, input, status, "
                + "attempt, visible_after, namespace, task_queue) "
                + "SELECT 'k' || lpad(g::text, 8, '0'), 'w' || (g / 10), g % 10, 'a', '\\x00'::bytea, 'pending', 0, "
                + "1000 + g / 100, 'default', 'default' FROM generate_series(1, " + n + ") g";
    }

    /**
     * The stream's claim of every route, as {@link Claims} builds it, its markers those of
     * {@code PREPARE claim(bigint, bigint, text, bigint, int)}: it records no claimer (O65), and
     * writing the unindexed {@code claimed_by} changes nothing in the plan.
     *
     * @param moreDue a predicate added to the due rows' ({@code ""} for none, else starting with
     *     {@code " AND "})
     * @return the statement
     */
    static String streamClaim(String moreDue) {
        return SqlDialect.POSTGRES.claimWithNextDue(
                "status = 'claimed', claimed_at = $1, claim_token = $2, claimed_by = $3",
                "status = 'pending' AND visible_after <= $4" + moreDue,
                "$5",
                OutboxRows.CLAIMED_RETURNING_PG,
                "status = 'pending'");
    }

    /**
     * @param plans {@code EXPLAIN ANALYZE} output
     * @return the rows every scan of the outbox produced, over all its loops
     */
    static long rowsReadFromOutbox(String plans) {
        Matcher scan = Pattern.compile("Scan[^(\\n]* on outbox\\b[^(\\n]*\\(actual rows=(\\d+) loops=(\\d+)\\)")
                .matcher(plans);
        long read = 0;
        while (scan.find()) {
            read += Long.parseLong(scan.group(1)) * Long.parseLong(scan.group(2));
        }
        return read;
    }

    /** Sent by the simple query protocol (a batch), so the driver binds nothing to {@code $n}. */
    static Mono<Long> run(Connection c, String sql) {
        return Flux.from(c.createBatch().add(sql).execute())
                .concatMap(Result::getRowsUpdated)
                .reduce(0L, Long::sum);
    }

    /** @return the first column of every row {@code sql} returns, as text */
    static Flux<String> lines(Connection c, String sql) {
        return Flux.from(c.createBatch().add(sql).execute())
                .concatMap(r -> r.map((row, meta) -> String.valueOf(row.get(0))));
    }
}
