package dev.durablestore.examples.webflux;

import java.nio.file.Path;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The service's settings, under the prefix {@code durablestore}.
 *
 * @param db the SQLite database file, created when missing ({@code durablestore.db})
 * @param lease how long a claimed row may stay unsettled before the lease reaper re-arms it
 * @param reaperInterval time between two sweeps of the lease reaper
 * @param packageVersion the package version recorded in every {@code WorkflowStarted}
 */
@ConfigurationProperties(prefix = "durablestore")
public record ExampleProperties(
        @DefaultValue("durable-store-webflux.db") Path db,
        @DefaultValue("1m") Duration lease,
        @DefaultValue("10s") Duration reaperInterval,
        @DefaultValue("examples-webflux-1") String packageVersion) {
}
