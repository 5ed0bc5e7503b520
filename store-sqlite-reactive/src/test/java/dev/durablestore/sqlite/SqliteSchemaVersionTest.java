package dev.durablestore.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.google.errorprone.annotations.CanIgnoreReturnValue;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.Payload;
import dev.durablestore.api.SchemaVersionException;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.Event;
import dev.durablestore.core.storage.SchemaVersion;
import dev.durablestore.tck.TestEvents;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The file records its schema version in {@code user_version}; a file of a newer version than this
 * library's is refused before anything is written to it, and an older one is migrated and then
 * records the current version (S29).
 */
class SqliteSchemaVersionTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final String OUTBOX_COLUMNS = "SELECT name FROM pragma_table_info('outbox') ORDER BY name";

    @TempDir
    Path dir;

    @ParameterizedTest(name = "opened in journal mode {0}")
    @EnumSource(
            value = SqliteJournalMode.class,
            names = {"WAL", "DELETE"})
    void S29_a_file_of_a_newer_schema_version_is_refused_naming_both_versions_and_is_left_byte_for_byte(
            SqliteJournalMode journalMode) throws Exception {
        // given a file in WAL mode with a history and an outbox row, recording the next schema
        // version, and with a layout the migrations would change (no claimed_by column)
        Path db = dir.resolve("newer.db");
        written(db);
        int newer = SchemaVersion.CURRENT + 1;
        SqliteFileSql.execute(db, "ALTER TABLE outbox DROP COLUMN claimed_by", "PRAGMA user_version = " + newer);
        Map<String, String> before = filesOf(dir);
        assertThat(before).as("the file alone, its WAL checkpointed").containsOnlyKeys("newer.db");

        // when a store opens it, asking for WAL (the file's mode) or DELETE (which would rewrite the
        // header were it set)
        SchemaVersionException e = catchThrowableOfType(
                SchemaVersionException.class,
                () -> SqliteReactiveStore.open(SqliteStoreConfig.of(db).withJournalMode(journalMode))
                        .close());

        // then the open fails naming the file and both versions
        assertThat(e.getMessage())
                .contains("SQLite file " + db.toAbsolutePath())
                .contains("schema version " + newer)
                .contains("up to " + SchemaVersion.CURRENT);
        assertThat(e.recordedVersion()).isEqualTo(newer);
        assertThat(e.supportedVersion()).isEqualTo(SchemaVersion.CURRENT);
        // and nothing was written: the same files with the same bytes, no WAL or shared memory left
        assertThat(filesOf(dir)).isEqualTo(before);
        // and so no migration ran and the version is the newer one
        assertThat(SqliteFileSql.column(db, OUTBOX_COLUMNS)).doesNotContain("claimed_by");
        assertThat(SqliteFileSql.column(db, "PRAGMA user_version")).containsExactly(String.valueOf(newer));
        assertThat(SqliteFileSql.column(db, "PRAGMA journal_mode")).containsExactly("wal");
    }

    @Test
    void S29_S7_a_file_from_before_versions_were_recorded_is_migrated_and_then_records_the_current_one()
            throws Exception {
        // given a file that records no version, in the layout before claimed_by
        Path db = dir.resolve("old.db");
        WorkflowId w = written(db);
        SqliteFileSql.execute(db, "ALTER TABLE outbox DROP COLUMN claimed_by", "PRAGMA user_version = 0");

        // when a store opens it
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(db))) {
            // then it reads what was written
            assertThat(store.readHead(w).block(TIMEOUT)).isEqualTo(2L);
        }
        // and it was migrated and records the current version
        assertThat(SqliteFileSql.column(db, OUTBOX_COLUMNS)).contains("claimed_by");
        assertThat(SqliteFileSql.column(db, "PRAGMA user_version"))
                .containsExactly(String.valueOf(SchemaVersion.CURRENT));
    }

    @Test
    void S29_S6_a_new_file_records_the_current_version_and_reopening_keeps_it() throws Exception {
        // given a new file, opened once
        Path db = dir.resolve("new.db");
        written(db);
        assertThat(SqliteFileSql.column(db, "PRAGMA user_version"))
                .containsExactly(String.valueOf(SchemaVersion.CURRENT));
        Map<String, String> before = filesOf(dir);

        // when a store opens it again
        SqliteReactiveStore.open(SqliteStoreConfig.of(db)).close();

        // then the version is unchanged, and so is every byte of the file
        assertThat(filesOf(dir)).isEqualTo(before);
    }

    /**
     * Opens a store on {@code db}, writes a two-event history with one outbox row, and closes it.
     *
     * @return the workflow
     */
    @CanIgnoreReturnValue // most tests need only the file
    private static WorkflowId written(Path db) {
        WorkflowId w = WorkflowId.random();
        TestEvents ev = TestEvents.of(w);
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(db))) {
            store.appendWithOutbox(
                            w,
                            List.<Event>of(ev.started("checkout"), ev.activityScheduled(1, "charge")),
                            0,
                            List.of(OutboxRow.pending(
                                    w, 1, "charge", Payload.json("{}"), Instant.parse("2026-01-01T00:00:00Z"))))
                    .block(TIMEOUT);
        }
        return w;
    }

    /** @return each file of {@code dir} by name, with a digest of its bytes */
    private static Map<String, String> filesOf(Path dir) throws IOException {
        Map<String, String> files = new TreeMap<>();
        try (Stream<Path> list = Files.list(dir)) {
            for (Path f : list.toList()) {
                files.put(f.getFileName().toString(), digest(Files.readAllBytes(f)));
            }
        }
        return files;
    }

    private static String digest(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
