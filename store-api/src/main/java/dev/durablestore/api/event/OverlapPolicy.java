package dev.durablestore.api.event;

/** What a schedule does when a trigger arrives while the previous execution still runs. */
public enum OverlapPolicy {
    /** Skip the new execution (the default for old history, M16). */
    SKIP,
    /** Keep at most one execution waiting. */
    BUFFER_ONE,
    /** Cancel the running execution and start the new one. */
    CANCEL_PREVIOUS,
    /** Run executions side by side. */
    ALLOW_ALL
}
