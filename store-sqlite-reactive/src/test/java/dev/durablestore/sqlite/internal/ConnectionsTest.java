package dev.durablestore.sqlite.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.sqlite.SqliteJournalMode;
import dev.durablestore.sqlite.SqliteSynchronous;
import java.nio.file.Path;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How the store sets up its connections (S16, S17, and its own choices): the writer in the
 * configured journal mode with the configured checkpoint threshold and page cache, and its temporary storage
 * (the statement journals of multi-row claims and settles) in memory, never spilled to files.
 */
class ConnectionsTest {

    /** SQLite's {@code PRAGMA temp_store} value for MEMORY. */
    private static final long TEMP_STORE_MEMORY = 2;

    @TempDir
    Path tmp;

    @Test
    void the_writer_keeps_temporary_storage_in_memory() throws SQLException {
        // given the store's connection settings for a file
        Connections connections =
                new Connections(tmp.resolve("w.db"), SqliteJournalMode.WAL, SqliteSynchronous.FULL, 10_000);

        // when the writer connection is opened
        try (DbConnection writer = connections.openWriter(2_000, 16_384)) {
            // then its statement journals and temporary tables live in memory, next to the other writer settings
            assertThat(writer.queryLong("PRAGMA temp_store")).isEqualTo(TEMP_STORE_MEMORY);
            assertThat(writer.queryLong("PRAGMA wal_autocheckpoint")).isEqualTo(2_000L);
            assertThat(writer.queryLong("PRAGMA cache_size")).isEqualTo(-16_384L); // negative: KiB
            assertThat(writer.queryLong("PRAGMA busy_timeout")).isEqualTo(10_000L); // S16
        }
    }

    @Test
    void a_claim_sized_statement_journal_in_memory_still_rolls_back_cleanly() throws SQLException {
        // given a writer with a table of 200 wide rows and a unique column
        try (DbConnection writer = new Connections(
                        tmp.resolve("j.db"), SqliteJournalMode.WAL, SqliteSynchronous.FULL, 10_000)
                .openWriter(1_000, 2_000)) {
            writer.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL, u INTEGER UNIQUE)");
            writer.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200) "
                    + "INSERT INTO t SELECT i, printf('%.2000c', 'x'), i FROM n");

            // when, inside a transaction, one statement rewrites every row and fails on the last
            // (its statement journal, ~400 KB, is far past the 64 KiB at which SQLite would spill it)
            writer.execute("BEGIN IMMEDIATE");
            writer.execute("UPDATE t SET v = 'y' WHERE id = 1");
            boolean failed = false;
            try {
                writer.execute("UPDATE t SET v = printf('%.2000c', 'z'), u = CASE WHEN id = 200 THEN 1 ELSE u END");
            } catch (SQLException expected) {
                failed = true;
            }
            writer.execute("COMMIT");

            // then that statement alone was undone: the earlier one in the transaction stays
            assertThat(failed).isTrue();
            assertThat(writer.queryLong("SELECT count(*) FROM t WHERE v LIKE 'z%'"))
                    .isZero();
            assertThat(writer.queryLong("SELECT count(*) FROM t WHERE v = 'y'")).isEqualTo(1L);
        }
    }
}
