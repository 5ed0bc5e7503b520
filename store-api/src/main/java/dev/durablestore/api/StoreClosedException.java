package dev.durablestore.api;

/**
 * An operation was subscribed after the store was closed, or was still queued when the store was
 * closed without finishing it. Nothing was written by the operation that receives it.
 */
public final class StoreClosedException extends BackendException {

    /** @param message which store and why the operation was refused */
    public StoreClosedException(String message) {
        super(message);
    }
}
