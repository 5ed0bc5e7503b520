package dev.durablestore.sqlite;

/**
 * SQLite's {@code journal_mode}: how a transaction is made atomic in the file (S17). The store
 * opens files in {@link #WAL} unless told otherwise.
 *
 * <p>{@link #MEMORY} and {@link #OFF} keep no rollback journal on disk, so a process crash or a
 * power loss in the middle of a commit can leave the file corrupt: {@link SqliteStoreConfig}
 * refuses them unless its durability promise has been waived
 * ({@link SqliteStoreConfig#withDurabilityWaived(boolean)}).
 */
public enum SqliteJournalMode {
    /** Write-ahead log: readers never block the writer; the store's default. */
    WAL(true),
    /** Rollback journal deleted at each commit (SQLite's own default). */
    DELETE(true),
    /** Rollback journal truncated to zero length at each commit. */
    TRUNCATE(true),
    /** Rollback journal kept and its header zeroed at each commit. */
    PERSIST(true),
    /** Rollback journal in memory only: a crash during a commit can corrupt the file. */
    MEMORY(false),
    /** No rollback journal: a crash during a commit can corrupt the file. */
    OFF(false);

    private final boolean crashSafe;

    SqliteJournalMode(boolean crashSafe) {
        this.crashSafe = crashSafe;
    }

    /** @return true when a crash during a commit leaves either the old or the new state */
    public boolean crashSafe() {
        return crashSafe;
    }
}
