package dev.durablestore.r2dbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.BackendException;
import dev.durablestore.api.SequenceConflictException;
import dev.durablestore.api.TransientBackendException;
import io.r2dbc.spi.R2dbcBadGrammarException;
import io.r2dbc.spi.R2dbcDataIntegrityViolationException;
import io.r2dbc.spi.R2dbcNonTransientResourceException;
import io.r2dbc.spi.R2dbcPermissionDeniedException;
import io.r2dbc.spi.R2dbcRollbackException;
import io.r2dbc.spi.R2dbcTransientResourceException;
import java.io.IOException;
import java.net.ConnectException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** X7: which PostgreSQL failures are worth a retry, decided in one place. */
class FailuresTest {

    @ParameterizedTest(name = "SQLSTATE {0}")
    @ValueSource(strings = {"40001", "40P01", "08000", "08003", "08006", "08P01", "57P01", "57P02", "57P03", "53300"})
    void serialization_deadlock_connection_and_shutdown_states_are_transient(String state) {
        // given a driver failure with that SQLSTATE
        R2dbcNonTransientResourceException failure = new R2dbcNonTransientResourceException("failure", state);

        // when mapped, then it is transient, names the operation and keeps the state in the message
        assertThat(Failures.backend("append", failure))
                .isInstanceOf(TransientBackendException.class)
                .hasMessageStartingWith("append failed: [" + state + "]")
                .hasCause(failure);
    }

    @ParameterizedTest(name = "SQLSTATE {0}")
    @ValueSource(strings = {"23505", "23502", "42P01", "42501", "53100", "XX001", "22P02"})
    void constraint_grammar_permission_disk_and_corruption_states_are_not(String state) {
        // given a failure that will not pass by itself
        R2dbcBadGrammarException failure = new R2dbcBadGrammarException("failure", state);

        // when mapped, then it is a plain backend failure
        assertThat(Failures.backend("claim", failure)).isExactlyInstanceOf(BackendException.class);
    }

    @Test
    void X13_a_write_refused_by_a_read_only_server_is_transient_and_says_the_server_is_a_standby() {
        // given what PostgreSQL answers a write on a hot standby
        R2dbcNonTransientResourceException failure =
                new R2dbcNonTransientResourceException("cannot execute INSERT in a read-only transaction", "25006");

        // when mapped, then it is transient and says why, before the driver's state and message
        assertThat(Failures.backend("append", failure))
                .isInstanceOf(TransientBackendException.class)
                .hasMessage("append failed: " + Failures.READ_ONLY_MESSAGE
                        + ": [25006] cannot execute INSERT in a read-only transaction")
                .hasMessageContaining("read-only")
                .hasMessageContaining("standby")
                .hasCause(failure);
        assertThat(Failures.isReadOnly(new IllegalStateException(failure))).isTrue();
        assertThat(Failures.isReadOnly(new R2dbcNonTransientResourceException("gone", "08006")))
                .isFalse();
    }

    @Test
    void what_the_driver_calls_transient_and_io_failures_are_transient() {
        assertThat(Failures.backend("read", new R2dbcTransientResourceException("pool exhausted")))
                .isInstanceOf(TransientBackendException.class);
        assertThat(Failures.backend("read", new R2dbcRollbackException("rolled back", "40001")))
                .isInstanceOf(TransientBackendException.class);
        assertThat(Failures.backend("read", new RuntimeException(new ConnectException("Connection refused"))))
                .isInstanceOf(TransientBackendException.class);
        assertThat(Failures.backend("read", new IOException("Connection reset by peer")))
                .isInstanceOf(TransientBackendException.class);
        // r2dbc-pool's failed validation and r2dbc-postgresql's closed connection: no SQLSTATE
        assertThat(Failures.backend("read", new R2dbcNonTransientResourceException("Connection validation failed")))
                .isInstanceOf(TransientBackendException.class);
    }

    @Test
    void other_failures_are_plain_and_store_exceptions_pass_unchanged() {
        assertThat(Failures.backend("read", new R2dbcDataIntegrityViolationException("dup", "23505")))
                .isExactlyInstanceOf(BackendException.class);
        assertThat(Failures.backend("read", new R2dbcPermissionDeniedException("no", "42501")))
                .isExactlyInstanceOf(BackendException.class);
        assertThat(Failures.backend("read", new IllegalStateException("bug")))
                .isExactlyInstanceOf(BackendException.class);
        SequenceConflictException conflict = new SequenceConflictException(1, 2);
        assertThat(Failures.backend("append", conflict)).isSameAs(conflict);
    }
}
