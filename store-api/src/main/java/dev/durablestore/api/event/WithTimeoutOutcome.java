package dev.durablestore.api.event;

/** How an operation guarded by a timeout ended ({@link WithTimeoutCompleted#outcome()}). */
public enum WithTimeoutOutcome {
    /** The operation finished before the timer. */
    OPERATION_COMPLETED,
    /** The timer fired first. */
    TIMED_OUT
}
