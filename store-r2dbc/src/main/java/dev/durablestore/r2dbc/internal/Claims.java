package dev.durablestore.r2dbc.internal;

import static dev.durablestore.core.internal.Claims.CLAIM_ORDER;
import static dev.durablestore.core.internal.Claims.heldKeys;
import static dev.durablestore.core.internal.Claims.newClaimToken;

import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.DispatchPolicy;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.SerializationException;
import dev.durablestore.api.StoreMetrics;
import dev.durablestore.core.storage.ClaimBatch;
import dev.durablestore.core.storage.ClaimStorage;
import io.r2dbc.spi.Connection;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.IntSupplier;
import reactor.core.publisher.Mono;

/**
 * Every claim (O16–O27): one statement per batch that takes the first {@code limit} due rows of the
 * route, not held, oldest {@code visible_after} then dispatch key, and flips them to
 * {@code claimed} with {@code claimed_at = now} and {@code claimed_by} the scope's node (O65; NULL
 * without one). On PostgreSQL the due rows are locked
 * {@code FOR UPDATE SKIP LOCKED}, so claimers on any number of nodes never take a row twice (O21)
 * and never queue behind each other; see {@link SqlDialect#claim}. There the claim is one statement
 * that commits by itself (no {@code BEGIN}/{@code COMMIT}: one round trip), and a claim of the
 * stream reads the route's next due time in that same statement. On H2 the claim is two statements
 * in one write transaction.
 *
 * <p>A row whose stored input cannot be decoded is dead-lettered and the claim reports a
 * {@link SerializationException} naming it; the other rows of that batch are put back exactly as
 * they were, so the next claim takes them (a corrupt row never blocks the queue). On H2 that happens
 * in the claim's transaction; on PostgreSQL in statements right after the claim's (rare: a crash in
 * between leaves the rows claimed, and the stale-claim re-arm returns them).
 */
final class Claims implements ClaimStorage {

    /** Only a row this claim still holds (on PostgreSQL the claim has committed before this runs). */
    private static final String DEAD_LETTER = "UPDATE outbox SET status = 'failed', claimed_at = NULL, "
            + "settled_at = $1 WHERE dispatch_key = $2 AND status = 'claimed' AND claimed_at = $1";

    /**
     * O63: no row of the candidate's workflow is claimed, and no pending one comes before it
     * (ordinal, then key), so a workflow has one candidate at most: its first pending row. Read
     * through {@code outbox_workflow (workflow_id, status)}.
     */
    private static final String SERIAL = " AND NOT EXISTS (SELECT 1 FROM outbox s WHERE s.workflow_id = "
            + "outbox.workflow_id AND (s.status = 'claimed' OR (s.status = 'pending' AND (s.ordinal < outbox.ordinal "
            + "OR (s.ordinal = outbox.ordinal AND s.dispatch_key < outbox.dispatch_key)))))";

    /**
     * How often a serial claim (O63) on PostgreSQL is tried again after the unique index
     * {@code outbox_serial_claimed} refused it. In {@code READ COMMITTED} the serial predicate reads
     * the statement's snapshot while only the candidate rows are locked, so two claims whose
     * snapshots straddle a change of a workflow's first pending row (a lower ordinal staged late, a
     * settled row re-armed or redriven) could each take a different row of it. Serial claims write
     * negative tokens, and the index admits one claimed row with a negative token per workflow:
     * the second of two such claims waits for the first's commit, then fails whole (nothing
     * claimed), and its retry's snapshot sees the first's claim. Serial claims stay one statement
     * each, in parallel on every node; the race is rare, so is a retry.
     */
    private static final int SERIAL_RETRIES = 8;

    /**
     * Serializes the capped claims (O64) of one route on every node, in the claim's transaction,
     * so the count of its claimed rows and the claim that follows agree: keyed by the route's
     * namespace and task queue (a hash collision only makes two routes wait for each other).
     */
    private static final String ROUTE_LOCK =
            "SELECT pg_advisory_xact_lock(72800126, " + "hashtext($1 || chr(31) || $2))";

    /**
     * Serializes the node-capped claims (O65) of one route and node on every node, like
     * {@link #ROUTE_LOCK}: keyed by the route and the node. A claim with both caps takes both, the
     * route's first and in one statement, so every claimer takes them in the same order: a claim
     * with only the route cap holds no node lock, one with only the node cap no route lock, and
     * claims of one node with and without a route cap still count that node one after another.
     */
    private static final String NODE_LOCK =
            "SELECT pg_advisory_xact_lock(72800127, hashtext($1 || chr(31) || $2 || chr(31) || $3))";

    /** {@link #ROUTE_LOCK}, then {@link #NODE_LOCK}, in one round trip. */
    private static final String ROUTE_AND_NODE_LOCK = "SELECT pg_advisory_xact_lock(72800126, "
            + "hashtext($1 || chr(31) || $2)), pg_advisory_xact_lock(72800127, "
            + "hashtext($1 || chr(31) || $2 || chr(31) || $3))";

    /**
     * O64 and O65: the claimed rows of a route, on any node, and those of them claimed as the
     * scope's node ($1; 0 when it is NULL), read through {@code outbox_claimed}.
     */
    private static final String CLAIMED_ON_ROUTE = "SELECT count(*), count(CASE WHEN claimed_by = $1 THEN 1 END) "
            + "FROM outbox WHERE status = 'claimed' AND claimed_at IS NOT NULL AND namespace = $2 AND task_queue = $3";

    /**
     * The stream claim's text on PostgreSQL with nothing held, by shape (no scope, a scope without a
     * node, with one; plain or serial): the same text every time, so built once (racy: two threads
     * may both build it, and store equal texts).
     */
    private final String[] streamClaims = new String[6];

    private final Db db;
    private final OutboxRows codec;
    private final Clock clock;
    private final StoreMetrics metrics;

    Claims(Db db, OutboxRows codec, Clock clock, StoreMetrics metrics) {
        this.db = db;
        this.codec = codec;
        this.clock = clock;
        this.metrics = metrics;
    }

    /**
     * Every claim (O16–O27, O62–O64), checked by the caller. On PostgreSQL the limit is read once
     * the connection is in hand, right before the statement is sent, so demand a stream's subscriber
     * returns meanwhile (a settle group completing its callers one after another) still counts.
     */
    @Override
    public Mono<ClaimBatch> claim(
            ClaimScope scope, IntSupplier limit, Set<String> heldKeys, DispatchPolicy policy, boolean withNextDue) {
        return Mono.defer(() -> {
            if (db.dialect().postgres()) {
                return run(scope, limit, heldKeys, policy, withNextDue);
            }
            int now = limit.getAsInt();
            return run(scope, () -> now, heldKeys, policy, withNextDue);
        });
    }

    private Mono<ClaimBatch> run(
            ClaimScope matchable, IntSupplier limit, Set<String> held, DispatchPolicy policy, boolean wantNext) {
        Function<Connection, Mono<ClaimBatch>> capped = c -> capped(c, matchable, policy, limit.getAsInt())
                .flatMap(n -> n == 0
                        // at a cap (O64, O65): no next due time, so a stream waits for a settle or its poll
                        ? Mono.just(new ClaimBatch(List.of(), null, null))
                        : claimIn(c, matchable, n, held, policy, wantNext));
        Mono<ClaimBatch> claim;
        boolean routeCap = policy.concurrencyCap().isPresent();
        boolean nodeCap = policy.nodeConcurrencyCap().isPresent();
        if (!db.dialect().postgres()) {
            claim = db.write("claim", capped);
        } else if (routeCap && !nodeCap) {
            // O64 across nodes: see ROUTE_LOCK
            claim = db.write(
                    "claim",
                    c -> Sql.query(c, ROUTE_LOCK, row -> 1, matchable.namespace(), matchable.taskQueue())
                            .then(Mono.defer(() -> capped.apply(c))));
        } else if (nodeCap) {
            // O65 across nodes and processes: see NODE_LOCK (a node cap has a node, Claims.policy)
            claim = db.write(
                    "claim",
                    c -> Sql.query(
                                    c,
                                    routeCap ? ROUTE_AND_NODE_LOCK : NODE_LOCK,
                                    row -> 1,
                                    matchable.namespace(),
                                    matchable.taskQueue(),
                                    matchable.node())
                            .then(Mono.defer(() -> capped.apply(c))));
        } else {
            // the claim is one statement, so it commits by itself (one round trip)
            claim = db.autocommit("claim", 1, c -> claimIn(c, matchable, limit.getAsInt(), held, policy, wantNext));
        }
        if (db.dialect().postgres() && policy.serialPerWorkflow()) {
            claim = claim.retryWhen(reactor.util.retry.Retry.max(SERIAL_RETRIES).filter(Claims::serialConflict));
        }
        return claim.doOnNext(r -> metrics.rowsClaimed(r.rows().size()));
    }

    /** @return true when {@code outbox_serial_claimed} refused a serial claim (see SERIAL_RETRIES) */
    private static boolean serialConflict(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof io.r2dbc.spi.R2dbcException r && "23505".equals(r.getSqlState())) {
                return true;
            }
        }
        return false;
    }

    /**
     * The limit, lowered to what the policy's caps leave room for on the route (O64) and for the
     * scope's node on it (O65): the smaller room of the two.
     */
    private static Mono<Integer> capped(Connection c, ClaimScope scope, DispatchPolicy policy, int limit) {
        if (policy.concurrencyCap().isEmpty() && policy.nodeConcurrencyCap().isEmpty()) {
            return Mono.just(limit);
        }
        return Sql.query(
                        c,
                        CLAIMED_ON_ROUTE,
                        row -> dev.durablestore.core.internal.Claims.nodeCapped(
                                dev.durablestore.core.internal.Claims.capped(limit, policy, Sql.longAt(row, 0)),
                                policy,
                                Sql.longAt(row, 1)),
                        Sql.text(claimer(scope)),
                        scope.namespace(),
                        scope.taskQueue())
                .next();
    }

    /** @return the node a claim on {@code scope} records as the claimer of its rows (O65), or {@code null} */
    private static String claimer(ClaimScope scope) {
        return scope == null ? null : scope.node();
    }

    /** The rows one claim statement took, and the next due time when the statement read it. */
    private record Taken(List<OutboxRows.Stored> rows, Long nextDue) {}

    private Mono<ClaimBatch> claimIn(
            Connection c, ClaimScope scope, int limit, Set<String> held, DispatchPolicy policy, boolean wantNext) {
        long now = Times.nowNanos(clock.instant()); // read once per claim (O17, O20)
        Mono<Taken> claimed;
        if (db.dialect().postgres()) {
            claimed = claimPostgres(c, now, scope, held, policy, limit, wantNext);
        } else {
            claimed = claimByKeys(c, now, scope, held, policy, limit).map(rows -> new Taken(rows, null));
        }
        return claimed.flatMap(taken -> {
            List<OutboxRows.Stored> stored = taken.rows();
            List<OutboxRow> rows = new ArrayList<>(stored.size());
            List<String> claimedKeys = new ArrayList<>(stored.size());
            List<String> corruptKeys = new ArrayList<>();
            SerializationException corrupt = null;
            for (OutboxRows.Stored s : stored) {
                claimedKeys.add(s.dispatchKey());
                try {
                    rows.add(codec.decode(s));
                } catch (SerializationException e) {
                    corruptKeys.add(s.dispatchKey());
                    if (corrupt == null) {
                        corrupt = e;
                    } else {
                        corrupt.addSuppressed(e);
                    }
                }
            }
            if (corrupt != null) {
                return deadLetter(c, now, claimedKeys, corruptKeys, corrupt);
            }
            rows.sort(CLAIM_ORDER);
            if (wantNext && rows.size() < limit) {
                if (db.dialect().postgres()) {
                    return Mono.just(new ClaimBatch(rows, null, taken.nextDue()));
                }
                return nextVisibleAfter(c, scope, held, policy)
                        .map(next -> new ClaimBatch(rows, null, next.orElse(null)))
                        .defaultIfEmpty(new ClaimBatch(rows, null, null));
            }
            return Mono.just(new ClaimBatch(rows, null, null));
        });
    }

    /**
     * The one-statement claim (PostgreSQL, {@code FOR UPDATE SKIP LOCKED}); for the stream the same
     * statement also reads the next due time of the route ({@link SqlDialect#claimWithNextDue}).
     */
    private Mono<Taken> claimPostgres(
            Connection c,
            long now,
            ClaimScope scope,
            Set<String> held,
            DispatchPolicy policy,
            int limit,
            boolean wantNext) {
        Sql.Params p = new Sql.Params();
        // what the claim writes is not read back (OutboxRows.claimed)
        Long claimedAt = now;
        Long token = newClaimToken(policy);
        String set = "status = 'claimed', claimed_at = " + p.add(claimedAt) + ", claim_token = " + p.add(token)
                + ", claimed_by = " + p.add(Sql.text(claimer(scope)));
        String due = "status = 'pending' AND visible_after <= " + p.add(now) + filter(p, scope, held, policy);
        if (!wantNext) {
            String sql = db.dialect().claim(set, due, p.add(limit), OutboxRows.CLAIMED_RETURNING_PG);
            return Sql.query(c, sql, row -> OutboxRows.claimed(row, claimedAt, token, true), p.values())
                    .collectList()
                    .map(rows -> new Taken(rows, null));
        }
        String limitMarker = p.add(limit);
        String pending = "status = 'pending'" + filter(p, scope, held, policy);
        String sql;
        if (held.isEmpty()) {
            // the text then depends only on the shape of scope and policy: built once per shape
            int shape = (scope == null ? 0 : scope.node() == null ? 1 : 2) + (policy.serialPerWorkflow() ? 3 : 0);
            sql = streamClaims[shape];
            if (sql == null) {
                sql = db.dialect().claimWithNextDue(set, due, limitMarker, OutboxRows.CLAIMED_RETURNING_PG, pending);
                streamClaims[shape] = sql;
            }
        } else {
            sql = db.dialect().claimWithNextDue(set, due, limitMarker, OutboxRows.CLAIMED_RETURNING_PG, pending);
        }
        Long[] next = new Long[1];
        boolean[] read = new boolean[1];
        return Sql.query(
                        c,
                        sql,
                        row -> {
                            if (!read[0]) { // every row carries the same next_due: decode it once
                                next[0] = Sql.longAt(row, OutboxRows.CLAIMED_COLUMN_COUNT);
                                read[0] = true;
                            }
                            return Sql.textAt(row, 0) == null
                                    ? Optional.<OutboxRows.Stored>empty()
                                    : Optional.of(OutboxRows.claimed(row, claimedAt, token, true));
                        },
                        p.values())
                .filter(Optional::isPresent)
                .map(Optional::get)
                .collectList()
                .map(rows -> new Taken(rows, next[0]));
    }

    /** The two-step claim (H2, whose writers are serialized): the due keys, then exactly those keys. */
    private Mono<List<OutboxRows.Stored>> claimByKeys(
            Connection c, long now, ClaimScope scope, Set<String> held, DispatchPolicy policy, int limit) {
        Sql.Params p = new Sql.Params();
        String due = "status = 'pending' AND visible_after <= " + p.add(now) + filter(p, scope, held, policy);
        String limitMarker = p.add(limit);
        Object[] values = p.values();
        // O62: the prioritized rows first, then the rest of the limit from the others
        return Sql.query(c, db.dialect().duePrioritizedKeys(due, limitMarker), row -> Sql.textAt(row, 0), values)
                .collectList()
                .flatMap(first -> {
                    if (first.size() >= limit) {
                        return Mono.just(first);
                    }
                    Object[] rest = values.clone();
                    rest[rest.length - 1] = limit - first.size();
                    return Sql.query(c, db.dialect().dueKeys(due, limitMarker), row -> Sql.textAt(row, 0), rest)
                            .collectList()
                            .map(more -> {
                                List<String> all = new ArrayList<>(first);
                                all.addAll(more);
                                return all;
                            });
                })
                .flatMap(keys -> {
                    if (keys.isEmpty()) {
                        return Mono.just(List.<OutboxRows.Stored>of());
                    }
                    Sql.Params u = new Sql.Params();
                    Long claimedAt = now;
                    Long token = newClaimToken(policy);
                    String update = "UPDATE outbox SET status = 'claimed', claimed_at = " + u.add(claimedAt)
                            + ", claim_token = " + u.add(token)
                            + ", claimed_by = " + u.add(Sql.text(claimer(scope)))
                            + " WHERE status = 'pending' AND dispatch_key IN " + u.list(keys);
                    return Sql.query(
                                    c,
                                    db.dialect().returning(update, OutboxRows.CLAIMED_COLUMNS),
                                    row -> OutboxRows.claimed(row, claimedAt, token, false),
                                    u.values())
                            .collectList();
                });
    }

    private Mono<ClaimBatch> deadLetter(
            Connection c,
            long now,
            List<String> claimedKeys,
            List<String> corruptKeys,
            SerializationException corrupt) {
        List<String> good = new ArrayList<>(claimedKeys);
        good.removeAll(corruptKeys);
        Mono<Long> restore = Mono.just(0L);
        if (!good.isEmpty()) {
            // only rows this claim still holds: on PostgreSQL the claim committed before this runs,
            // and a row cancelled or settled meanwhile must stay as it is
            Sql.Params p = new Sql.Params();
            String claimedAt = p.add(now);
            restore = Sql.update(
                    c,
                    "UPDATE outbox SET status = 'pending', claimed_at = NULL WHERE status = 'claimed' "
                            + "AND claimed_at = " + claimedAt + " AND dispatch_key IN " + p.list(good),
                    p.values());
        }
        List<Object[]> dead = new ArrayList<>();
        for (String key : corruptKeys) {
            dead.add(new Object[] {now, key});
        }
        SerializationException reported = new SerializationException(
                "claim dead-lettered undecodable outbox row(s) " + corruptKeys + "; the other due rows stay pending: "
                        + corrupt.getMessage(),
                corrupt);
        return restore.then(Sql.updateEach(c, DEAD_LETTER, dead)).thenReturn(new ClaimBatch(List.of(), reported, null));
    }

    private static Mono<Optional<Long>> nextVisibleAfter(
            Connection c, ClaimScope scope, Set<String> held, DispatchPolicy policy) {
        Sql.Params p = new Sql.Params();
        String sql = "SELECT min(visible_after) FROM outbox WHERE status = 'pending'" + filter(p, scope, held, policy);
        return Sql.query(c, sql, row -> Optional.ofNullable(Sql.longAt(row, 0)), p.values())
                .next();
    }

    /** The route (O7), hold (O23) and serial (O63) predicates, with their markers. */
    private static String filter(Sql.Params p, ClaimScope scope, Set<String> held, DispatchPolicy policy) {
        StringBuilder sb = new StringBuilder();
        if (scope != null) {
            sb.append(" AND namespace = ").append(p.add(scope.namespace()));
            sb.append(" AND task_queue = ").append(p.add(scope.taskQueue()));
            sb.append(
                    scope.node() == null
                            ? " AND node IS NULL"
                            : " AND (node IS NULL OR node = " + p.add(scope.node()) + ")");
        }
        if (!held.isEmpty()) {
            sb.append(" AND workflow_id NOT IN ").append(p.list(held));
        }
        if (policy.serialPerWorkflow()) {
            sb.append(SERIAL);
        }
        return sb.toString();
    }
}
