package dev.durablestore.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.StoreMetrics;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * A configuration is an immutable value: {@code of} holds the published defaults, each
 * {@code with…} copy changes its one setting and leaves the original as it was, and two
 * configurations of the same settings are equal. No file is touched.
 */
class SqliteStoreConfigTest {

    private final SqliteStoreConfig base = SqliteStoreConfig.of(Path.of("never-opened.db"));

    @Test
    void of_holds_the_published_defaults() {
        assertThat(base.path()).isEqualTo(Path.of("never-opened.db"));
        assertThat(base.journalMode()).isEqualTo(SqliteStoreConfig.DEFAULT_JOURNAL_MODE);
        assertThat(base.synchronous()).isNull();
        assertThat(base.durabilityWaived()).isFalse();
        assertThat(base.busyTimeout()).isEqualTo(SqliteStoreConfig.DEFAULT_BUSY_TIMEOUT);
        assertThat(base.readerPoolSize()).isEqualTo(SqliteStoreConfig.DEFAULT_READER_POOL_SIZE);
        assertThat(base.maxBatchCommands()).isEqualTo(SqliteStoreConfig.DEFAULT_MAX_BATCH_COMMANDS);
        assertThat(base.checkpointPages()).isEqualTo(SqliteStoreConfig.DEFAULT_CHECKPOINT_PAGES);
        assertThat(base.writerCacheKib()).isEqualTo(SqliteStoreConfig.DEFAULT_WRITER_CACHE_KIB);
        assertThat(base.clock()).isEqualTo(Clock.systemUTC());
        assertThat(base.metrics()).isSameAs(StoreMetrics.NONE);
    }

    @Test
    void each_copy_changes_its_one_setting_and_leaves_the_original_unchanged() {
        // given every setting changed away from its default, one copy each
        Clock fixed = Clock.fixed(Instant.EPOCH, ZoneOffset.UTC);
        StoreMetrics metrics = new StoreMetrics() {};
        List<UnaryOperator<SqliteStoreConfig>> changes = List.of(
                c -> c.withPath(Path.of("other.db")),
                c -> c.withJournalMode(SqliteJournalMode.DELETE),
                c -> c.withSynchronous(SqliteSynchronous.NORMAL),
                c -> c.withDurabilityWaived(true),
                c -> c.withBusyTimeout(Duration.ofSeconds(1)),
                c -> c.withReaderPoolSize(2),
                c -> c.withMaxBatchCommands(10),
                c -> c.withCheckpointPages(100),
                c -> c.withWriterCacheKib(64 * 1024),
                c -> c.withClock(fixed),
                c -> c.withMetrics(metrics));
        SqliteStoreConfig all = base;
        for (UnaryOperator<SqliteStoreConfig> change : changes) {
            // when one setting is changed
            SqliteStoreConfig copy = change.apply(base);
            // then the copy differs from the defaults and the defaults are unchanged
            assertThat(copy).isNotEqualTo(base);
            assertThat(base).isEqualTo(SqliteStoreConfig.of(Path.of("never-opened.db")));
            all = change.apply(all);
        }
        // and the copies compose: every setting is the one last set
        assertThat(all.path()).isEqualTo(Path.of("other.db"));
        assertThat(all.journalMode()).isEqualTo(SqliteJournalMode.DELETE);
        assertThat(all.synchronous()).isEqualTo(SqliteSynchronous.NORMAL);
        assertThat(all.durabilityWaived()).isTrue();
        assertThat(all.busyTimeout()).isEqualTo(Duration.ofSeconds(1));
        assertThat(all.readerPoolSize()).isEqualTo(2);
        assertThat(all.maxBatchCommands()).isEqualTo(10);
        assertThat(all.checkpointPages()).isEqualTo(100);
        assertThat(all.writerCacheKib()).isEqualTo(64 * 1024);
        assertThat(all.clock()).isSameAs(fixed);
        assertThat(all.metrics()).isSameAs(metrics);
    }

    @Test
    void configurations_of_the_same_settings_are_equal_and_print_every_setting() {
        SqliteStoreConfig one = base.withReaderPoolSize(8).withSynchronous(SqliteSynchronous.NORMAL);
        SqliteStoreConfig other = SqliteStoreConfig.of(Path.of("never-opened.db"))
                .withSynchronous(SqliteSynchronous.NORMAL)
                .withReaderPoolSize(8);

        assertThat(one).isEqualTo(other).hasSameHashCodeAs(other);
        assertThat(one.toString())
                .startsWith("SqliteStoreConfig[path=never-opened.db, journalMode=WAL, synchronous=NORMAL, ")
                .contains("readerPoolSize=8", "writerCacheKib=2000", "metrics=");
    }
}
