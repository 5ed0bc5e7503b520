package dev.durablestore.sqlite.internal;

import static dev.durablestore.api.InvalidArgumentException.requireNonEmpty;
import static dev.durablestore.api.InvalidArgumentException.requireNonNegative;
import static dev.durablestore.api.InvalidArgumentException.requireNonNull;
import static dev.durablestore.api.spi.Claims.CODE_POINT_ORDER;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.SerializationException;
import dev.durablestore.api.StaleClaimException;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.WorkflowStep;
import dev.durablestore.api.spi.KeyArguments;
import dev.durablestore.api.spi.OutboxRowEncoder;
import dev.durablestore.api.spi.SettleArguments;
import dev.durablestore.api.spi.StepEncoder;
import dev.durablestore.api.spi.StoredText;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * Every outbox write of the SQLite store except claims (contract group O): staging, re-arm,
 * settles, retry, workflow cancel, stale re-arm, heartbeat, release, redrive, prune. Each is one
 * {@link Writer} command, so it runs in a group-commit transaction; writes that can make rows
 * claimable (staging, re-arm, retry, redrive, release) wake the claim streams after their commit.
 * The R2DBC backend's counterpart has the same name and the same operations.
 */
public final class OutboxWrites {

    private static final Logger log = LoggerFactory.getLogger(OutboxWrites.class);

    private static final String LIVE = OutboxRows.LIVE;
    private static final String RETRY = "UPDATE outbox SET status = 'pending', attempt = ?, visible_after = ?, "
            + "claimed_at = NULL WHERE dispatch_key = ? AND " + LIVE;
    private static final String RETRY_MANY = "UPDATE outbox SET status = 'pending', attempt = ?, visible_after = ?, "
            + "claimed_at = NULL WHERE dispatch_key IN (SELECT value FROM json_each(?)) AND " + LIVE;
    private static final String CANCEL_WORKFLOW = "UPDATE outbox SET status = 'cancelled', claimed_at = NULL, "
            + "settled_at = ? WHERE workflow_id = ? AND " + LIVE + " RETURNING dispatch_key";
    private static final String REARM_EXISTING = "UPDATE outbox SET status = 'pending', visible_after = ?, "
            + "claimed_at = NULL, settled_at = NULL WHERE dispatch_key = ?";
    private static final String REARM_KEYS = "UPDATE outbox SET status = 'pending', visible_after = ?, "
            + "claimed_at = NULL WHERE dispatch_key IN (SELECT value FROM json_each(?)) AND status = 'claimed'";
    private static final String HEARTBEAT = "UPDATE outbox SET claimed_at = ? WHERE status = 'claimed' "
            + "AND dispatch_key IN (SELECT value FROM json_each(?)) RETURNING dispatch_key";
    private static final String RELEASE = "UPDATE outbox SET status = 'pending', claimed_at = NULL "
            + "WHERE status = 'claimed' AND claim_token = ? AND dispatch_key IN (SELECT value FROM json_each(?))";
    private static final String REDRIVE = "UPDATE outbox SET status = 'pending', visible_after = ?, claimed_at = NULL, "
            + "settled_at = NULL, attempt = CASE WHEN ? THEN 0 ELSE attempt END "
            + "WHERE dispatch_key = ? AND status = 'failed'";
    private static final String REDRIVE_WORKFLOW = "UPDATE outbox SET status = 'pending', visible_after = ?, "
            + "claimed_at = NULL, settled_at = NULL, attempt = CASE WHEN ? THEN 0 ELSE attempt END "
            + "WHERE workflow_id = ? AND status = 'failed' RETURNING dispatch_key";
    private static final String PRUNE = "DELETE FROM outbox WHERE dispatch_key IN (SELECT dispatch_key FROM outbox "
            + "WHERE status IN ('done', 'failed', 'cancelled') AND settled_at < ? LIMIT ?)";

    private final Writer writer;
    private final OutboxRows rows;
    private final Clock clock;

    /**
     * @param writer the single writer
     * @param rows row codec
     * @param clock the store clock
     */
    public OutboxWrites(Writer writer, OutboxRows rows, Clock clock) {
        this.writer = writer;
        this.rows = rows;
        this.clock = clock;
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

    /** O29. @param key row @return completion */
    public Mono<Void> complete(String key) {
        return settle(SettleCommand.Kind.COMPLETE, key);
    }

    /** O29, bulk. @param keys rows @return completion */
    public Mono<Void> complete(Collection<String> keys) {
        return settleAll(SettleCommand.Kind.COMPLETE, keys);
    }

    /** O31. @param key row @return completion */
    public Mono<Void> fail(String key) {
        return settle(SettleCommand.Kind.FAIL, key);
    }

    /** O31, bulk. @param keys rows @return completion */
    public Mono<Void> fail(Collection<String> keys) {
        return settleAll(SettleCommand.Kind.FAIL, keys);
    }

    /** O32. @param key row @return completion */
    public Mono<Void> settleCancelled(String key) {
        return settle(SettleCommand.Kind.CANCEL, key);
    }

    /** O32, bulk. @param keys rows @return completion */
    public Mono<Void> settleCancelled(Collection<String> keys) {
        return settleAll(SettleCommand.Kind.CANCEL, keys);
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

    /** One command, one statement over every storable key; unstorable ones match no row (O33). */
    private Mono<Void> settleAll(SettleCommand.Kind kind, Collection<String> keys) {
        return Mono.defer(() -> {
            List<String> list = SettleArguments.sortedKeys(keys);
            if (list.isEmpty()) {
                return Mono.empty();
            }
            return writer.submit(SettleCommand.bulk(kind, list, clock));
        });
    }

    /**
     * W6: a settle fenced by the claim that returned the row; nothing changes when the claim is no
     * longer current.
     *
     * @param claimed the row as its claim returned it
     * @param settlement how to settle it
     * @param nextAttempt a retry's attempt
     * @param visibleAfter a retry's visibility, else {@code null}
     * @param operation the operation name
     * @return completion, or {@link dev.durablestore.api.StaleClaimException}
     */
    public Mono<Void> fenced(
            OutboxRow claimed,
            WorkflowStep.Settlement settlement,
            int nextAttempt,
            Instant visibleAfter,
            String operation) {
        return Mono.defer(() -> {
            StepEncoder.Settle s = StepEncoder.fenced(claimed, settlement, nextAttempt, visibleAfter, operation);
            return writer.submit(Commands.of(operation, settlement == WorkflowStep.Settlement.RETRY, c -> {
                if (!FencedSettles.apply(c, s, now())) {
                    // the update changed nothing: the command is refused, its transaction goes on
                    throw new StaleClaimException(operation, s.dispatchKey(), s.claimToken());
                }
                return null;
            }));
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
     * O30, bulk: one statement over every storable key.
     *
     * @param keys rows
     * @param nextAttempt attempt count
     * @param visibleAfter next visibility
     * @return completion
     */
    public Mono<Void> retry(Collection<String> keys, int nextAttempt, Instant visibleAfter) {
        return Mono.defer(() -> {
            List<String> list = SettleArguments.sortedKeys(keys);
            requireNonNegative(nextAttempt, "nextAttempt");
            long visible = Times.toNanos(visibleAfter, "visibleAfter");
            if (list.isEmpty()) {
                return Mono.empty();
            }
            String json = JsonArrays.of(list);
            return writer.submit(Commands.of("retry", true, c -> {
                PreparedStatement ps = c.prepare(RETRY_MANY);
                ps.setLong(1, nextAttempt);
                ps.setLong(2, visible);
                ps.setString(3, json);
                ps.executeUpdate();
                return null;
            }));
        });
    }

    /**
     * O30 with {@code visibleAfter} = the clock's now, read inside the command, plus {@code delay}.
     *
     * @param key row
     * @param nextAttempt attempt count
     * @param delay from the write to the next visibility
     * @return completion
     */
    public Mono<Void> retryAfter(String key, int nextAttempt, Duration delay) {
        return Mono.defer(() -> {
            requireNonEmpty(key, "dispatchKey");
            requireNonNegative(nextAttempt, "nextAttempt");
            SettleArguments.requireDelay(delay);
            if (!StoredText.storable(key)) {
                return Mono.empty(); // no row holds it (O33)
            }
            return writer.submit(Commands.of("retryAfter", true, c -> {
                PreparedStatement ps = c.prepare(RETRY);
                ps.setLong(1, nextAttempt);
                ps.setLong(2, SettleArguments.visibleAfterNanos(clock.instant(), delay));
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
                PreparedStatement select = c.prepare(OutboxReads.STALE);
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
            List<String> list = StoredText.storableOnly(KeyArguments.checked(keys, "dispatchKeys", true));
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
    public Mono<Void> release(List<OutboxRow> claimed) {
        if (claimed.isEmpty()) {
            return Mono.empty();
        }
        List<String> keys = new ArrayList<>(claimed.size());
        for (OutboxRow r : claimed) {
            keys.add(r.dispatchKey());
        }
        long token = claimed.get(0).claimToken(); // one claim: one token
        return writer.submit(Commands.of("release", true, c -> {
            PreparedStatement ps = c.prepare(RELEASE);
            ps.setLong(1, token);
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

    private long now() {
        return Times.nowNanos(clock.instant());
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
