package dev.durablestore.r2dbc.internal;

import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.SerializationException;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.core.internal.FailureHistory;
import dev.durablestore.core.internal.OutboxRowEncoder;
import dev.durablestore.core.internal.SettleArguments;
import dev.durablestore.core.internal.StepEncoder;
import dev.durablestore.core.storage.OutboxWriteStorage;
import io.r2dbc.spi.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.StringJoiner;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

/**
 * Every outbox write except claims (contract group O): staging, re-arm, settles, retry, stale
 * re-arm, heartbeat, redrive, prune. Each is one transaction, except the single-row settles on
 * PostgreSQL, which {@link GroupedSettles} writes in groups of one statement each. Writes that can
 * make rows claimable (staging, retry, re-arm, redrive, release) call {@code wake} after the
 * commit: it wakes this instance's claim streams and, on PostgreSQL, asks for the coalesced
 * {@code NOTIFY} of the other nodes ({@link ClaimNotifier}); no {@code NOTIFY} runs inside a write.
 */
final class OutboxWrites implements OutboxWriteStorage {

    private static final Logger log = LoggerFactory.getLogger(OutboxWrites.class);

    private static final String LIVE = "status IN ('pending', 'claimed')";

    private static final String COMPLETE = "UPDATE outbox SET status = 'done', claimed_at = NULL, settled_at = $1 "
            + "WHERE dispatch_key = $2 AND " + LIVE;
    private static final String FAIL = "UPDATE outbox SET status = 'failed', claimed_at = NULL, settled_at = $1 "
            + "WHERE dispatch_key = $2 AND " + LIVE;
    private static final String SETTLE_CANCELLED = "UPDATE outbox SET status = 'cancelled', claimed_at = NULL, "
            + "settled_at = $1 WHERE dispatch_key = $2 AND " + LIVE;
    private static final String RETRY = "UPDATE outbox SET status = 'pending', attempt = $1, visible_after = $2, "
            + "claimed_at = NULL WHERE dispatch_key = $3 AND " + LIVE;
    private static final String COMPLETE_KEYS = "UPDATE outbox SET status = 'done', claimed_at = NULL, "
            + "settled_at = $1 WHERE " + LIVE + " AND dispatch_key IN ";
    private static final String FAIL_KEYS = "UPDATE outbox SET status = 'failed', claimed_at = NULL, "
            + "settled_at = $1 WHERE " + LIVE + " AND dispatch_key IN ";
    private static final String SETTLE_CANCELLED_KEYS = "UPDATE outbox SET status = 'cancelled', claimed_at = NULL, "
            + "settled_at = $1 WHERE " + LIVE + " AND dispatch_key IN ";
    private static final String RETRY_KEYS = "UPDATE outbox SET status = 'pending', attempt = $1, visible_after = $2, "
            + "claimed_at = NULL WHERE " + LIVE + " AND dispatch_key IN ";
    /**
     * O66: the live rows of a settle that records a reason, locked in key order; followed by the key
     * list. Live is tested as {@link GroupedSettles#live} tests it, so the rows are found by their
     * keys through the primary key whatever the statistics say.
     */
    private static final String FAILING = "SELECT dispatch_key, attempt, failures FROM outbox WHERE "
            + GroupedSettles.live("status") + " AND dispatch_key IN ";

    private static final String FAIL_WITH_REASON = "UPDATE outbox SET status = 'failed', claimed_at = NULL, "
            + "settled_at = $1, failures = $2 WHERE dispatch_key = $3 AND " + LIVE;
    private static final String RETRY_WITH_REASON = "UPDATE outbox SET status = 'pending', attempt = $1, "
            + "visible_after = $2, claimed_at = NULL, failures = $3 WHERE dispatch_key = $4 AND " + LIVE;
    private static final String CANCEL_WORKFLOW = "UPDATE outbox SET status = 'cancelled', claimed_at = NULL, "
            + "settled_at = $1 WHERE workflow_id = $2 AND " + LIVE;
    private static final String REARM_EXISTING = "UPDATE outbox SET status = 'pending', visible_after = $1, "
            + "claimed_at = NULL, settled_at = NULL WHERE dispatch_key = $2";
    static final String STALE = "SELECT " + OutboxRows.COLUMNS + " FROM outbox WHERE status = 'claimed' "
            + "AND claimed_at IS NOT NULL AND claimed_at < $1 ORDER BY claimed_at, dispatch_key LIMIT $2";
    private static final String REARM_KEYS = "UPDATE outbox SET status = 'pending', visible_after = $1, "
            + "claimed_at = NULL WHERE status = 'claimed' AND dispatch_key IN ";
    /** W13: followed by the list of {@code (key, token)} pairs. */
    private static final String HEARTBEAT =
            "UPDATE outbox SET claimed_at = $1 WHERE status = 'claimed' AND (dispatch_key, claim_token) IN ";

    private static final String RELEASE = "UPDATE outbox SET status = 'pending', claimed_at = NULL "
            + "WHERE status = 'claimed' AND claim_token = $1 AND dispatch_key IN ";
    private static final String REDRIVE =
            "UPDATE outbox SET status = 'pending', visible_after = $1, claimed_at = NULL, "
                    + "settled_at = NULL WHERE dispatch_key = $2 AND status = 'failed'";
    private static final String REDRIVE_RESET = "UPDATE outbox SET status = 'pending', visible_after = $1, "
            + "claimed_at = NULL, settled_at = NULL, attempt = 0 WHERE dispatch_key = $2 AND status = 'failed'";
    private static final String REDRIVE_WORKFLOW = "UPDATE outbox SET status = 'pending', visible_after = $1, "
            + "claimed_at = NULL, settled_at = NULL WHERE workflow_id = $2 AND status = 'failed'";
    private static final String REDRIVE_WORKFLOW_RESET = "UPDATE outbox SET status = 'pending', visible_after = $1, "
            + "claimed_at = NULL, settled_at = NULL, attempt = 0 WHERE workflow_id = $2 AND status = 'failed'";
    private static final String SETTLED_BEFORE = "SELECT dispatch_key FROM outbox "
            + "WHERE status IN ('done', 'failed', 'cancelled') AND settled_at < $1 LIMIT $2";

    /** The most keys one statement of a bulk settle binds; a larger set takes more, in one transaction. */
    static final int BULK_CHUNK = 1_000;

    private final Db db;
    private final OutboxRows rows;
    private final Clock clock;
    private final Runnable wake;
    private final GroupedSettles settles;
    private final GroupedFencedSettles fencedSettles;
    /** Staging and re-arm as statements of arrays, on PostgreSQL; {@code null} on H2. */
    private final OutboxStaging staging;

    /**
     * @param db database access
     * @param rows row codec
     * @param clock the store clock
     * @param wake wakes this instance's claim streams (called after commits)
     */
    OutboxWrites(Db db, OutboxRows rows, Clock clock, Runnable wake) {
        this.db = db;
        this.rows = rows;
        this.clock = clock;
        this.wake = wake;
        this.settles = db.dialect().postgres() ? new GroupedSettles(db, this::now, wake) : null;
        this.fencedSettles = db.dialect().postgres() ? new GroupedFencedSettles(db, this::now, wake) : null;
        this.staging = db.dialect().postgres() ? new OutboxStaging(db, this::now) : null;
    }

    /** A write that may make rows claimable: wake-up (and the notify of other nodes) after the commit. */
    private <T> Mono<T> waking(String name, Function<Connection, Mono<T>> work) {
        return db.write(name, work).doOnSuccess(r -> wake.run());
    }

    /**
     * W6: a settle fenced by the claim that returned the row: on PostgreSQL grouped with concurrent
     * fenced settles into one statement ({@link GroupedFencedSettles}); on H2 one statement in its
     * transaction, whose update count of 0 means the claim is no longer current (nothing written).
     */
    @Override
    public Mono<Void> fenced(StepEncoder.Settle s, String operation) {
        if (fencedSettles != null) {
            return fencedSettles.submit(operation, s); // wakes the streams itself after a retry
        }
        Mono<Void> write = db.write(operation, c -> FencedSettles.apply(c, s, now(), operation));
        return s.kind() == Settlement.Kind.RETRY ? write.doOnSuccess(v -> wake.run()) : write;
    }

    /**
     * O8–O11: on PostgreSQL one statement of arrays per batch ({@link OutboxStaging}); on H2 one
     * execution of the single-row insert-or-ignore per row, in one transaction.
     */
    @Override
    public Mono<Void> appendOutboxBatch(List<OutboxRowEncoder.Encoded> encoded) {
        if (staging != null) {
            return staging.stage(encoded).doOnSuccess(v -> wake.run());
        }
        return waking("appendOutboxBatch", c -> OutboxRows.insertOrIgnore(c, encoded, now()))
                .then();
    }

    /**
     * O12–O15: on PostgreSQL one statement of arrays per list ({@link OutboxStaging}); on H2 one
     * update per row, and the insert of a row it found no stored row for, in one transaction.
     * Keys are visited in key order, so two nodes re-arming overlapping sets never deadlock.
     */
    @Override
    public Mono<Void> rearmPending(List<OutboxRowEncoder.Encoded> batch) {
        if (staging != null) {
            return staging.rearm(batch).doOnSuccess(v -> wake.run());
        }
        return Mono.defer(() -> {
            List<OutboxRowEncoder.Encoded> encoded = new ArrayList<>(batch);
            // Rows apply in list order per key: a key repeated later in the list updates the row the
            // earlier occurrence inserted, exactly as it would update a stored row (O13, O14). Keys
            // are visited in key order (a stable sort keeps each key's occurrences in list order).
            encoded.sort(Comparator.comparing(e -> e.row().dispatchKey()));
            return waking("rearmPending", c -> {
                long now = now();
                return Flux.fromIterable(encoded)
                        .concatMap(e -> Sql.update(
                                        c,
                                        REARM_EXISTING,
                                        e.visibleAfterNanos(),
                                        e.row().dispatchKey())
                                .flatMap(n -> n == 0 ? OutboxRows.insertOrIgnore(c, List.of(e), now) : Mono.just(n)))
                        .then();
            });
        });
    }

    /** O29, O31, O32: on PostgreSQL grouped with concurrent settles into one statement. */
    @Override
    public Mono<Void> settle(Settlement.Kind kind, String key) {
        String name = operation(kind);
        if (settles != null) {
            return settles.submit(
                    name, new GroupedSettles.Settle(key, kind.status().token(), 0, 0));
        }
        return db.write(name, c -> Sql.update(c, settleSql(kind), now(), key)).then();
    }

    /**
     * O29, O31, O32 in bulk: one transaction (one statement up to {@value #BULK_CHUNK} keys) over the
     * keys in code-point order, the order PostgreSQL's {@code "C"} index locks them in.
     */
    @Override
    public Mono<Void> settleAll(Settlement.Kind kind, List<String> keys) {
        String sql = switch (kind) {
            case COMPLETE -> COMPLETE_KEYS;
            case FAIL -> FAIL_KEYS;
            case CANCEL -> SETTLE_CANCELLED_KEYS;
            case RETRY -> throw new IllegalArgumentException("a retry is not a settle of this kind");
        };
        return deadlockRetried(db.write(operation(kind), c -> updateKeys(c, sql, keys, now())))
                .then();
    }

    private static String operation(Settlement.Kind kind) {
        return switch (kind) {
            case COMPLETE -> "complete";
            case FAIL -> "fail";
            case CANCEL -> "settleCancelled";
            case RETRY -> "retry";
        };
    }

    private static String settleSql(Settlement.Kind kind) {
        return switch (kind) {
            case COMPLETE -> COMPLETE;
            case FAIL -> FAIL;
            case CANCEL -> SETTLE_CANCELLED;
            case RETRY -> throw new IllegalArgumentException("a retry is not a settle of this kind");
        };
    }

    /** O30: on PostgreSQL grouped with concurrent settles into one statement. */
    @Override
    public Mono<Void> retry(String key, int nextAttempt, long visible) {
        if (settles != null) {
            return settles.submit("retry", new GroupedSettles.Settle(key, "pending", nextAttempt, visible));
        }
        return waking("retry", c -> Sql.update(c, RETRY, (long) nextAttempt, visible, key))
                .then();
    }

    /**
     * O30, bulk: like {@link #settleAll}, waking the claim streams after the commit; the visibility is
     * read in the transaction, so a delay counts from the write (O58).
     */
    @Override
    public Mono<Void> retryAll(List<String> keys, int nextAttempt, LongSupplier visible) {
        return deadlockRetried(
                        waking("retry", c -> updateKeys(c, RETRY_KEYS, keys, (long) nextAttempt, visible.getAsLong())))
                .then();
    }

    /**
     * O30 with {@code visibleAfter} = the clock's now plus {@code delay}, the clock read inside the
     * transaction. Written alone rather than through {@link GroupedSettles}, whose requests carry
     * their visibility from submission.
     */
    @Override
    public Mono<Void> retryAfter(String key, int nextAttempt, Duration delay) {
        return waking(
                        "retryAfter",
                        c -> Sql.update(
                                c,
                                RETRY,
                                (long) nextAttempt,
                                SettleArguments.visibleAfterNanos(clock.instant(), delay),
                                key))
                .then();
    }

    /**
     * O66: one transaction locks the live rows of the keys in key order ({@value #BULK_CHUNK} keys a
     * statement), works out each one's new failures (a row whose stored failures do not decode fails
     * the transaction before anything is written), then settles them one execution each. Written
     * alone rather than through {@link GroupedSettles}: the new failures depend on the stored ones.
     */
    @Override
    public Mono<Void> settleWithReason(List<String> keys, Settlement settlement, LongSupplier visible) {
        boolean retry = settlement.kind() == Settlement.Kind.RETRY;
        Function<Connection, Mono<Long>> work = c -> Mono.defer(() -> {
            long now = now();
            long visibleAfter = retry ? visible.getAsLong() : 0L;
            int chunks = (keys.size() + BULK_CHUNK - 1) / BULK_CHUNK;
            return Flux.range(0, chunks)
                    .concatMap(i -> {
                        Sql.Params p = new Sql.Params();
                        List<String> chunk = keys.subList(i * BULK_CHUNK, Math.min(keys.size(), (i + 1) * BULK_CHUNK));
                        return Sql.query(
                                c,
                                FAILING + p.list(chunk) + " ORDER BY dispatch_key FOR UPDATE",
                                row -> {
                                    String key = Sql.textAt(row, 0);
                                    String failures = FailureHistory.appendStored(
                                            key, Sql.textAt(row, 2), Sql.longAt(row, 1), now, settlement.reason());
                                    return retry
                                            ? new Object[] {(long) settlement.nextAttempt(), visibleAfter, failures, key
                                            }
                                            : new Object[] {now, failures, key};
                                },
                                p.values());
                    })
                    .collectList()
                    .flatMap(updates -> Sql.updateEach(c, retry ? RETRY_WITH_REASON : FAIL_WITH_REASON, updates));
        });
        return deadlockRetried(retry ? waking("retry", work) : db.write("fail", work))
                .then();
    }

    /** O35–O37. */
    @Override
    public Mono<List<String>> cancelWorkflowRows(WorkflowId workflowId) {
        String sql = db.dialect().returning(CANCEL_WORKFLOW, "dispatch_key");
        return db.write("cancelWorkflowRows", c -> keys(c, sql, now(), workflowId.toString()));
    }

    /**
     * O41, O42: the stale rows are read and locked ({@code SKIP LOCKED} on PostgreSQL, so two
     * reapers on two nodes split the rows instead of both returning them), then re-armed.
     */
    @Override
    public Mono<List<OutboxRow>> rearmStaleClaimed(long bound, long visible, int limit) {
        return Mono.defer(() -> {
            String select = STALE + db.dialect().lockSkipLocked();
            return waking(
                    "rearmStaleClaimed",
                    c -> Sql.query(c, select, OutboxRows::stored, bound, limit)
                            .collectList()
                            .flatMap(stored -> {
                                List<OutboxRow> stale = new ArrayList<>(stored.size());
                                List<Object[]> corrupt = new ArrayList<>();
                                for (OutboxRows.Stored row : stored) {
                                    try {
                                        stale.add(rows.decode(row));
                                    } catch (SerializationException e) {
                                        // a corrupt claimed row must not block recovery of the others: dead-letter it
                                        log.warn("rearmStaleClaimed dead-lettered an undecodable outbox row", e);
                                        corrupt.add(new Object[] {now(), row.dispatchKey()});
                                    }
                                }
                                Mono<Long> deadLetters = Sql.updateEach(c, FAIL, corrupt);
                                if (stale.isEmpty()) {
                                    return deadLetters.thenReturn(List.<OutboxRow>of());
                                }
                                List<String> keys = new ArrayList<>(stale.size());
                                List<OutboxRow> rearmed = new ArrayList<>(stale.size());
                                for (OutboxRow r : stale) {
                                    keys.add(r.dispatchKey());
                                    rearmed.add(r.withStatus(OutboxStatus.PENDING, null)
                                            .withVisibleAfter(Times.fromNanos(visible)));
                                }
                                Sql.Params p = new Sql.Params();
                                p.add(visible);
                                return deadLetters
                                        .then(Sql.update(c, REARM_KEYS + p.list(keys), p.values()))
                                        .thenReturn(rearmed);
                            }));
        });
    }

    /**
     * W13: refreshes the rows still claimed under the given claims, in one transaction of one
     * statement per {@value #BULK_CHUNK} claims (two parameters each, far below PostgreSQL's 65,535),
     * in key order; returns their keys.
     */
    @Override
    public Mono<List<String>> heartbeat(List<ClaimedKey> claims) {
        return Mono.defer(() -> {
            long now = now();
            int chunks = (claims.size() + BULK_CHUNK - 1) / BULK_CHUNK;
            return db.write(
                    "heartbeat",
                    c -> Flux.range(0, chunks)
                            .concatMap(i -> {
                                List<ClaimedKey> chunk =
                                        claims.subList(i * BULK_CHUNK, Math.min(claims.size(), (i + 1) * BULK_CHUNK));
                                Sql.Params p = new Sql.Params();
                                p.add(now);
                                StringJoiner pairs = new StringJoiner(", ", "(", ")");
                                for (ClaimedKey k : chunk) {
                                    pairs.add("(" + p.add(k.dispatchKey()) + ", " + p.add(k.claimToken()) + ")");
                                }
                                return keys(c, db.dialect().returning(HEARTBEAT + pairs, "dispatch_key"), p.values());
                            })
                            .flatMapIterable(refreshed -> refreshed)
                            .collectList());
        });
    }

    /** Returns rows a cancelled claim stream could not deliver to pending, exactly as they were. */
    @Override
    public Mono<Void> release(List<OutboxRow> claimed) {
        List<String> keys = new ArrayList<>(claimed.size());
        for (OutboxRow r : claimed) {
            keys.add(r.dispatchKey());
        }
        Sql.Params p = new Sql.Params();
        p.add(claimed.get(0).claimToken()); // one claim: one token
        String sql = RELEASE + p.list(keys);
        return waking("release", c -> Sql.update(c, sql, p.values())).then();
    }

    /** Redrives one dead letter; true when a failed row was redriven. */
    @Override
    public Mono<Boolean> redrive(String key, boolean resetAttempt) {
        String sql = resetAttempt ? REDRIVE_RESET : REDRIVE;
        return waking("redrive", c -> Sql.update(c, sql, now(), key).map(n -> n > 0));
    }

    /** Redrives a workflow's dead letters; returns the keys. */
    @Override
    public Mono<List<String>> redriveWorkflow(WorkflowId workflowId, boolean resetAttempt) {
        String sql = db.dialect().returning(resetAttempt ? REDRIVE_WORKFLOW_RESET : REDRIVE_WORKFLOW, "dispatch_key");
        return waking("redriveWorkflow", c -> keys(c, sql, now(), workflowId.toString()));
    }

    /** Deletes settled rows in transactions of at most {@code batchSize} rows. */
    @Override
    public Mono<Long> pruneSettled(long cutoff, int batchSize) {
        return Mono.defer(() -> {
            // The keys first, then exactly those keys, until a batch deletes none. (H2 evaluates a
            // LIMIT inside DELETE unreliably, and its index scan can return a just-deleted key twice,
            // so neither a short batch nor the number of keys selected is trusted.)
            String select = SETTLED_BEFORE + db.dialect().lockSkipLocked();
            Mono<long[]> oneBatch = db.write(
                    "pruneSettled",
                    c -> Sql.query(c, select, row -> Sql.textAt(row, 0), cutoff, batchSize)
                            .collect(Collectors.toCollection(LinkedHashSet::new))
                            .flatMap(keys -> {
                                if (keys.isEmpty()) {
                                    return Mono.just(new long[] {0, 0});
                                }
                                Sql.Params p = new Sql.Params();
                                return Sql.update(
                                                c,
                                                "DELETE FROM outbox WHERE dispatch_key IN " + p.list(keys),
                                                p.values())
                                        .map(deleted -> new long[] {keys.size(), deleted});
                            }));
            return oneBatch.repeat(() -> true)
                    .takeUntil(batch -> batch[0] == 0 || batch[1] == 0)
                    .map(batch -> batch[1])
                    .reduce(0L, Long::sum);
        });
    }

    private long now() {
        return Times.nowNanos(clock.instant());
    }

    /**
     * @param sql an update ending in {@code dispatch_key IN }, its leading markers {@code $1 …}
     * @param keys the keys, sorted; bound {@value #BULK_CHUNK} at a time, one statement each
     * @param leading the values of the leading markers
     * @return the rows changed
     */
    private static Mono<Long> updateKeys(Connection c, String sql, List<String> keys, Object... leading) {
        int chunks = (keys.size() + BULK_CHUNK - 1) / BULK_CHUNK;
        return Flux.range(0, chunks)
                .concatMap(i -> {
                    Sql.Params p = new Sql.Params();
                    for (Object value : leading) {
                        p.add(value);
                    }
                    List<String> chunk = keys.subList(i * BULK_CHUNK, Math.min(keys.size(), (i + 1) * BULK_CHUNK));
                    return Sql.update(c, sql + p.list(chunk), p.values());
                })
                .reduce(0L, Long::sum);
    }

    /**
     * A transaction PostgreSQL aborted as a deadlock victim (against settles locking in another
     * order) changed nothing: it runs again, up to three times, as {@link GroupedSettles} does.
     */
    private static <T> Mono<T> deadlockRetried(Mono<T> write) {
        return write.retryWhen(
                Retry.max(3).filter(Failures::isDeadlock).onRetryExhaustedThrow((spec, signal) -> signal.failure()));
    }

    private static Mono<List<String>> keys(Connection c, String sql, Object... args) {
        return Sql.query(c, sql, row -> Sql.textAt(row, 0), args).collectList();
    }
}
