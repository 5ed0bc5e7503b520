package dev.durablestore.api;

/** The content type of a {@link Payload} (M7). JSON is the only one. */
public enum ContentType {
    /** UTF-8 JSON bytes. The store does not check that they parse. */
    JSON
}
