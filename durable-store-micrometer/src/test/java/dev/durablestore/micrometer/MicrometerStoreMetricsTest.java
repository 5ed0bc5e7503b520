package dev.durablestore.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.RetentionBacklog;
import dev.durablestore.api.RetentionSweep;
import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.ref.WeakReference;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The meters a store registers, read as an application's registry reads them. */
class MicrometerStoreMetricsTest {

    @TempDir
    Path dir;

    @Test
    @DisplayName("given an open store, when the collector has run, then the queue-depth gauge still reads a number")
    void queueDepthSurvivesGarbageCollection() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(dir.resolve("store.db"))
                .withMetrics(new MicrometerStoreMetrics(registry, "orders")))) {
            Gauge depth = registry.get("durable.store.writer.queue.depth")
                    .tag("store", "orders")
                    .gauge();

            collectGarbage();

            assertThat(depth.value()).isNotNaN().isGreaterThanOrEqualTo(0);
            assertThat(store).isNotNull();
        }
    }

    @Test
    @DisplayName("given retention steps and a backlog reported, then the retention meters read them (D12)")
    void D12_retention_meters_count_deleted_rows_and_show_the_last_backlog() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        MicrometerStoreMetrics metrics = new MicrometerStoreMetrics(registry, "orders");
        Instant now = Instant.parse("2026-06-03T00:00:00Z");

        metrics.retentionSwept(new RetentionSweep(2, 10, 1, 3, 4, 0, null));
        metrics.retentionSwept(new RetentionSweep(1, 5, 0, 0, 0, 1, null));
        metrics.retentionBacklog(new RetentionBacklog(now, 7, 2, now.minusSeconds(90)));

        assertThat(registry.get("durable.store.retention.deleted.workflows")
                        .counter()
                        .count())
                .isEqualTo(3);
        assertThat(registry.get("durable.store.retention.deleted")
                        .tag("kind", "events")
                        .counter()
                        .count())
                .isEqualTo(15);
        assertThat(registry.get("durable.store.retention.deleted")
                        .tag("kind", "timers")
                        .counter()
                        .count())
                .isEqualTo(1);
        assertThat(registry.get("durable.store.retention.deleted")
                        .tag("kind", "outbox")
                        .counter()
                        .count())
                .isEqualTo(3);
        assertThat(registry.get("durable.store.retention.deleted")
                        .tag("kind", "settled")
                        .counter()
                        .count())
                .isEqualTo(4);
        assertThat(registry.get("durable.store.retention.late.appends")
                        .counter()
                        .count())
                .isEqualTo(1);
        assertThat(registry.get("durable.store.retention.backlog").gauge().value())
                .isEqualTo(7);
        assertThat(registry.get("durable.store.retention.backlog.held").gauge().value())
                .isEqualTo(2);
        assertThat(registry.get("durable.store.retention.oldest.overdue")
                        .timeGauge()
                        .value(TimeUnit.SECONDS))
                .isEqualTo(90);
    }

    /** Runs the collector until an object only weakly held is gone (what a weak gauge would lose). */
    private static void collectGarbage() {
        WeakReference<Object> probe = new WeakReference<>(new Object());
        for (int i = 0; i < 50 && probe.get() != null; i++) {
            System.gc();
        }
        assertThat(probe.get()).as("the collector ran").isNull();
    }
}
