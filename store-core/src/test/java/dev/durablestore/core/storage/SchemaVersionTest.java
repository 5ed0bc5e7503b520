package dev.durablestore.core.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.durablestore.api.BackendException;
import dev.durablestore.api.SchemaVersionException;
import dev.durablestore.api.TransientBackendException;
import org.junit.jupiter.api.Test;

/** The rule every backend applies to the schema version a database records when it opens it (S29). */
class SchemaVersionTest {

    @Test
    void S29_no_version_an_older_one_and_the_current_one_open() {
        for (int recorded = 0; recorded <= SchemaVersion.CURRENT; recorded++) {
            int version = recorded;
            assertThatCode(() -> SchemaVersion.requireOpenable(version, "SQLite file a.db"))
                    .as("version %d", version)
                    .doesNotThrowAnyException();
        }
    }

    @Test
    void S29_a_newer_version_is_refused_naming_the_database_and_both_versions() {
        int newer = SchemaVersion.CURRENT + 1;

        SchemaVersionException e = catchThrowableOfType(
                SchemaVersionException.class, () -> SchemaVersion.requireOpenable(newer, "SQLite file a.db"));

        assertThat(e.recordedVersion()).isEqualTo(newer);
        assertThat(e.supportedVersion()).isEqualTo(SchemaVersion.CURRENT);
        assertThat(e.getMessage())
                .startsWith("cannot open SQLite file a.db: it records schema version " + newer
                        + ", written by a newer durable-store")
                .contains("reads schema versions up to " + SchemaVersion.CURRENT)
                .endsWith("Nothing was written to it");
        assertThat(e).as("a failed open (S20), not one that passes").isInstanceOf(BackendException.class);
        assertThat(e).isNotInstanceOf(TransientBackendException.class);
    }

    @Test
    void S29_a_negative_version_is_refused_as_no_durable_store_version() {
        SchemaVersionException e = catchThrowableOfType(
                SchemaVersionException.class, () -> SchemaVersion.requireOpenable(-7, "SQLite file a.db"));

        assertThat(e.recordedVersion()).isEqualTo(-7);
        assertThat(e.getMessage())
                .startsWith("cannot open SQLite file a.db: it records schema version -7, which no durable-store writes")
                .contains("versions 0 to " + SchemaVersion.CURRENT);
    }
}
