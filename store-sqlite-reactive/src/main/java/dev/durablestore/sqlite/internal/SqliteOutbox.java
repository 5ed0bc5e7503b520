package dev.durablestore.sqlite.internal;

import dev.durablestore.api.spi.ClaimBatch;
import dev.durablestore.api.spi.ClaimStreams;
import dev.durablestore.api.spi.Wakeups;
import static dev.durablestore.api.InvalidArgumentException.requireNonEmpty;
import static dev.durablestore.api.InvalidArgumentException.requireNonNegative;
import static dev.durablestore.api.InvalidArgumentException.requireNonNull;
import static dev.durablestore.api.spi.Claims.CODE_POINT_ORDER;
import static dev.durablestore.api.spi.Claims.heldKeys;

import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxRowState;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.SerializationException;
import dev.durablestore.api.StoreMetrics;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.spi.OutboxRowEncoder;
import dev.durablestore.api.spi.StoredText;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** Every outbox operation of the SQLite store (contract group O), each a writer command or a read. */
public final class SqliteOutbox implements ClaimStreams.Source {

    private static final Logger log = LoggerFactory.getLogger(SqliteOutbox.class);

    private static final String LIVE = "status IN ('pending', 'claimed')";

    private static final String RETRY = "UPDATE outbox SET status = 'pending', attempt = ?, visible_after = ?, "
            + "claimed_at = NULL WHERE dispatch_key = ? AND " + LIVE;
    private static final String CANCEL_WORKFLOW = "UPDATE outbox SET status = 'cancelled', claimed_at = NULL, "
            + "settled_at = ? WHERE workflow_id = ? AND " + LIVE + " RETURNING dispatch_key";
    private static final String REARM_EXISTING = "UPDATE outbox SET status = 'pending', visible_after = ?, "
            + "claimed_at = NULL, settled_at = NULL WHERE dispatch_key = ?";
    private static final String STALE = "SELECT " + OutboxRows.COLUMNS + " FROM outbox WHERE status = 'claimed' "
            + "AND claimed_at IS NOT NULL AND claimed_at < ? ORDER BY claimed_at, dispatch_key LIMIT ?";
    private static final String REARM_KEYS = "UPDATE outbox SET status = 'pending', visible_after = ?, "
            + "claimed_at = NULL WHERE dispatch_key IN (SELECT value FROM json_each(?)) AND status = 'claimed'";
    private static final String HEARTBEAT = "UPDATE outbox SET claimed_at = ? WHERE status = 'claimed' "
            + "AND dispatch_key IN (SELECT value FROM json_each(?)) RETURNING dispatch_key";
    private static final String RELEASE = "UPDATE outbox SET status = 'pending', claimed_at = NULL "
            + "WHERE status = 'claimed' AND claimed_at = ? AND dispatch_key IN (SELECT value FROM json_each(?))";
    private static final String REDRIVE = "UPDATE outbox SET status = 'pending', visible_after = ?, claimed_at = NULL, "
            + "settled_at = NULL, attempt = CASE WHEN ? THEN 0 ELSE attempt END "
            + "WHERE dispatch_key = ? AND status = 'failed'";
    private static final String REDRIVE_WORKFLOW = "UPDATE outbox SET status = 'pending', visible_after = ?, "
            + "claimed_at = NULL, settled_at = NULL, attempt = CASE WHEN ? THEN 0 ELSE attempt END "
            + "WHERE workflow_id = ? AND status = 'failed' RETURNING dispatch_key";
    private static final String PRUNE = "DELETE FROM outbox WHERE dispatch_key IN (SELECT dispatch_key FROM outbox "
            + "WHERE status IN ('done', 'failed', 'cancelled') AND settled_at < ? LIMIT ?)";
    private static final String UNSETTLED = "SELECT DISTINCT workflow_id FROM outbox WHERE " + LIVE
            + " ORDER BY workflow_id";
    private static final String COUNT_INFLIGHT = "SELECT count(*) FROM outbox WHERE namespace = ? AND " + LIVE;
    private static final String COUNT_CLAIMED = "SELECT count(*) FROM outbox WHERE namespace = ? AND status = 'claimed'";
    private static final String COUNT_CLAIMED_BY_NS = "SELECT namespace, count(*) FROM outbox WHERE status = 'claimed' "
            + "AND namespace IN (SELECT value FROM json_each(?)) GROUP BY namespace";
    private static final String ROUTES = "SELECT DISTINCT namespace, task_queue, node FROM outbox "
            + "WHERE status = 'pending' AND visible_after <= ? ORDER BY namespace, task_queue, node";
    private static final String ROW_STATE = "SELECT status, attempt, visible_after FROM outbox WHERE dispatch_key = ?";

    private final Writer writer;
    private final ReaderPool readers;
    private final OutboxRows rows;
    private final Clock clock;
    private final Wakeups wakeups;
    private final StoreMetrics metrics;

    /**
     * @param writer the single writer
     * @param readers the reader pool
     * @param rows row codec
     * @param clock the store clock
     * @param wakeups signalled by the writer after commits that make rows claimable
     * @param metrics receives claimed-row counts
     */
    public SqliteOutbox(Writer writer, ReaderPool readers, OutboxRows rows, Clock clock, Wakeups wakeups,
            StoreMetrics metrics) {
        this.writer = writer;
        this.readers = readers;
        this.rows = rows;
        this.clock = clock;
        this.wakeups = wakeups;
        this.metrics = metrics;
    }

    /**
     * O52.
     *
     * @param options stream options
     * @return the claim stream
     */
    public Flux<OutboxRow> claimStream(ClaimStreamOptions options) {
        return Flux.defer(() -> ClaimStreams.create(this, wakeups, clock, requireNonNull(options, "options")));
    }

    /** @return the row codec */
    OutboxRows rows() {
        return rows;
    }

    /**
     * O8–O11.
     *
     * @param batch rows to stage
     * @return completion
     */
    public Mono<Void> appendOutboxBatch(List<OutboxRow> batch) {
        return Mono.defer(() -> {
            List<OutboxRowEncoder.Encoded> encoded = rows.encoder().forStaging(batch, "rows");
            if (encoded.isEmpty()) {
                return Mono.empty();
            }
            return writer.submit(Commands.of("appendOutboxBatch", true, c -> {
                OutboxRows.insertOrIgnore(c, encoded, now());
                return null;
            }));
        });
    }

    /**
     * O12–O15.
     *
     * @param batch rows to re-arm
     * @return completion
     */
    public Mono<Void> rearmPending(List<OutboxRow> batch) {
        return Mono.defer(() -> {
            List<OutboxRowEncoder.Encoded> encoded = rows.encoder().forRearm(batch, "rows");
            if (encoded.isEmpty()) {
                return Mono.empty();
            }
            return writer.submit(Commands.of("rearmPending", true, c -> {
                // rows apply in list order: a key repeated later in the list updates the row the
                // earlier occurrence inserted, exactly as it would update a stored row (O13, O14)
                PreparedStatement update = c.prepare(REARM_EXISTING);
                long now = now();
                for (OutboxRowEncoder.Encoded e : encoded) {
                    update.setLong(1, e.visibleAfterNanos());
                    update.setString(2, e.row().dispatchKey());
                    if (update.executeUpdate() == 0) {
                        OutboxRows.insertOrIgnore(c, List.of(e), now);
                    }
                }
                return null;
            }));
        });
    }

    /**
     * Every claim variant (O16–O27).
     *
     * @param scope route or null
     * @param limit most rows
     * @param held held workflows
     * @return claimed rows
     */
    public Mono<List<OutboxRow>> claim(ClaimScope scope, int limit, Set<WorkflowId> held) {
        return claimBatch(scope, limit, held, false).map(r -> r.rows());
    }

    /**
     * A claim that also reports the next known {@code visible_after}, for the claim stream.
     * Corrupt rows are reported in the result rather than as an error.
     */
    @Override
    public Mono<ClaimBatch> claimForStream(ClaimScope scope, IntSupplier limit, Set<WorkflowId> held) {
        return Mono.defer(() -> {
            Set<String> keys = heldKeys(held);
            if (StoredText.admitsNoStoredRow(scope)) {
                return Mono.just(new ClaimBatch(List.of(), null, null)); // no stored row is on that route
            }
            return writer.submit(new ClaimCommand(rows, StoredText.matchable(scope), keys, limit, true, clock));
        }).doOnNext(r -> metrics.rowsClaimed(r.rows().size()));
    }

    private Mono<ClaimBatch> claimBatch(ClaimScope scope, int limit, Set<WorkflowId> held, boolean next) {
        return Mono.defer(() -> {
            requireNonNegative(limit, "limit");
            Set<String> keys = heldKeys(held);
            if (limit == 0 || StoredText.admitsNoStoredRow(scope)) {
                return Mono.just(new ClaimBatch(List.of(), null, null)); // none asked for, or none on that route
            }
            return writer.submit(new ClaimCommand(rows, StoredText.matchable(scope), keys, () -> limit, next, clock))
                    .doOnNext(r -> metrics.rowsClaimed(r.rows().size()))
                    .flatMap(r -> r.corrupt() != null ? Mono.error(r.corrupt()) : Mono.just(r));
        });
    }

    /** O29. @param key row @return completion */
    public Mono<Void> complete(String key) {
        return settle(SettleCommand.Kind.COMPLETE, key);
    }

    /** O31. @param key row @return completion */
    public Mono<Void> fail(String key) {
        return settle(SettleCommand.Kind.FAIL, key);
    }

    /** O32. @param key row @return completion */
    public Mono<Void> settleCancelled(String key) {
        return settle(SettleCommand.Kind.CANCEL, key);
    }

    private Mono<Void> settle(SettleCommand.Kind kind, String key) {
        return Mono.defer(() -> {
            requireNonEmpty(key, "dispatchKey");
            if (!StoredText.storable(key)) {
                return Mono.empty(); // no row holds it: a no-op, as for any unknown key (O33)
            }
            return writer.submit(new SettleCommand(kind, key, clock));
        });
    }

    /**
     * O30.
     *
     * @param key row
     * @param nextAttempt attempt count
     * @param visibleAfter next visibility
     * @return completion
     */
    public Mono<Void> retry(String key, int nextAttempt, Instant visibleAfter) {
        return Mono.defer(() -> {
            requireNonEmpty(key, "dispatchKey");
            requireNonNegative(nextAttempt, "nextAttempt");
            long visible = Times.toNanos(visibleAfter, "visibleAfter");
            if (!StoredText.storable(key)) {
                return Mono.empty(); // no row holds it (O33)
            }
            return writer.submit(Commands.of("retry", true, c -> {
                PreparedStatement ps = c.prepare(RETRY);
                ps.setLong(1, nextAttempt);
                ps.setLong(2, visible);
                ps.setString(3, key);
                ps.executeUpdate();
                return null;
            }));
        });
    }

    /**
     * O35–O37.
     *
     * @param workflowId workflow
     * @return changed keys, ascending
     */
    public Mono<List<String>> cancelWorkflowRows(WorkflowId workflowId) {
        return Mono.defer(() -> {
            requireNonNull(workflowId, "workflowId");
            return writer.submit(Commands.of("cancelWorkflowRows", false, c -> {
                PreparedStatement ps = c.prepare(CANCEL_WORKFLOW);
                ps.setLong(1, now());
                ps.setString(2, workflowId.toString());
                return sortedKeys(ps);
            }));
        });
    }

    /**
     * O39, O40.
     *
     * @param olderThan bound
     * @param limit most rows
     * @return stale rows
     */
    public Flux<OutboxRow> listStaleClaimed(Instant olderThan, int limit) {
        return Mono.defer(() -> {
            long bound = Times.toNanos(olderThan, "olderThan");
            requireNonNegative(limit, "limit");
            if (limit == 0) {
                return Mono.just(List.<OutboxRow>of());
            }
            return readers.read("listStaleClaimed", c -> stale(c, bound, limit));
        }).flatMapMany(Flux::fromIterable);
    }

    private List<OutboxRow> stale(DbConnection c, long bound, int limit) throws SQLException {
        PreparedStatement ps = c.prepare(STALE);
        ps.setLong(1, bound);
        ps.setInt(2, limit);
        try (ResultSet rs = ps.executeQuery()) {
            return rows.decodeAll(rs);
        }
    }

    /**
     * O41, O42.
     *
     * @param olderThan bound
     * @param visibleAfter new visibility
     * @param limit most rows
     * @return re-armed rows
     */
    public Mono<List<OutboxRow>> rearmStaleClaimed(Instant olderThan, Instant visibleAfter, int limit) {
        return Mono.defer(() -> {
            long bound = Times.toNanos(olderThan, "olderThan");
            long visible = Times.toNanos(visibleAfter, "visibleAfter");
            requireNonNegative(limit, "limit");
            if (limit == 0) {
                return Mono.just(List.<OutboxRow>of());
            }
            return writer.submit(Commands.of("rearmStaleClaimed", true, c -> {
                List<OutboxRow> stale = new ArrayList<>();
                List<String> corrupt = new ArrayList<>();
                PreparedStatement select = c.prepare(STALE);
                select.setLong(1, bound);
                select.setInt(2, limit);
                try (ResultSet rs = select.executeQuery()) {
                    while (rs.next()) {
                        try {
                            stale.add(rows.decode(rs));
                        } catch (SerializationException e) {
                            // a corrupt claimed row must not block recovery of the others: dead-letter it
                            log.warn("rearmStaleClaimed dead-lettered an undecodable outbox row", e);
                            corrupt.add(rs.getString(1));
                        }
                    }
                }
                for (String key : corrupt) {
                    new SettleCommand(SettleCommand.Kind.FAIL, key, clock).execute(c); // dead-letter it
                }
                if (stale.isEmpty()) {
                    return List.<OutboxRow>of();
                }
                List<String> keys = new ArrayList<>(stale.size());
                List<OutboxRow> rearmed = new ArrayList<>(stale.size());
                for (OutboxRow r : stale) {
                    keys.add(r.dispatchKey());
                    rearmed.add(r.withStatus(OutboxStatus.PENDING, null).withVisibleAfter(Times.fromNanos(visible)));
                }
                PreparedStatement ps = c.prepare(REARM_KEYS);
                ps.setLong(1, visible);
                ps.setString(2, JsonArrays.of(keys));
                ps.executeUpdate();
                return rearmed;
            }));
        });
    }

    /**
     * Refreshes claims.
     *
     * @param keys held keys
     * @return still-claimed keys, ascending
     */
    public Mono<List<String>> heartbeat(Collection<String> keys) {
        return Mono.defer(() -> {
            List<String> list = StoredText.storableOnly(keyList(keys, "dispatchKeys", true));
            if (list.isEmpty()) {
                return Mono.just(List.<String>of());
            }
            return writer.submit(Commands.of("heartbeat", false, c -> {
                PreparedStatement ps = c.prepare(HEARTBEAT);
                ps.setLong(1, now());
                ps.setString(2, JsonArrays.of(list));
                return sortedKeys(ps);
            }));
        });
    }

    /**
     * Returns rows a cancelled claim stream could not deliver to pending, exactly as they were.
     *
     * @param claimed rows claimed in one claim
     * @return completion
     */
    @Override
    public Mono<Void> release(List<OutboxRow> claimed) {
        if (claimed.isEmpty()) {
            return Mono.empty();
        }
        List<String> keys = new ArrayList<>(claimed.size());
        for (OutboxRow r : claimed) {
            keys.add(r.dispatchKey());
        }
        long claimedAt = Times.nowNanos(claimed.get(0).claimedAt());
        return writer.submit(Commands.of("release", true, c -> {
            PreparedStatement ps = c.prepare(RELEASE);
            ps.setLong(1, claimedAt);
            ps.setString(2, JsonArrays.of(keys));
            ps.executeUpdate();
            return null;
        }));
    }

    /**
     * Redrives one dead letter.
     *
     * @param key row
     * @param resetAttempt reset the attempt
     * @return whether a failed row was redriven
     */
    public Mono<Boolean> redrive(String key, boolean resetAttempt) {
        return Mono.defer(() -> {
            requireNonEmpty(key, "dispatchKey");
            if (!StoredText.storable(key)) {
                return Mono.just(false); // no row holds it
            }
            return writer.submit(Commands.of("redrive", true, c -> {
                PreparedStatement ps = c.prepare(REDRIVE);
                ps.setLong(1, now());
                ps.setBoolean(2, resetAttempt);
                ps.setString(3, key);
                return ps.executeUpdate() > 0;
            }));
        });
    }

    /**
     * Redrives a workflow's dead letters.
     *
     * @param workflowId workflow
     * @param resetAttempt reset attempts
     * @return redriven keys, ascending
     */
    public Mono<List<String>> redriveWorkflow(WorkflowId workflowId, boolean resetAttempt) {
        return Mono.defer(() -> {
            requireNonNull(workflowId, "workflowId");
            return writer.submit(Commands.of("redriveWorkflow", true, c -> {
                PreparedStatement ps = c.prepare(REDRIVE_WORKFLOW);
                ps.setLong(1, now());
                ps.setBoolean(2, resetAttempt);
                ps.setString(3, workflowId.toString());
                return sortedKeys(ps);
            }));
        });
    }

    /**
     * Deletes settled rows in bounded transactions.
     *
     * @param settledBefore cutoff
     * @param batchSize rows per transaction
     * @return rows deleted
     */
    public Mono<Long> pruneSettled(Instant settledBefore, int batchSize) {
        return Mono.defer(() -> {
            long cutoff = Times.toNanos(settledBefore, "settledBefore");
            if (batchSize < 1) {
                throw new InvalidArgumentException("batchSize", "must be at least 1, was " + batchSize);
            }
            Mono<Integer> oneBatch = writer.submit(Commands.of("pruneSettled", false, c -> {
                PreparedStatement ps = c.prepare(PRUNE);
                ps.setLong(1, cutoff);
                ps.setInt(2, batchSize);
                return ps.executeUpdate();
            }));
            return oneBatch.repeat(() -> true)
                    .takeUntil(deleted -> deleted < batchSize)
                    .reduce(0L, (sum, deleted) -> sum + deleted);
        });
    }

    /** O43. @return unsettled workflow ids */
    public Flux<WorkflowId> listUnsettledWorkflowIds() {
        return readers.read("listUnsettledWorkflowIds", c -> {
            List<WorkflowId> ids = new ArrayList<>();
            try (ResultSet rs = c.prepare(UNSETTLED).executeQuery()) {
                while (rs.next()) {
                    ids.add(EventRows.workflowId(rs.getString(1)));
                }
            }
            return ids;
        }).flatMapMany(Flux::fromIterable);
    }

    /** O44. @param namespace ns @return count */
    public Mono<Long> countInflight(String namespace) {
        return count("countInflight", COUNT_INFLIGHT, namespace);
    }

    /** O45. @param namespace ns @return count */
    public Mono<Long> countClaimed(String namespace) {
        return count("countClaimed", COUNT_CLAIMED, namespace);
    }

    private Mono<Long> count(String name, String sql, String namespace) {
        return Mono.defer(() -> {
            requireNonNull(namespace, "namespace");
            if (!StoredText.storable(namespace)) {
                return Mono.just(0L); // no row holds it (O46)
            }
            return readers.read(name, c -> {
                PreparedStatement ps = c.prepare(sql);
                ps.setString(1, namespace);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? rs.getLong(1) : 0L;
                }
            });
        });
    }

    /** O47. @param namespaces namespaces @return counts */
    public Mono<Map<String, Long>> countClaimedByNamespace(Collection<String> namespaces) {
        return Mono.defer(() -> {
            List<String> list = keyList(namespaces, "namespaces", false);
            if (list.isEmpty()) {
                return Mono.just(Map.<String, Long>of());
            }
            List<String> stored = StoredText.storableOnly(list);
            if (stored.isEmpty()) {
                Map<String, Long> none = new LinkedHashMap<>();
                list.forEach(ns -> none.put(ns, 0L));
                return Mono.just(Map.copyOf(none));
            }
            return readers.read("countClaimedByNamespace", c -> {
                Map<String, Long> counts = new LinkedHashMap<>();
                for (String ns : list) {
                    counts.put(ns, 0L);
                }
                PreparedStatement ps = c.prepare(COUNT_CLAIMED_BY_NS);
                ps.setString(1, JsonArrays.of(new TreeSet<>(stored)));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        counts.put(rs.getString(1), rs.getLong(2));
                    }
                }
                return Map.copyOf(counts);
            });
        });
    }

    /** O48, O49. @return due routes */
    public Flux<ClaimScope> pendingRoutes() {
        return readers.read("pendingRoutes", c -> {
            PreparedStatement ps = c.prepare(ROUTES);
            ps.setLong(1, now());
            List<ClaimScope> routes = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    routes.add(new ClaimScope(rs.getString(1), rs.getString(2), rs.getString(3)));
                }
            }
            return routes;
        }).flatMapMany(Flux::fromIterable);
    }

    /** O50. @param key row @return state or empty */
    public Mono<OutboxRowState> rowState(String key) {
        return Mono.defer(() -> {
            requireNonEmpty(key, "dispatchKey");
            if (!StoredText.storable(key)) {
                return Mono.empty(); // no row holds it (O50)
            }
            return readers.read("rowState", c -> {
                PreparedStatement ps = c.prepare(ROW_STATE);
                ps.setString(1, key);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return null;
                    }
                    try {
                        return new OutboxRowState(OutboxStatus.fromToken(rs.getString(1)), (int) rs.getLong(2),
                                Times.readInstant(rs, 3, "visible_after"));
                    } catch (SerializationException | InvalidArgumentException e) {
                        throw new SerializationException(
                                "stored outbox row " + key + " cannot be decoded: " + e.getMessage(), e);
                    }
                }
            });
        });
    }

    private long now() {
        return Times.nowNanos(clock.instant());
    }

    private static List<String> keyList(Collection<String> keys, String argument, boolean nonEmpty) {
        requireNonNull(keys, argument);
        List<String> list = new ArrayList<>(keys.size());
        int i = 0;
        for (String k : keys) {
            String name = argument + "[" + i++ + "]";
            list.add(nonEmpty ? requireNonEmpty(k, name) : requireNonNull(k, name));
        }
        return list;
    }

    private static List<String> sortedKeys(PreparedStatement ps) throws SQLException {
        List<String> keys = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                keys.add(rs.getString(1));
            }
        }
        keys.sort(CODE_POINT_ORDER);
        return keys;
    }
}
