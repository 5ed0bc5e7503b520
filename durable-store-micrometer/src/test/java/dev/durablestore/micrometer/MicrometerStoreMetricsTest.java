package dev.durablestore.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.ref.WeakReference;
import java.nio.file.Path;
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

    /** Runs the collector until an object only weakly held is gone (what a weak gauge would lose). */
    private static void collectGarbage() {
        WeakReference<Object> probe = new WeakReference<>(new Object());
        for (int i = 0; i < 50 && probe.get() != null; i++) {
            System.gc();
        }
        assertThat(probe.get()).as("the collector ran").isNull();
    }
}
