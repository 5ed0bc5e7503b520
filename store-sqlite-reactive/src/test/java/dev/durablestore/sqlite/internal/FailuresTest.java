package dev.durablestore.sqlite.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.BackendException;
import dev.durablestore.api.SequenceConflictException;
import dev.durablestore.api.TransientBackendException;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** X7: which SQLite failures are worth a retry, decided in one place. */
class FailuresTest {

    @ParameterizedTest(name = "result code {0}")
    @ValueSource(ints = {5, 517, 261, 6, 262})
    void busy_and_locked_with_any_extended_code_are_transient(int code) {
        // given SQLITE_BUSY, BUSY_SNAPSHOT, BUSY_RECOVERY, SQLITE_LOCKED, LOCKED_SHAREDCACHE
        SQLException busy = new SQLException("[SQLITE_BUSY] The database file is locked", null, code);

        // when mapped, then it is transient and names the operation
        assertThat(Failures.backend("append", busy))
                .isInstanceOf(TransientBackendException.class)
                .hasMessageStartingWith("append failed: ")
                .hasCause(busy);
    }

    @ParameterizedTest(name = "result code {0}")
    @ValueSource(ints = {1, 8, 10, 11, 13, 19, 26})
    void other_failures_are_not_transient(int code) {
        // given SQLITE_ERROR, READONLY, IOERR, CORRUPT, FULL, CONSTRAINT, NOTADB
        SQLException failure = new SQLException("failure", null, code);

        // when mapped, then it is a plain backend failure
        assertThat(Failures.backend("claim", failure)).isExactlyInstanceOf(BackendException.class);
    }

    @Test
    void a_busy_cause_under_another_exception_is_found() {
        // given a wrapped busy failure
        RuntimeException wrapped = new RuntimeException(new SQLException("busy", null, 5));

        // when mapped, then it is transient
        assertThat(Failures.backend("complete", wrapped)).isInstanceOf(TransientBackendException.class);
    }

    @Test
    void a_store_exception_passes_unchanged() {
        // given the store's own error, when mapped, then it is itself
        SequenceConflictException conflict = new SequenceConflictException(1, 2);
        assertThat(Failures.backend("append", conflict)).isSameAs(conflict);
    }
}
