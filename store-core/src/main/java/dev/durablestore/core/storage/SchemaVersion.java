package dev.durablestore.core.storage;

import dev.durablestore.api.SchemaVersionException;

/**
 * The version of the schema the backends create, and the rule every backend applies to the version
 * a database records when it opens one (S29).
 *
 * <p>Each backend records the version in its database (SQLite in the file header's
 * {@code user_version}, PostgreSQL and H2 in the table {@code durable_store_schema}) and, on open:
 * reads it before its first write; passes it to {@link #requireOpenable}, which refuses a newer one;
 * reads it again inside the transaction that migrates, in case another process upgraded the database
 * in between; migrates; and, when the recorded version is below {@link #CURRENT}, records
 * {@code CURRENT} in that same transaction. A version is never lowered.
 */
public final class SchemaVersion {

    /**
     * The schema version this library creates, and the newest it opens. Raise it with every change to
     * the schema of any backend, together with that change's migration, so that a library that does
     * not know the change refuses the database instead of writing rows without it.
     *
     * <p>1 is the first version recorded. A database that records none reads as 0: a new one, or one
     * written before versions were recorded, whatever its layout; opening migrates it in place.
     *
     * <p>2 adds the outbox column {@code failures} (O66): a library that reads version 1 would
     * settle rows without keeping their failures.
     */
    public static final int CURRENT = 2;

    private SchemaVersion() {}

    /**
     * Refuses to open a database whose recorded schema version this library does not read. A backend
     * calls it before it writes anything to the database, and writes nothing when it throws.
     *
     * @param recorded the version the database records, 0 when it records none
     * @param database the file or database, as the error names it (e.g. {@code SQLite file /x/a.db})
     * @throws SchemaVersionException when {@code recorded} is newer than {@link #CURRENT}, or
     *     negative (no durable-store writes that); its message names both versions
     */
    public static void requireOpenable(int recorded, String database) {
        if (recorded > CURRENT) {
            throw new SchemaVersionException(
                    "cannot open " + database + ": it records schema version " + recorded
                            + ", written by a newer durable-store, and this one reads schema versions up to "
                            + CURRENT + "; open it with a durable-store that reads version " + recorded
                            + ". Nothing was written to it",
                    recorded,
                    CURRENT);
        }
        if (recorded < 0) {
            throw new SchemaVersionException(
                    "cannot open " + database + ": it records schema version " + recorded
                            + ", which no durable-store writes (this one reads schema versions 0 to " + CURRENT
                            + "); it may belong to another application. Nothing was written to it",
                    recorded,
                    CURRENT);
        }
    }
}
