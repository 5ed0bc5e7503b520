package dev.durablestore.api;

/** The projected status of a workflow or run (M17, R10). */
public enum WorkflowStatus {
    /** Started, reopened or resumed, and not ended since. */
    RUNNING(false),
    /** Paused and not resumed or ended since. */
    PAUSED(false),
    /** Completed. */
    COMPLETED(true),
    /** Failed. */
    FAILED(true),
    /** Cancelled. */
    CANCELLED(true),
    /** Timed out. */
    TIMED_OUT(true),
    /** Ended by continuing as a new run. */
    CONTINUED_AS_NEW(true);

    private final boolean terminal;

    WorkflowStatus(boolean terminal) {
        this.terminal = terminal;
    }

    /** @return true for {@code COMPLETED}, {@code FAILED}, {@code CANCELLED}, {@code TIMED_OUT}, {@code CONTINUED_AS_NEW} */
    public boolean isTerminal() {
        return terminal;
    }
}
