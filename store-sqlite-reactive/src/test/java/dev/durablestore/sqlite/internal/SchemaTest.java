package dev.durablestore.sqlite.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durablestore.api.SchemaVersionException;
import dev.durablestore.core.storage.SchemaVersion;
import dev.durablestore.sqlite.SqliteJournalMode;
import dev.durablestore.sqlite.SqliteSynchronous;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The schema version check inside the migrating transaction (S29). */
class SchemaTest {

    @TempDir
    Path tmp;

    @Test
    void S29_the_migration_checks_the_version_again_under_the_write_lock_and_then_writes_nothing() throws SQLException {
        // given a writer opened on a new file, which then passed the first check
        Path db = tmp.resolve("raced.db");
        Connections connections = new Connections(db, SqliteJournalMode.WAL, SqliteSynchronous.FULL, 10_000);
        try (DbConnection writer = connections.openWriter(1_000, 2_000)) {
            // and given another process that upgrades the file before the migration takes the lock
            int newer = SchemaVersion.CURRENT + 1;
            try (Connection other = DriverManager.getConnection("jdbc:sqlite:" + db);
                    Statement s = other.createStatement()) {
                s.execute("PRAGMA user_version = " + newer);
            }

            // when the writer applies the schema, then it is refused naming both versions
            assertThatThrownBy(() -> Schema.apply(writer, connections.file()))
                    .isInstanceOf(SchemaVersionException.class)
                    .hasMessageContaining("schema version " + newer)
                    .hasMessageContaining("up to " + SchemaVersion.CURRENT);
            // and the transaction wrote nothing: no table, the other process's version
            assertThat(writer.queryLong("SELECT count(*) FROM sqlite_master")).isZero();
            assertThat(writer.queryLong("PRAGMA user_version")).isEqualTo(newer);
        }
    }
}
