package dev.durablestore.migration;

/** What a migration is doing, in the order it does it ({@link MigrationProgress#phase()}). */
public enum MigrationPhase {
    /** Copying the events of every history, run chains included. */
    EVENTS,
    /** Copying the armed timers. */
    TIMERS,
    /** Copying the outbox rows. */
    OUTBOX,
    /** Comparing the copy with the source. */
    VERIFY
}
