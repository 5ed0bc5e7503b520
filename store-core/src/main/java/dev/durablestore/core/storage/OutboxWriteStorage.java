package dev.durablestore.core.storage;

import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.core.internal.OutboxRowEncoder;
import dev.durablestore.core.internal.StepEncoder;
import java.time.Duration;
import java.util.List;
import java.util.function.LongSupplier;
import reactor.core.publisher.Mono;

/**
 * The outbox writes of a backend: staging, settles, re-arms, heartbeats, redrives and pruning.
 * Arguments arrive checked: keys are storable texts, key lists distinct, non-empty and in code-point
 * order (the order rows are visited and locked in), instants converted to epoch nanoseconds, limits
 * positive. Keys returned need no order: the caller sorts them.
 */
public interface OutboxWriteStorage {

    /**
     * @param rows checked and encoded rows to stage, at least one (O8–O11)
     * @return completes once committed
     */
    Mono<Void> appendOutboxBatch(List<OutboxRowEncoder.Encoded> rows);

    /**
     * @param rows checked and encoded rows to make pending, at least one, in the caller's order
     *     (O12–O15)
     * @return completes once committed
     */
    Mono<Void> rearmPending(List<OutboxRowEncoder.Encoded> rows);

    /**
     * O29, O31, O32: the live row settled; nothing when no live row has the key (O33).
     *
     * @param kind {@code COMPLETE}, {@code FAIL} or {@code CANCEL}
     * @param dispatchKey a storable key
     * @return completes once committed
     */
    Mono<Void> settle(Settlement.Kind kind, String dispatchKey);

    /**
     * O29, O31, O32 for several rows, in one transaction.
     *
     * @param kind {@code COMPLETE}, {@code FAIL} or {@code CANCEL}
     * @param dispatchKeys storable keys, distinct, in code-point order, at least one
     * @return completes once committed
     */
    Mono<Void> settleAll(Settlement.Kind kind, List<String> dispatchKeys);

    /**
     * O30: the live row pending again.
     *
     * @param dispatchKey a storable key
     * @param nextAttempt its next attempt, not negative
     * @param visibleAfterNanos when it is claimable again
     * @return completes once committed
     */
    Mono<Void> retry(String dispatchKey, int nextAttempt, long visibleAfterNanos);

    /**
     * O30 and O58 for several rows, in one transaction.
     *
     * @param dispatchKeys storable keys, distinct, in code-point order, at least one
     * @param nextAttempt their next attempt, not negative
     * @param visibleAfterNanos when they are claimable again, read once as the write runs (a retry
     *     after a delay counts it from the store clock then); may throw
     *     {@code InvalidArgumentException}, which fails the write and changes nothing
     * @return completes once committed
     */
    Mono<Void> retryAll(List<String> dispatchKeys, int nextAttempt, LongSupplier visibleAfterNanos);

    /**
     * O30, X10: visible again {@code delay} after the store clock's instant as the write runs.
     *
     * @param dispatchKey a storable key
     * @param nextAttempt its next attempt, not negative
     * @param delay not negative
     * @return completes once committed
     */
    Mono<Void> retryAfter(String dispatchKey, int nextAttempt, Duration delay);

    /**
     * O66: a retry (O30, O58) or dead-letter (O31) by keys that records a failure reason, in one
     * transaction: each live row of the keys is settled as without a reason, and its failures gain
     * the reason as the failure of attempt {@code attempt + 1} (its stored attempt as the write finds
     * it) at the store clock's instant, keeping the last {@value dev.durablestore.api.OutboxRow#MAX_FAILURES}
     * ({@link dev.durablestore.core.internal.FailureHistory#appendStored}); keys of no live row are
     * left alone (O33, O34). A retry wakes the claim streams after the commit.
     *
     * @param dispatchKeys storable keys, distinct, in code-point order, at least one
     * @param settlement a {@code RETRY} or {@code FAIL} with a reason
     * @param visibleAfterNanos for a retry, its visibility, read once as the write runs (may throw
     *     {@code InvalidArgumentException}, which fails the write and changes nothing); {@code null}
     *     for a dead-letter
     * @return completes once committed; fails with {@code SerializationException} naming the row,
     *     writing nothing, when a row's stored failures do not decode
     */
    Mono<Void> settleWithReason(List<String> dispatchKeys, Settlement settlement, LongSupplier visibleAfterNanos);

    /**
     * W6: a settle fenced by the claim that returned the row.
     *
     * @param settle the encoded settle
     * @param operation the operation's name, for errors
     * @return completes once committed; fails with {@code StaleClaimException} and changes nothing
     *     when the claim is no longer current
     */
    Mono<Void> fenced(StepEncoder.Settle settle, String operation);

    /**
     * O35: every live row of the workflow cancelled, in one transaction.
     *
     * @param workflowId the workflow
     * @return the keys of the rows it cancelled
     */
    Mono<List<String>> cancelWorkflowRows(WorkflowId workflowId);

    /**
     * O41, O42: rows claimed before the bound pending again, at most {@code limit}.
     *
     * @param olderThanNanos the bound
     * @param visibleAfterNanos when the re-armed rows are claimable
     * @param limit the most rows, at least one
     * @return the rows re-armed, as they now are
     */
    Mono<List<OutboxRow>> rearmStaleClaimed(long olderThanNanos, long visibleAfterNanos, int limit);

    /**
     * W13: refreshes {@code claimedAt} of the rows still {@code CLAIMED} under the given claims.
     *
     * @param claims storable keys with the claim token each was returned under, distinct pairs in
     *     code-point order of their keys, at least one
     * @return the keys refreshed, in any order
     */
    Mono<List<String>> heartbeat(List<ClaimedKey> claims);

    /**
     * A row's key and the token of the claim that returned it.
     *
     * @param dispatchKey a storable key
     * @param claimToken a non-zero claim token
     */
    record ClaimedKey(String dispatchKey, long claimToken) {}

    /**
     * O52: rows a claim stream claimed and could not deliver, pending again at the same attempt.
     *
     * @param claimed rows of one claim, at least one
     * @return completes once committed
     */
    Mono<Void> release(List<OutboxRow> claimed);

    /**
     * A dead-lettered row pending again.
     *
     * @param dispatchKey a storable key
     * @param resetAttempt whether its attempt starts again at 0
     * @return whether a row was redriven
     */
    Mono<Boolean> redrive(String dispatchKey, boolean resetAttempt);

    /**
     * Every dead-lettered row of the workflow pending again.
     *
     * @param workflowId the workflow
     * @param resetAttempt whether their attempts start again at 0
     * @return the keys of the rows redriven
     */
    Mono<List<String>> redriveWorkflow(WorkflowId workflowId, boolean resetAttempt);

    /**
     * Settled rows deleted, in transactions of at most {@code batchSize} rows.
     *
     * @param settledBeforeNanos the bound
     * @param batchSize rows per transaction, at least one
     * @return how many rows were deleted
     */
    Mono<Long> pruneSettled(long settledBeforeNanos, int batchSize);
}
