package dev.durablestore.bench;

/**
 * How big each workload is. {@link #full()} follows issue 5; {@link #quick()} shrinks every
 * workload so that three runs of everything finish within about three minutes on a quiet machine.
 *
 * @param appends P1: appends per store run and per 100-per-transaction raw run
 * @param appendsRawSingle P1: appends per one-transaction-per-append raw run (its rate is per second,
 *     so a smaller count only shortens the run)
 * @param outboxRows P2: rows staged and drained per run
 * @param outboxFanOut P2: rows staged per workflow (one {@code appendWithOutbox} each)
 * @param outboxRowsRawSingle P2: rows drained by the one-row-per-transaction raw loop
 * @param wakeSamples P3: wake-ups measured per run
 * @param settledRows P4: settled rows loaded before the store opens
 * @param claims P4: timed claims per table per run
 * @param historyEvents P5: events in the long history
 * @param reads P5: timed reads of each kind per run
 * @param memoryRows P6: rows passed through the claim stream
 * @param memoryHeap P6: the child JVM's {@code -Xmx}
 * @param stepWorkflows P8: workflows of one activity each (one step per workflow) per run
 * @param stepChainWorkflows P8: workflows of {@code 5} activities in a chain (five steps each) per run
 * @param stagedRows P9: rows staged per run by each stager (db-scheduler and the store)
 * @param peerDrainRows P9: executions db-scheduler drains per run (its drain is slow on SQLite)
 * @param backupWorkflows BACKUP: workflows of one ~4 KB event each in the file being backed up
 * @param soakRetentionSeconds SOAK, SOAKPG: the retention of closed workflows in the steady soak
 * @param soakPeriods SOAK, SOAKPG: how many retention periods the steady soak runs
 */
public record Sizes(
        int appends,
        int appendsRawSingle,
        int outboxRows,
        int outboxFanOut,
        int outboxRowsRawSingle,
        int wakeSamples,
        int settledRows,
        int claims,
        int historyEvents,
        int reads,
        int memoryRows,
        String memoryHeap,
        int stepWorkflows,
        int stepChainWorkflows,
        int stagedRows,
        int peerDrainRows,
        int backupWorkflows,
        int soakRetentionSeconds,
        int soakPeriods) {

    /** @return the sizes issue 5 names (100k outbox rows, 1M settled rows, 100k-event history, 1M rows for memory) */
    public static Sizes full() {
        return new Sizes(
                50_000, 20_000, 100_000, 10, 10_000, 1_000, 1_000_000, 2_000, 100_000, 2_000, 1_000_000, "128m", 50_000,
                10_000, 100_000, 20_000, 20_000, 10, 6);
    }

    /** @return smaller sizes for a run of a few minutes */
    public static Sizes quick() {
        return new Sizes(
                10_000, 3_000, 20_000, 10, 1_000, 200, 100_000, 300, 20_000, 300, 10_000, "128m", 10_000, 2_000, 20_000,
                4_000, 8_000, 5, 4);
    }
}
