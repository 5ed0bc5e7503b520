package dev.durablestore.core.storage;

import dev.durablestore.api.InvalidArgumentException;

/**
 * The parts a backend hands to {@link dev.durablestore.core.AbstractReactiveStore}: one object may
 * implement several of them.
 *
 * @param history the event history
 * @param timers the timers
 * @param outboxWrites the outbox writes
 * @param outboxReads the outbox reads
 * @param claims the claims
 * @param retention the walk of closed workflows and the deletes of retention and purge
 */
public record Storage(
        HistoryStorage history,
        TimerStorage timers,
        OutboxWriteStorage outboxWrites,
        OutboxReadStorage outboxReads,
        ClaimStorage claims,
        RetentionStorage retention) {

    /**
     * Checks that every part is there.
     *
     * @param history see the record component
     * @param timers see the record component
     * @param outboxWrites see the record component
     * @param outboxReads see the record component
     * @param claims see the record component
     * @param retention see the record component
     */
    public Storage {
        InvalidArgumentException.requireNonNull(history, "history");
        InvalidArgumentException.requireNonNull(timers, "timers");
        InvalidArgumentException.requireNonNull(outboxWrites, "outboxWrites");
        InvalidArgumentException.requireNonNull(outboxReads, "outboxReads");
        InvalidArgumentException.requireNonNull(claims, "claims");
        InvalidArgumentException.requireNonNull(retention, "retention");
    }
}
