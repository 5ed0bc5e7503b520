package dev.durablestore.sqlite.internal;

import dev.durablestore.api.BackendException;
import dev.durablestore.api.StoreException;
import dev.durablestore.sqlite.SqliteJournalMode;
import dev.durablestore.sqlite.SqliteSynchronous;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import org.sqlite.SQLiteConfig;

/** Opens the writer and reader connections with the configured pragmas (S16, S17, S20). */
final class Connections {

    private final String url;
    private final String file;
    private final String journalMode;
    private final String synchronous;
    private final int busyTimeoutMillis;

    /**
     * @param path database file
     * @param journalMode the journal mode
     * @param synchronous the synchronous mode, or {@code null} for SQLite's default
     * @param busyTimeoutMillis busy timeout
     */
    Connections(Path path, SqliteJournalMode journalMode, SqliteSynchronous synchronous, int busyTimeoutMillis) {
        this.url = "jdbc:sqlite:" + path.toAbsolutePath();
        this.file = "SQLite file " + path.toAbsolutePath();
        this.journalMode = journalMode.name();
        this.synchronous = synchronous == null ? null : synchronous.name();
        this.busyTimeoutMillis = busyTimeoutMillis;
    }

    /**
     * @param checkpointPages the write-ahead log size, in pages, at which a commit checkpoints
     * @param cacheKib the page cache, in KiB
     * @return the single write connection; sets the journal mode, the checkpoint threshold and the
     *     page cache size, and keeps temporary storage in memory
     * @throws dev.durablestore.api.SchemaVersionException when the file records a schema version
     *     this library does not read (S29); checked first, so the file is left as it was
     * @throws BackendException when the file cannot be opened
     */
    DbConnection openWriter(int checkpointPages, int cacheKib) {
        DbConnection c = open(url, false);
        try {
            // before the journal mode, which rewrites the file header when it changes
            Schema.requireOpenable(c, file);
            c.execute("PRAGMA journal_mode=" + journalMode);
            // only the writer commits, so only its threshold matters (readers never checkpoint)
            c.execute("PRAGMA wal_autocheckpoint=" + checkpointPages);
            // A statement that changes many rows (a claim, a grouped settle) keeps a statement
            // journal, and SQLite spills one past 64 KiB into a temporary file: created, written and
            // unlinked in almost every drain transaction (seen with strace). The writer's
            // statements are bounded batches, so in memory these journals stay small
            // (docs/design.md: temporary storage).
            c.execute("PRAGMA temp_store=MEMORY");
            // negative: KiB rather than pages; the cache grows to it as pages are read
            c.execute("PRAGMA cache_size=-" + cacheKib);
            return c;
        } catch (SQLException | RuntimeException e) {
            c.close();
            if (e instanceof StoreException se) {
                throw se;
            }
            throw new BackendException(
                    "cannot read the schema version or set journal_mode, wal_autocheckpoint, temp_store or"
                            + " cache_size on " + url + ": " + e.getMessage(),
                    e);
        }
    }

    /** @return the file as errors name it: {@code SQLite file <absolute path>} */
    String file() {
        return file;
    }

    /** @return a read-only connection */
    DbConnection openReader() {
        return open(url, true);
    }

    /**
     * @param other another database file (a backup being checked)
     * @return a read-only connection to it, with the store's busy timeout and {@code synchronous}
     */
    DbConnection openReader(Path other) {
        return open("jdbc:sqlite:" + other.toAbsolutePath(), true);
    }

    private DbConnection open(String url, boolean readOnly) {
        SQLiteConfig config = new SQLiteConfig();
        config.setBusyTimeout(busyTimeoutMillis);
        config.setReadOnly(readOnly);
        // the store never asks for generated keys; without this the driver runs an extra query per insert
        config.setGetGeneratedKeys(false);
        if (synchronous != null) {
            config.setPragma(SQLiteConfig.Pragma.SYNCHRONOUS, synchronous);
        }
        Properties props = config.toProperties();
        try {
            DbConnection c = new DbConnection(DriverManager.getConnection(url, props));
            c.execute("PRAGMA busy_timeout=" + busyTimeoutMillis);
            return c;
        } catch (SQLException e) {
            throw new BackendException(
                    "cannot open " + url + (readOnly ? " (read-only)" : "") + ": " + e.getMessage(), e);
        }
    }
}
