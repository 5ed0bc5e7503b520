package dev.durablestore.api;

/**
 * Opening a store was refused because the database records a schema version this library does not
 * read (S29): a newer durable-store wrote it, or the version is not one any durable-store writes.
 * Nothing was written to the database: no migration ran, no version was recorded, and on SQLite not
 * even the journal mode was set.
 *
 * <p>A {@link BackendException}, as every failed open is (S20), but not transient: opening again
 * fails the same way until the application runs a durable-store that reads {@link #recordedVersion()}
 * (the one that wrote it, or a later one). During a rolling upgrade it tells an old node that a new
 * one has already upgraded the shared database.
 */
public final class SchemaVersionException extends BackendException {

    /** The version the database records. */
    private final int recordedVersion;
    /** The newest version this library reads. */
    private final int supportedVersion;

    /**
     * @param message what was refused, naming the database and both versions
     * @param recordedVersion the version the database records
     * @param supportedVersion the newest version this library reads
     */
    public SchemaVersionException(String message, int recordedVersion, int supportedVersion) {
        super(message, null);
        this.recordedVersion = recordedVersion;
        this.supportedVersion = supportedVersion;
    }

    /** @return the schema version the database records */
    public int recordedVersion() {
        return recordedVersion;
    }

    /** @return the newest schema version this library reads (the one it creates) */
    public int supportedVersion() {
        return supportedVersion;
    }
}
