package dev.durablestore.api.event;

/** Why a timer was cancelled ({@link TimerCancelled#cause()}). */
public enum TimerCancelCause {
    /** The workflow code cancelled it (the default for old history, M16). */
    WORKFLOW_INTENT,
    /** The engine cancelled it while tearing the workflow down. */
    CANCEL_TEARDOWN
}
