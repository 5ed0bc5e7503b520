package dev.durablestore.sqlite.internal;

import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.SerializationException;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.StaleClaimException;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.core.internal.FailureHistory;
import dev.durablestore.core.internal.OutboxRowEncoder;
import dev.durablestore.core.internal.SettleArguments;
import dev.durablestore.core.internal.StepEncoder;
import dev.durablestore.core.storage.OutboxWriteStorage;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
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
final class OutboxWrites implements OutboxWriteStorage {

    private static final Logger log = LoggerFactory.getLogger(OutboxWrites.class);

    private static final String LIVE = OutboxRows.LIVE;
    private static final String RETRY = "UPDATE outbox SET status = 'pending', attempt = ?, visible_after = ?, "
            + "claimed_at = NULL WHERE dispatch_key = ? AND " + LIVE;
    private static final String RETRY_MANY = "UPDATE outbox SET status = 'pending', attempt = ?, visible_after = ?, "
            + "claimed_at = NULL WHERE dispatch_key IN (SELECT value FROM json_each(?)) AND " + LIVE;
    /** O66: the live rows of a settle that records a reason, with what the failure record needs. */
    private static final String FAILING = "SELECT dispatch_key, attempt, failures FROM outbox "
            + "WHERE dispatch_key IN (SELECT value FROM json_each(?)) AND " + LIVE;

    private static final String FAIL_WITH_REASON = "UPDATE outbox SET status = 'failed', claimed_at = NULL, "
            + "settled_at = ?, failures = ? WHERE dispatch_key = ? AND " + LIVE;
    private static final String RETRY_WITH_REASON = "UPDATE outbox SET status = 'pending', attempt = ?, "
            + "visible_after = ?, claimed_at = NULL, failures = ? WHERE dispatch_key = ? AND " + LIVE;
    private static final String CANCEL_WORKFLOW = "UPDATE outbox SET status = 'cancelled', claimed_at = NULL, "
            + "settled_at = ? WHERE workflow_id = ? AND " + LIVE + " RETURNING dispatch_key";
    private static final String REARM_EXISTING = "UPDATE outbox SET status = 'pending', visible_after = ?, "
            + "claimed_at = NULL, settled_at = NULL WHERE dispatch_key = ?";
    private static final String REARM_KEYS = "UPDATE outbox SET status = 'pending', visible_after = ?, "
            + "claimed_at = NULL WHERE dispatch_key IN (SELECT value FROM json_each(?)) AND status = 'claimed'";
    /** W13: the claims as a JSON array of {@code [key, token]} pairs. */
    private static final String HEARTBEAT = "UPDATE outbox SET claimed_at = ? FROM (SELECT value ->> 0 AS k, "
            + "value ->> 1 AS t FROM json_each(?)) AS held WHERE outbox.dispatch_key = held.k "
            + "AND outbox.claim_token = held.t AND outbox.status = 'claimed' RETURNING outbox.dispatch_key";

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
    OutboxWrites(Writer writer, OutboxRows rows, Clock clock) {
        this.writer = writer;
        this.rows = rows;
        this.clock = clock;
    }

    /**
     * O8–O11.
     *
     * @param encoded checked, encoded rows to stage
     * @return completion
     */
    @Override
    public Mono<Void> appendOutboxBatch(List<OutboxRowEncoder.Encoded> encoded) {
        return writer.submit(Commands.of("appendOutboxBatch", true, c -> {
            OutboxRows.insertOrIgnore(c, encoded, now());
            return null;
        }));
    }

    /**
     * O12–O15.
     *
     * @param encoded checked, encoded rows to re-arm, in the caller's order
     * @return completion
     */
    @Override
    public Mono<Void> rearmPending(List<OutboxRowEncoder.Encoded> encoded) {
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
    }

    /**
     * O29, O31, O32.
     *
     * @param kind complete, fail or cancel
     * @param key a storable key
     * @return completion
     */
    @Override
    public Mono<Void> settle(Settlement.Kind kind, String key) {
        return writer.submit(new SettleCommand(kind(kind), key, clock));
    }

    /**
     * O29, O31, O32 in bulk: one command, one statement over the keys.
     *
     * @param kind complete, fail or cancel
     * @param keys storable keys, distinct, sorted
     * @return completion
     */
    @Override
    public Mono<Void> settleAll(Settlement.Kind kind, List<String> keys) {
        return writer.submit(SettleCommand.bulk(kind(kind), keys, clock));
    }

    private static SettleCommand.Kind kind(Settlement.Kind kind) {
        return switch (kind) {
            case COMPLETE -> SettleCommand.Kind.COMPLETE;
            case FAIL -> SettleCommand.Kind.FAIL;
            case CANCEL -> SettleCommand.Kind.CANCEL;
            case RETRY -> throw new IllegalArgumentException("a retry is not a settle of this kind");
        };
    }

    /**
     * O66: one command reads the live rows of the keys, works out each one's new failures (a row
     * whose stored failures do not decode refuses the command before it writes), then settles them
     * one statement each.
     *
     * @param keys storable keys, distinct, sorted
     * @param settlement a retry or dead-letter with a reason
     * @param visible a retry's visibility, read when the command runs; {@code null} for a dead-letter
     * @return completion
     */
    @Override
    public Mono<Void> settleWithReason(List<String> keys, Settlement settlement, LongSupplier visible) {
        boolean retry = settlement.kind() == Settlement.Kind.RETRY;
        String json = JsonArrays.of(keys);
        return writer.submit(Commands.of(retry ? "retry" : "fail", retry, c -> {
            long now = now();
            long visibleAfter = retry ? visible.getAsLong() : 0L;
            List<String> found = new ArrayList<>();
            List<String> failures = new ArrayList<>();
            PreparedStatement select = c.prepare(FAILING);
            select.setString(1, json);
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    String key = rs.getString(1);
                    found.add(key);
                    failures.add(
                            FailureHistory.appendStored(key, rs.getString(3), rs.getLong(2), now, settlement.reason()));
                }
            }
            PreparedStatement ps = c.prepare(retry ? RETRY_WITH_REASON : FAIL_WITH_REASON);
            for (int k = 0; k < found.size(); k++) {
                int i = 1;
                if (retry) {
                    ps.setLong(i++, settlement.nextAttempt());
                    ps.setLong(i++, visibleAfter);
                } else {
                    ps.setLong(i++, now);
                }
                ps.setString(i++, failures.get(k));
                ps.setString(i, found.get(k));
                ps.executeUpdate();
            }
            return null;
        }));
    }

    /**
     * W6: a settle fenced by the claim that returned the row; nothing changes when the claim is no
     * longer current.
     *
     * @param s the encoded settle
     * @param operation the operation name
     * @return completion, or {@link dev.durablestore.api.StaleClaimException}
     */
    @Override
    public Mono<Void> fenced(StepEncoder.Settle s, String operation) {
        return writer.submit(Commands.of(operation, s.kind() == Settlement.Kind.RETRY, c -> {
            if (!FencedSettles.apply(c, s, now())) {
                // the update changed nothing: the command is refused, its transaction goes on
                throw new StaleClaimException(operation, s.dispatchKey(), s.claimToken());
            }
            return null;
        }));
    }

    /**
     * O30.
     *
     * @param key a storable key
     * @param nextAttempt attempt count
     * @param visible next visibility, epoch nanoseconds
     * @return completion
     */
    @Override
    public Mono<Void> retry(String key, int nextAttempt, long visible) {
        return retrying("retry", RETRY, nextAttempt, () -> visible, key);
    }

    /**
     * O30, bulk: one statement over the keys.
     *
     * @param keys storable keys, distinct, sorted
     * @param nextAttempt attempt count
     * @param visible next visibility, epoch nanoseconds, read when the command runs
     * @return completion
     */
    @Override
    public Mono<Void> retryAll(List<String> keys, int nextAttempt, LongSupplier visible) {
        return retrying("retry", RETRY_MANY, nextAttempt, visible, JsonArrays.of(keys));
    }

    /**
     * O30 with {@code visibleAfter} = the clock's now, read inside the command, plus {@code delay}.
     *
     * @param key row
     * @param nextAttempt attempt count
     * @param delay from the write to the next visibility
     * @return completion
     */
    @Override
    public Mono<Void> retryAfter(String key, int nextAttempt, Duration delay) {
        return retrying(
                "retryAfter", RETRY, nextAttempt, () -> SettleArguments.visibleAfterNanos(clock.instant(), delay), key);
    }

    /**
     * One retry statement ({@code RETRY} of a key or {@code RETRY_MANY} of a JSON array of keys) as
     * a writer command that wakes the claim streams.
     *
     * @param visible read when the command runs, so a delay counts from the write
     */
    private Mono<Void> retrying(String name, String sql, int nextAttempt, LongSupplier visible, String keys) {
        return writer.submit(Commands.of(name, true, c -> {
            PreparedStatement ps = c.prepare(sql);
            ps.setLong(1, nextAttempt);
            ps.setLong(2, visible.getAsLong());
            ps.setString(3, keys);
            ps.executeUpdate();
            return null;
        }));
    }

    /**
     * O35.
     *
     * @param workflowId workflow
     * @return the keys of the rows it cancelled
     */
    @Override
    public Mono<List<String>> cancelWorkflowRows(WorkflowId workflowId) {
        return writer.submit(Commands.of("cancelWorkflowRows", false, c -> {
            PreparedStatement ps = c.prepare(CANCEL_WORKFLOW);
            ps.setLong(1, now());
            ps.setString(2, workflowId.toString());
            return keys(ps);
        }));
    }

    /**
     * O41, O42.
     *
     * @param bound claimed before, epoch nanoseconds
     * @param visible new visibility, epoch nanoseconds
     * @param limit most rows, at least one
     * @return re-armed rows
     */
    @Override
    public Mono<List<OutboxRow>> rearmStaleClaimed(long bound, long visible, int limit) {
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
    }

    /**
     * W13: refreshes the rows still claimed under the given claims, one statement over the pairs.
     *
     * @param claims storable keys with their claim tokens
     * @return the keys refreshed
     */
    @Override
    public Mono<List<String>> heartbeat(List<ClaimedKey> claims) {
        return writer.submit(Commands.of("heartbeat", false, c -> {
            PreparedStatement ps = c.prepare(HEARTBEAT);
            ps.setLong(1, now());
            ps.setString(2, JsonArrays.ofClaims(claims));
            return keys(ps);
        }));
    }

    /**
     * Returns rows a cancelled claim stream could not deliver to pending, exactly as they were.
     *
     * @param claimed rows claimed in one claim
     * @return completion
     */
    @Override
    public Mono<Void> release(List<OutboxRow> claimed) {
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
     * @param key a storable key
     * @param resetAttempt reset the attempt
     * @return whether a failed row was redriven
     */
    @Override
    public Mono<Boolean> redrive(String key, boolean resetAttempt) {
        return writer.submit(Commands.of("redrive", true, c -> {
            PreparedStatement ps = c.prepare(REDRIVE);
            ps.setLong(1, now());
            ps.setBoolean(2, resetAttempt);
            ps.setString(3, key);
            return ps.executeUpdate() > 0;
        }));
    }

    /**
     * Redrives a workflow's dead letters.
     *
     * @param workflowId workflow
     * @param resetAttempt reset attempts
     * @return the keys of the rows redriven
     */
    @Override
    public Mono<List<String>> redriveWorkflow(WorkflowId workflowId, boolean resetAttempt) {
        return writer.submit(Commands.of("redriveWorkflow", true, c -> {
            PreparedStatement ps = c.prepare(REDRIVE_WORKFLOW);
            ps.setLong(1, now());
            ps.setBoolean(2, resetAttempt);
            ps.setString(3, workflowId.toString());
            return keys(ps);
        }));
    }

    /**
     * Deletes settled rows in bounded transactions.
     *
     * @param cutoff settled before, epoch nanoseconds
     * @param batchSize rows per transaction, at least one
     * @return rows deleted
     */
    @Override
    public Mono<Long> pruneSettled(long cutoff, int batchSize) {
        return Mono.defer(() -> {
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

    private static List<String> keys(PreparedStatement ps) throws SQLException {
        List<String> keys = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                keys.add(rs.getString(1));
            }
        }
        return keys;
    }
}
