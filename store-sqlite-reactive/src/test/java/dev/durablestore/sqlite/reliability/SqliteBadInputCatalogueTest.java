package dev.durablestore.sqlite.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.OutboxLeaseReaper;
import dev.durablestore.sqlite.SqliteJournalMode;
import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import dev.durablestore.sqlite.SqliteSynchronous;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bad-input catalogue (X10, S19) for the public surface the contract kit's
 * {@code HistoryArgumentContract} and {@code OutboxArgumentContract} do not reach: the SQLite
 * backend's configuration and {@code open}, and the option builders a caller hands to the store
 * ({@link ClaimStreamOptions}, {@link OutboxLeaseReaper}). Every invalid argument is rejected with
 * an {@link InvalidArgumentException} naming it, synchronously (these are constructors and
 * builders, not store operations), and nothing is created on disk.
 */
class SqliteBadInputCatalogueTest {

    @TempDir
    Path dir;

    @Test
    void X10_S19_every_invalid_configuration_value_is_rejected_naming_it_and_no_file_is_created() {
        // given a valid base configuration for a file that does not exist yet
        Path db = dir.resolve("never-created.db");
        SqliteStoreConfig base = SqliteStoreConfig.of(db);
        Map<String, Supplier<Object>> calls = new LinkedHashMap<>();
        calls.put("path", () -> SqliteStoreConfig.of(null));
        calls.put("path|withPath", () -> base.withPath(null));
        calls.put("journalMode|null", () -> base.withJournalMode(null));
        // modes that void the durability promise, without the waiver
        calls.put("journalMode|MEMORY", () -> base.withJournalMode(SqliteJournalMode.MEMORY));
        calls.put("journalMode|OFF", () -> base.withJournalMode(SqliteJournalMode.OFF));
        calls.put("synchronous|OFF", () -> base.withSynchronous(SqliteSynchronous.OFF));
        SqliteStoreConfig waived = base.withDurabilityWaived(true).withSynchronous(SqliteSynchronous.OFF);
        calls.put("synchronous|waiver withdrawn", () -> waived.withDurabilityWaived(false));
        calls.put("busyTimeout|null", () -> base.withBusyTimeout(null));
        calls.put("busyTimeout|-1ms", () -> base.withBusyTimeout(Duration.ofMillis(-1)));
        calls.put("busyTimeout|huge", () -> base.withBusyTimeout(Duration.ofDays(365)));
        calls.put("readerPoolSize|0", () -> base.withReaderPoolSize(0));
        calls.put("readerPoolSize|65", () -> base.withReaderPoolSize(65));
        calls.put("maxBatchCommands|0", () -> base.withMaxBatchCommands(0));
        calls.put("maxBatchCommands|100001", () -> base.withMaxBatchCommands(100_001));
        calls.put("checkpointPages|0", () -> base.withCheckpointPages(0));
        calls.put("checkpointPages|-1", () -> base.withCheckpointPages(-1));
        calls.put("writerCacheKib|0", () -> base.withWriterCacheKib(0));
        calls.put("writerCacheKib|16777217", () -> base.withWriterCacheKib(16 * 1024 * 1024 + 1));
        calls.put("clock|null", () -> base.withClock(null));
        calls.put("metrics|null", () -> base.withMetrics(null));

        // when / then: each is rejected naming the argument
        assertRejectedNaming(calls);
        // and the valid boundary values are accepted
        assertThat(base.withSynchronous(null).synchronous()).isNull();
        assertThat(waived.synchronous()).isEqualTo(SqliteSynchronous.OFF);
        assertThat(base.withDurabilityWaived(true)
                        .withJournalMode(SqliteJournalMode.MEMORY)
                        .journalMode())
                .isEqualTo(SqliteJournalMode.MEMORY);
        for (SqliteSynchronous safe :
                List.of(SqliteSynchronous.EXTRA, SqliteSynchronous.FULL, SqliteSynchronous.NORMAL)) {
            assertThat(base.withSynchronous(safe).synchronous()).isEqualTo(safe);
        }
        assertThat(base.withBusyTimeout(Duration.ZERO).busyTimeout()).isZero();
        assertThat(base.withReaderPoolSize(1).withReaderPoolSize(64).readerPoolSize())
                .isEqualTo(64);
        assertThat(base.withMaxBatchCommands(1).withMaxBatchCommands(100_000).maxBatchCommands())
                .isEqualTo(100_000);
        assertThat(base.withCheckpointPages(1).checkpointPages()).isEqualTo(1);
        assertThat(base.withWriterCacheKib(1)
                        .withWriterCacheKib(16 * 1024 * 1024)
                        .writerCacheKib())
                .isEqualTo(16 * 1024 * 1024);
        // and nothing touched the disk
        assertThat(db).doesNotExist();
    }

    @Test
    void X10_open_rejects_a_null_configuration_naming_it() {
        // when open gets null
        Throwable thrown = catchThrowable(() -> SqliteReactiveStore.open(null));
        // then it is rejected naming the configuration (not a bare NullPointerException)
        assertThat(thrown).isInstanceOf(InvalidArgumentException.class);
        assertThat(((InvalidArgumentException) thrown).argument()).isEqualTo("config");
    }

    @Test
    void X10_claim_stream_options_and_lease_reaper_builders_reject_invalid_values_naming_them() {
        // given the builders' defaults
        ClaimStreamOptions options = ClaimStreamOptions.defaults();
        Map<String, Supplier<Object>> calls = new LinkedHashMap<>();
        calls.put("maxBatch|0", () -> options.withMaxBatch(0));
        calls.put("maxBatch|-1", () -> options.withMaxBatch(-1));
        calls.put("maxBatch|10001", () -> options.withMaxBatch(10_001));
        calls.put("pollInterval|null", () -> options.withPollInterval(null));
        calls.put("pollInterval|0", () -> options.withPollInterval(Duration.ZERO));
        calls.put("pollInterval|-1s", () -> options.withPollInterval(Duration.ofSeconds(-1)));
        calls.put("heldWorkflows|null", () -> options.withHeldWorkflows(null));
        calls.put("policy|null", () -> options.withPolicy(null));
        calls.put("store|null", () -> OutboxLeaseReaper.of(null));
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(dir.resolve("reaper.db")))) {
            OutboxLeaseReaper reaper = OutboxLeaseReaper.of(store);
            calls.put("lease|null", () -> reaper.withLease(null));
            calls.put("lease|0", () -> reaper.withLease(Duration.ZERO));
            calls.put("lease|-1s", () -> reaper.withLease(Duration.ofSeconds(-1)));
            calls.put("interval|null", () -> reaper.withInterval(null));
            calls.put("interval|0", () -> reaper.withInterval(Duration.ZERO));
            calls.put("batchSize|0", () -> reaper.withBatchSize(0));
            calls.put("clock|null", () -> reaper.withClock(null));
            calls.put("onReaped|null", () -> reaper.withOnReaped(null));
            calls.put("onError|null", () -> reaper.withOnError(null));
            // when / then
            assertRejectedNaming(calls);
        }
    }

    /** Each entry is "argument|value" → call; the call must throw InvalidArgumentException naming the argument. */
    private static void assertRejectedNaming(Map<String, Supplier<Object>> calls) {
        for (Map.Entry<String, Supplier<Object>> call : calls.entrySet()) {
            String argument = call.getKey().split("\\|")[0];
            Throwable thrown = catchThrowable(() -> call.getValue().get());
            assertThat(thrown).as(call.getKey()).isInstanceOf(InvalidArgumentException.class);
            assertThat(((InvalidArgumentException) thrown).argument())
                    .as(call.getKey())
                    .isEqualTo(argument);
            assertThat(thrown.getMessage()).as(call.getKey()).contains(argument);
        }
    }
}
