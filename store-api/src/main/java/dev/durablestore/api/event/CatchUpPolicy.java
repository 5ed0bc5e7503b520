package dev.durablestore.api.event;

/** What a schedule does with triggers it missed while paused or down. */
public enum CatchUpPolicy {
    /** Run every missed trigger. */
    ALL,
    /** Run one execution for all missed triggers (the default for old history, M16). */
    ONE,
    /** Run none of them. */
    SKIP
}
