package dev.durablestore.api;

/**
 * Data could not be encoded or decoded (X6): an event that cannot be encoded, or a stored event,
 * payload, status token, timestamp or identifier that cannot be decoded. The message names the
 * workflow and sequence, or the dispatch key, of the offending row.
 */
public final class SerializationException extends StoreException {

    /**
     * @param message what could not be encoded or decoded, and where
     * @param cause the codec failure, or {@code null}
     */
    public SerializationException(String message, Throwable cause) {
        super(message, cause);
    }

    /** @param message what could not be encoded or decoded, and where */
    public SerializationException(String message) {
        super(message, null);
    }
}
