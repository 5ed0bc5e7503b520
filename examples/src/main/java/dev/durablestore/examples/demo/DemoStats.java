package dev.durablestore.examples.demo;

import dev.durablestore.api.WorkflowId;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The demo's own counters and latency samples, updated by staging and the dispatcher from any
 * thread and read by the progress line and the report.
 *
 * <p>Counts are of what <em>this run</em> did. A redelivered row whose outcome the history already
 * holds is counted as {@link #redelivered()}, never again as completed or dead-lettered.
 */
public final class DemoStats {

    private final LongAdder workflowsStaged = new LongAdder();
    private final LongAdder workflowsSkipped = new LongAdder();
    private final LongAdder rowsStaged = new LongAdder();
    private final LongAdder deliveries = new LongAdder();
    private final LongAdder completed = new LongAdder();
    private final LongAdder retried = new LongAdder();
    private final LongAdder deadLettered = new LongAdder();
    private final LongAdder redelivered = new LongAdder();
    private final LongAdder workflowsCompleted = new LongAdder();
    private final LongAdder workflowsFailed = new LongAdder();
    private final LongAdder conflicts = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private final LongAdder stale = new LongAdder();
    private final AtomicLong reaped = new AtomicLong();
    private final AtomicLong inHand = new AtomicLong();
    private final AtomicLong lastSettledNanos = new AtomicLong();
    private final Samples stageToClaim = new Samples();
    private final Set<WorkflowId> stagedHere = ConcurrentHashMap.newKeySet();
    private final Samples claimToComplete = new Samples();

    void onWorkflowStaged(WorkflowId id, int rows) {
        stagedHere.add(id);
        workflowsStaged.increment();
        rowsStaged.add(rows);
    }

    void onWorkflowSkipped() {
        workflowsSkipped.increment();
    }

    void onDelivered() {
        deliveries.increment();
        inHand.incrementAndGet();
    }

    void onReleased() {
        inHand.decrementAndGet();
    }

    void onCompleted() {
        completed.increment();
    }

    void onSettled() {
        long now = System.nanoTime();
        lastSettledNanos.accumulateAndGet(now, (a, b) -> a == 0 ? b : Math.max(a, b));
    }

    void onRetried() {
        retried.increment();
    }

    void onDeadLettered() {
        deadLettered.increment();
    }

    void onRedelivered() {
        redelivered.increment();
    }

    void onWorkflowEnded(boolean failed) {
        (failed ? workflowsFailed : workflowsCompleted).increment();
    }

    void onConflict() {
        conflicts.increment();
    }

    void onError() {
        errors.increment();
    }

    void onStale() {
        stale.increment();
    }

    void onReaped(int rows) {
        reaped.addAndGet(rows);
    }

    void recordStageToClaim(long micros) {
        stageToClaim.add(micros);
    }

    void recordClaimToComplete(long micros) {
        claimToComplete.add(micros);
    }

    /** @return workflows staged by this run */
    public long workflowsStaged() {
        return workflowsStaged.sum();
    }

    /**
     * @param id a workflow
     * @return true when this run staged it (its rows' {@code visibleAfter} is their staging time)
     */
    public boolean stagedByThisRun(WorkflowId id) {
        return stagedHere.contains(id);
    }

    /** @return workflows found already staged */
    public long workflowsSkipped() {
        return workflowsSkipped.sum();
    }

    /** @return outbox rows staged by this run */
    public long rowsStaged() {
        return rowsStaged.sum();
    }

    /** @return rows handed to the dispatcher (retries and redeliveries included) */
    public long deliveries() {
        return deliveries.sum();
    }

    /**
     * @return the {@link System#nanoTime()} at which the last row this run settled (done or failed)
     *     was reported settled, or 0 when none was
     */
    public long lastSettledNanos() {
        return lastSettledNanos.get();
    }

    /** @return rows the dispatcher holds right now */
    public long inHand() {
        return inHand.get();
    }

    /** @return activities completed (first ActivityCompleted recorded) and rows marked done */
    public long completed() {
        return completed.sum();
    }

    /** @return failed attempts returned to pending with a backoff */
    public long retried() {
        return retried.sum();
    }

    /** @return rows dead-lettered by this run */
    public long deadLettered() {
        return deadLettered.sum();
    }

    /** @return rows settled by this run: completed plus dead-lettered */
    public long settled() {
        return completed() + deadLettered();
    }

    /** @return deliveries whose outcome the history already held (at-least-once redelivery) */
    public long redelivered() {
        return redelivered.sum();
    }

    /** @return workflows this run ended with {@code WorkflowCompleted} */
    public long workflowsCompleted() {
        return workflowsCompleted.sum();
    }

    /** @return workflows this run ended with {@code WorkflowFailed} */
    public long workflowsFailed() {
        return workflowsFailed.sum();
    }

    /** @return steps that met a sequence conflict and were planned and committed again */
    public long conflicts() {
        return conflicts.sum();
    }

    /** @return unexpected errors while handling a row (the row was retried) */
    public long errors() {
        return errors.sum();
    }

    /** @return deliveries whose claim was taken over before their step committed (dropped, nothing written) */
    public long stale() {
        return stale.sum();
    }

    /** @return rows re-armed by the lease reaper (and the start-up sweep) */
    public long reaped() {
        return reaped.get();
    }

    /** @return stage→claim latency samples, microseconds */
    public long[] stageToClaimMicros() {
        return stageToClaim.sorted();
    }

    /** @return claim→complete latency samples, microseconds */
    public long[] claimToCompleteMicros() {
        return claimToComplete.sorted();
    }

    /** A growable array of samples; appends take a short lock. */
    private static final class Samples {
        private long[] values = new long[1024];
        private int size;

        synchronized void add(long v) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size++] = v;
        }

        synchronized long[] sorted() {
            long[] copy = Arrays.copyOf(values, size);
            Arrays.sort(copy);
            return copy;
        }
    }
}
