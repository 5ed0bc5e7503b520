package dev.durablestore.sqlite;

/**
 * SQLite's {@code synchronous} setting: how often SQLite waits for the disk, hence when an
 * acknowledged commit is durable (S17). Unset, SQLite's default ({@link #FULL}) applies.
 *
 * <p>{@link #OFF} hands writes to the operating system and never waits: an operating-system crash
 * or a power loss can lose acknowledged commits and corrupt the file, so
 * {@link SqliteStoreConfig} refuses it unless its durability promise has been waived
 * ({@link SqliteStoreConfig#withDurabilityWaived(boolean)}).
 */
public enum SqliteSynchronous {
    /** Like {@link #FULL}, and the rollback journal's directory is synced too. */
    EXTRA(true),
    /** Every acknowledged commit is on disk (SQLite's default). */
    FULL(true),
    /**
     * In WAL mode, a commit acknowledged just before a power loss (not a process crash) may be
     * lost; the file stays consistent.
     */
    NORMAL(true),
    /** Never waits for the disk: a power loss can lose commits and corrupt the file. */
    OFF(false);

    private final boolean crashSafe;

    SqliteSynchronous(boolean crashSafe) {
        this.crashSafe = crashSafe;
    }

    /** @return true when a power loss cannot corrupt the file */
    public boolean crashSafe() {
        return crashSafe;
    }
}
