package dev.durablestore.api;

/**
 * A stored event that does not decode, as reported by {@link ReactiveStore#findUndecodableEvents()}.
 *
 * @param workflowId the workflow id as stored (text, since it may itself be damaged)
 * @param seq the stored sequence
 * @param message why it does not decode
 */
public record UndecodableEvent(String workflowId, long seq, String message) {

    /** Validates that the text fields are present. */
    /**
     * Validates the components (see the record's description).
     *
     * @param workflowId the workflow id as stored (text, since it may itself be damaged)
     * @param seq the stored sequence
     * @param message why it does not decode
     */
    public UndecodableEvent {
        InvalidArgumentException.requireNonNull(workflowId, "workflowId");
        InvalidArgumentException.requireNonNull(message, "message");
    }
}
