package dev.durablestore.examples.webflux;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The service's own settings, under the prefix {@code example}. The store's are the starter's
 * ({@code durablestore.sqlite.path}, {@code durablestore.reaper.lease}, …).
 *
 * @param packageVersion the package version recorded in every {@code WorkflowStarted}
 */
@ConfigurationProperties(prefix = "example")
public record ExampleProperties(@DefaultValue("examples-webflux-1") String packageVersion) {
}
