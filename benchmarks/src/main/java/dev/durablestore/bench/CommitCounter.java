package dev.durablestore.bench;

import dev.durablestore.api.StoreMetrics;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts the store's group commits through its metrics hook, so a report can say how many
 * commands shared a transaction and how long the writer spent inside transactions.
 */
public final class CommitCounter implements StoreMetrics {

    private final LongAdder batches = new LongAdder();
    private final LongAdder commands = new LongAdder();
    private final LongAdder transactionNanos = new LongAdder();
    private final LongAdder claims = new LongAdder();
    private final LongAdder claimedRows = new LongAdder();

    @Override
    public void batchCommitted(int commandCount, long nanos) {
        batches.increment();
        commands.add(commandCount);
        transactionNanos.add(nanos);
    }

    @Override
    public void rowsClaimed(int rows) {
        claims.increment();
        claimedRows.add(rows);
    }

    /** Forgets everything counted so far (e.g. the set-up's commits). */
    public void reset() {
        batches.reset();
        commands.reset();
        transactionNanos.reset();
        claims.reset();
        claimedRows.reset();
    }

    /** @return group commits so far */
    public long batches() {
        return batches.sum();
    }

    /** @return mean commands per group commit, or NaN before the first */
    public double commandsPerCommit() {
        long b = batches.sum();
        return b == 0 ? Double.NaN : (double) commands.sum() / b;
    }

    /** @return mean time from BEGIN to the end of COMMIT, in microseconds, or NaN */
    public double microsPerTransaction() {
        long b = batches.sum();
        return b == 0 ? Double.NaN : transactionNanos.sum() / 1_000.0 / b;
    }

    /**
     * @param wallNanos the wall time of the measured phase
     * @return the share of that time the writer spent inside transactions, 0 to 1
     */
    public double writerBusy(long wallNanos) {
        return (double) transactionNanos.sum() / wallNanos;
    }

    /** @return mean rows per claim, or NaN before the first claim */
    public double rowsPerClaim() {
        long c = claims.sum();
        return c == 0 ? Double.NaN : (double) claimedRows.sum() / c;
    }
}
