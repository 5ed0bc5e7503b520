package dev.durablestore.r2dbc.internal;

import java.util.List;

/**
 * The places where PostgreSQL and H2 (in {@code MODE=PostgreSQL}) need different SQL; everything
 * else is written once. Both use {@code $n} bind markers, {@code BYTEA} payloads, {@code BIGINT}
 * epoch-nanosecond timestamps and {@code INSERT … ON CONFLICT DO NOTHING} for insert-or-ignore.
 *
 * <ul>
 *   <li>Text columns: PostgreSQL compares in the database's collation, so every text column is
 *       declared {@code COLLATE "C"} (code-point order, O18, M3); H2 compares Java strings.</li>
 *   <li>Rows back from an {@code UPDATE}: PostgreSQL {@code UPDATE … RETURNING}; H2 has no
 *       {@code RETURNING} and uses {@code SELECT … FROM FINAL TABLE (UPDATE …)}.</li>
 *   <li>Claims: PostgreSQL selects due rows {@code FOR UPDATE SKIP LOCKED} in a CTE and updates
 *       them in the same statement, so concurrent claimers on any node never take a row twice
 *       and never wait for each other. H2 is only ever one process: every write transaction takes
 *       one lock row first (like SQLite's {@code BEGIN IMMEDIATE}), so writes from all instances
 *       on one H2 database are serialized and the claim can select the due keys, then update
 *       exactly those keys, in the same transaction. (H2 re-evaluates an {@code IN (SELECT … LIMIT
 *       n)} subquery of an {@code UPDATE} or {@code DELETE} row by row, so the one-statement form
 *       is both slow and wrong there.)</li>
 *   <li>Timer upsert: {@code ON CONFLICT (…) DO UPDATE} on PostgreSQL, {@code MERGE … KEY} on H2.</li>
 *   <li>Many rows in one statement: on PostgreSQL grouped appends, grouped settles, staging and
 *       re-arm send their rows as arrays read back by {@code unnest} ({@link ArrayRelation}), a
 *       re-arm as {@code INSERT … ON CONFLICT (dispatch_key) DO UPDATE}; H2, which has neither
 *       that upsert nor the same {@code unnest} of array parameters, runs one statement per row in
 *       the write's transaction ({@link OutboxRows#INSERT_OR_IGNORE}).</li>
 *   <li>Partial indexes (pending and claimed rows) on PostgreSQL only; plain indexes on H2.</li>
 *   <li>Wake-ups across nodes: {@code NOTIFY} on PostgreSQL only.</li>
 * </ul>
 */
abstract class SqlDialect {

    /** PostgreSQL 12 or newer through r2dbc-postgresql. */
    static final SqlDialect POSTGRES = new Postgres();
    /** H2 2.4+ in {@code MODE=PostgreSQL} through r2dbc-h2 (the in-process test double). */
    static final SqlDialect H2 = new H2();

    /** @return the dialect's name */
    abstract String name();

    /** @return true for PostgreSQL */
    abstract boolean postgres();

    /** @return the type of every text column */
    abstract String text();

    /**
     * @param update an {@code UPDATE} statement
     * @param columns the columns to return, already qualified when needed
     * @return a statement returning the updated rows' columns
     */
    abstract String returning(String update, String columns);

    /**
     * @param set the {@code SET} clause of the claim, with its markers
     * @param due the predicate of due, admitted, not held rows, with its markers
     * @param limit the marker of the limit
     * @param returning what the claim returns of each row it took, columns of {@code outbox o}
     * @return one statement that claims the first {@code limit} due rows and returns them, or
     *     {@code null} when the dialect claims in two steps: {@link #dueKeys} then
     *     {@link #returning} of an {@code UPDATE} of exactly those keys
     */
    abstract String claim(String set, String due, String limit, String returning);

    /**
     * Like {@link #claim}, and in the same statement the next due time of the route: the least
     * {@code visible_after} of its pending, not held rows other than those this statement claims
     * (the statement's snapshot still sees them pending). Every returned row carries it as one more
     * column, {@code next_due}, after those of {@code returning}; when nothing is claimed, one row
     * comes back whose columns are all NULL but {@code next_due}.
     *
     * @param set the {@code SET} clause of the claim, with its markers
     * @param due the predicate of due, admitted, not held rows, with its markers
     * @param limit the marker of the limit
     * @param returning what the claim returns of each row it took, columns of {@code outbox o}
     * @param pending the predicate of pending, admitted, not held rows, with its markers
     * @return the statement, or {@code null} when the dialect claims in two steps
     */
    String claimWithNextDue(String set, String due, String limit, String returning, String pending) {
        return null;
    }

    /**
     * @param due the predicate of due rows
     * @param limit the marker of the limit
     * @return the query of the first {@code limit} due keys in claim order (O18)
     */
    String dueKeys(String due, String limit) {
        return "SELECT dispatch_key FROM outbox WHERE " + due + " AND priority = 0 "
                + "ORDER BY visible_after, dispatch_key LIMIT " + limit;
    }

    /**
     * @param due the predicate of due rows
     * @param limit the marker of the limit
     * @return the query of the first {@code limit} due keys with a priority, in claim order (O62)
     */
    String duePrioritizedKeys(String due, String limit) {
        return "SELECT dispatch_key FROM outbox WHERE priority > 0 AND " + due
                + " ORDER BY priority DESC, visible_after, dispatch_key LIMIT " + limit;
    }

    /** @return the suffix that locks selected rows for this transaction, skipping rows others hold */
    abstract String lockSkipLocked();

    /** @return the timer upsert with markers (workflow, timer, fire_at) */
    abstract String timerUpsert();

    /** @return the statement that serializes write transactions across instances, or {@code null} */
    abstract String writeLock();

    /** @return the dialect's own schema statements (its indexes, table settings), run after the tables */
    abstract List<String> schemaExtras();

    /** @return the statement that serializes concurrent schema creation, or {@code null} */
    abstract String schemaLock();

    /** @return true when the driver does its work on the subscribing thread (blocking inside) */
    abstract boolean blockingDriver();

    private static final class Postgres extends SqlDialect {
        @Override
        String name() {
            return "PostgreSQL";
        }

        @Override
        boolean postgres() {
            return true;
        }

        @Override
        String text() {
            return "TEXT COLLATE \"C\"";
        }

        @Override
        String returning(String update, String columns) {
            return update + " RETURNING " + columns;
        }

        /**
         * The rows a claim takes (O62, O19), locked: first those with a priority, from their own
         * small partial index ({@code outbox_prioritized}: one empty seek when there are none), then
         * for what is left of the limit the others, from {@code outbox_pending} as before
         * priorities existed. One statement, so one snapshot and one round trip.
         *
         * <p>The second arm reads {@code outbox_pending} with exactly the predicate it had before
         * priorities existed and drops the keys the first arm took, rather than filtering on
         * {@code priority = 0}: on a column without statistics (just added by the migration, or a
         * table refilled faster than autovacuum analyses it) PostgreSQL gives an equality 0.5%
         * selectivity, estimates the due rows at one, and plans a bitmap scan that reads and sorts
         * every pending row for each claim (7 ms instead of 0.1 ms on 10,000 pending rows; the
         * PostgreSQL drain fell to 0.29× the raw drain). A prioritized row the second arm meets
         * again is already locked by this statement, so it is not skipped; the anti-join drops it.
         *
         * <p>The outer {@code LIMIT} does two jobs: CTEs are read on demand, so the second arm
         * locks only the rows the first left room for ({@code EXPLAIN ANALYZE}: "never executed"
         * when the first fills the batch), and it tells the planner how many keys {@code due}
         * holds. Written instead as {@code LIMIT n - (SELECT count(*) FROM p)} on the second arm,
         * the planner could not bound {@code due} and, when the update still joined {@code due},
         * joined it through a sequential scan of the whole table (46 ms instead of 0.9 ms on
         * 200,000 rows). The update now reads {@code due} as an array ({@link #BY_DUE_TIDS}).
         *
         * <p>The arms' own limit is a sub-select of the marker, {@code (SELECT $n)}, which the
         * planner cannot fold to a value, in a custom plan (parameters known) as in a generic one.
         * Either way it plans the arm for a small fraction of the rows it expects, so it walks the
         * index in claim order. With the bare marker a custom plan knew the limit, and on an
         * outbox never analysed (PostgreSQL then expects a handful of due rows, fewer than the
         * limit) it read and sorted every pending row for each claim, a bitmap scan and a sort. And
         * since the custom plans priced the limit and the generic one a tenth of the table,
         * PostgreSQL found the generic plan dear on a large outbox and planned every run afresh:
         * ten runs of a claim on 20,000 rows made ten custom plans and no generic one, 0.5 to 0.7 ms
         * of a 2 to 2.7 ms claim by plain JDBC ({@code PostgresClaimPlanTest}).
         */
        private static String due(String due, String limit) {
            String armLimit = "(SELECT " + limit + ")";
            return "p AS (SELECT ctid AS tid, dispatch_key FROM outbox WHERE priority > 0 AND " + due
                    + " ORDER BY priority DESC, visible_after, dispatch_key LIMIT " + armLimit
                    + " FOR UPDATE SKIP LOCKED), "
                    + "z AS (SELECT ctid AS tid, dispatch_key FROM outbox WHERE " + due + " "
                    + "ORDER BY visible_after, dispatch_key LIMIT " + armLimit + " FOR UPDATE SKIP LOCKED), "
                    + "due AS (SELECT tid FROM p UNION ALL (SELECT tid FROM z "
                    + "WHERE dispatch_key NOT IN (SELECT dispatch_key FROM p)) LIMIT " + limit + ")";
        }

        /**
         * The rows of {@code due}, found where the arms locked them: their tuple ids go to the
         * update as one array (an init plan), so it reaches each row with one fetch from the heap
         * (a TID scan). Written as {@code UPDATE … FROM due WHERE o.dispatch_key =
         * due.dispatch_key}, the update was a join, and a join is planned from the table's
         * statistics: analysed when it held no live row (a queue drained empty, autoanalyse
         * running before the next burst is staged), the table is believed to hold one row, and
         * PostgreSQL walked all of it for every claim (a nested loop over {@code outbox_pkey}:
         * 10,000 rows read and 640,000 key comparisons for a claim of 64, 105 ms instead of 1 ms;
         * with no statistics at all, a hash join over a sequential scan). Capped claims run one at
         * a time under the route's lock (O64), so the four-node drain of {@code POLPG} fell from
         * about 7,000 to 390 rows/s for as long as those statistics lasted.
         *
         * <p>The keys as an array ({@code o.dispatch_key = ANY (ARRAY(SELECT dispatch_key FROM
         * due))}) had the same plan through {@code outbox_pkey}: one index descent per row before
         * its fetch. By tuple id a claim of 64 took about 4% less time (2.03 against 2.11 ms,
         * plain JDBC, the claim alone, medians of 8 interleaved rounds).
         *
         * <p>One case differs: a row another transaction updated (still due) and committed after
         * the statement's snapshot was taken, before an arm locked it. The arm's lock then follows
         * the update to the row's newest version and returns that version's tuple id, and the
         * update, reading through the statement's snapshot, does not see that version: it leaves
         * the row out. The row stays pending, neither claimed twice nor lost, and the next claim
         * takes it (by key the update followed the row to its newest version and claimed it; now,
         * in that window, a claim comes back short, and a prioritized row can wait one claim). The
         * next-due read of {@link #claimWithNextDue} therefore counts and excludes the rows
         * {@code claimed}, not those of {@code due}, so such a row is reported due at once
         * ({@code PostgresClaimRaceTest}).
         */
        private static final String BY_DUE_TIDS = " WHERE o.ctid = ANY (ARRAY(SELECT tid FROM due)) ";

        @Override
        String claim(String set, String due, String limit, String returning) {
            return "WITH " + due(due, limit) + " "
                    + "UPDATE outbox o SET " + set + BY_DUE_TIDS
                    + "RETURNING " + returning;
        }

        @Override
        String claimWithNextDue(String set, String due, String limit, String returning, String pending) {
            return "WITH " + due(due, limit) + ", "
                    + "claimed AS (UPDATE outbox o SET " + set + BY_DUE_TIDS
                    + "RETURNING " + returning + "), "
                    // only read when the claim comes back short (a one-time filter: a full claim
                    // skips the scan, and its caller claims again at once)
                    + "next AS (SELECT min(visible_after) AS next_due FROM outbox WHERE "
                    + "(SELECT count(*) FROM claimed) < " + limit + " AND " + pending
                    + " AND dispatch_key NOT IN (SELECT dispatch_key FROM claimed)) "
                    + "SELECT claimed.*, next.next_due FROM next LEFT JOIN claimed ON true";
        }

        @Override
        String lockSkipLocked() {
            return " FOR UPDATE SKIP LOCKED";
        }

        @Override
        String timerUpsert() {
            return "INSERT INTO timers (workflow_id, timer_id, fire_at) VALUES ($1, $2, $3) "
                    + "ON CONFLICT (workflow_id, timer_id) DO UPDATE SET fire_at = excluded.fire_at";
        }

        @Override
        String writeLock() {
            return null;
        }

        @Override
        List<String> schemaExtras() {
            return List.of(
                    // only the queryable events, which every read of it asks for: activity events
                    // (most of a history) cost no index write; databases made before it had the
                    // full events_projection, dropped here
                    "CREATE INDEX IF NOT EXISTS events_queryable ON events "
                            + "(workflow_id, seq, kind, workflow_type, recorded_at, child_workflow_id) "
                            + "WHERE queryable = 1",
                    "DROP INDEX IF EXISTS events_projection",
                    "CREATE INDEX IF NOT EXISTS outbox_pending ON outbox (visible_after, dispatch_key) "
                            + "WHERE status = 'pending'",
                    // O62: only rows with a priority, read first by every claim (see due())
                    "CREATE INDEX IF NOT EXISTS outbox_prioritized ON outbox (priority DESC, visible_after, "
                            + "dispatch_key) WHERE status = 'pending' AND priority > 0",
                    // O63: at most one row of a workflow claimed by a serial claim (negative token) at
                    // once, whatever the snapshots of concurrent serial claims saw (Claims.SERIAL_RETRIES)
                    "CREATE UNIQUE INDEX IF NOT EXISTS outbox_serial_claimed ON outbox (workflow_id) "
                            + "WHERE status = 'claimed' AND claim_token < 0",
                    "CREATE INDEX IF NOT EXISTS outbox_claimed ON outbox (claimed_at, dispatch_key) "
                            + "WHERE status = 'claimed' AND claimed_at IS NOT NULL",
                    "CREATE INDEX IF NOT EXISTS outbox_settled ON outbox (settled_at) "
                            + "WHERE status IN ('done', 'failed', 'cancelled')",
                    OUTBOX_FILLFACTOR);
        }

        /**
         * Half of each outbox page left free ({@code fillfactor} 50), set on a new table and on one
         * made before this setting, but not on one whose operator chose a fillfactor. Every row is
         * updated twice, by its claim and by its settle, and neither update can be HOT (both change
         * {@code status}, which the partial indexes test), so each writes a new version of the row:
         * with room on its page the version stays there, and a claim of 64 rows writes to the few
         * pages it read instead of spreading over new ones (the issue-17 drain, interleaved with one
         * on the default fillfactor: 1.13× the rows per second), for twice the pages of rows not yet
         * updated. Setting it rewrites nothing: pages written from then on keep the room. Checked
         * first, so a store opening again changes nothing (an {@code ALTER} would make every session
         * replan its statements on the table).
         */
        private static final String OUTBOX_FILLFACTOR = "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_class "
                + "WHERE oid = 'outbox'::regclass AND array_to_string(reloptions, ',') LIKE '%fillfactor=%') "
                + "THEN ALTER TABLE outbox SET (fillfactor = 50); END IF; END $$";

        @Override
        String schemaLock() {
            // one arbitrary constant key: nodes opening at once create the schema one after another
            return "SELECT pg_advisory_xact_lock(7280012601)";
        }

        @Override
        boolean blockingDriver() {
            return false;
        }
    }

    private static final class H2 extends SqlDialect {
        @Override
        String name() {
            return "H2";
        }

        @Override
        boolean postgres() {
            return false;
        }

        @Override
        String text() {
            return "VARCHAR";
        }

        @Override
        String returning(String update, String columns) {
            return "SELECT " + columns + " FROM FINAL TABLE (" + update + ")";
        }

        @Override
        String claim(String set, String due, String limit, String columns) {
            return null; // two steps, see dueKeys
        }

        @Override
        String lockSkipLocked() {
            return ""; // writers are serialized by the write lock
        }

        @Override
        String timerUpsert() {
            return "MERGE INTO timers (workflow_id, timer_id, fire_at) KEY (workflow_id, timer_id) VALUES ($1, $2, $3)";
        }

        @Override
        String writeLock() {
            return "UPDATE durable_store_lock SET holder_count = holder_count + 1 WHERE name = 'write'";
        }

        @Override
        List<String> schemaExtras() {
            return List.of(
                    // H2 has no partial index: every event, the queryable ones first
                    "CREATE INDEX IF NOT EXISTS events_projection ON events "
                            + "(queryable, workflow_id, seq, kind, workflow_type, recorded_at, child_workflow_id)",
                    "CREATE INDEX IF NOT EXISTS outbox_pending ON outbox (status, visible_after, dispatch_key)",
                    "CREATE INDEX IF NOT EXISTS outbox_prioritized ON outbox (status, priority, visible_after, "
                            + "dispatch_key)",
                    "CREATE INDEX IF NOT EXISTS outbox_claimed ON outbox (status, claimed_at, dispatch_key)",
                    "CREATE INDEX IF NOT EXISTS outbox_settled ON outbox (status, settled_at)",
                    "CREATE TABLE IF NOT EXISTS durable_store_lock (name VARCHAR NOT NULL PRIMARY KEY, "
                            + "holder_count BIGINT NOT NULL)",
                    "INSERT INTO durable_store_lock (name, holder_count) VALUES ('write', 0) ON CONFLICT DO NOTHING");
        }

        @Override
        String schemaLock() {
            return null;
        }

        @Override
        boolean blockingDriver() {
            return true;
        }
    }
}
