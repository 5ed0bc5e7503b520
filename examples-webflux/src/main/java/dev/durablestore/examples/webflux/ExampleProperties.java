package dev.durablestore.examples.webflux;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The service's own settings, under the prefix {@code example}. The store's are the starter's
 * ({@code durablestore.sqlite.path}, {@code durablestore.reaper.lease}, …).
 *
 * @param packageVersion the package version recorded in every {@code WorkflowStarted}
 * @param traffic the demo traffic ({@code example.traffic.*}), off by default
 */
@ConfigurationProperties(prefix = "example")
public record ExampleProperties(
        @DefaultValue("examples-webflux-1") String packageVersion,
        @DefaultValue Traffic traffic) {

    /**
     * Demo traffic, so the operator console has something to show: {@link TrafficLoop} starts
     * {@code checkout} workflows and {@link TrafficWorker} works their rows through the starter's
     * dispatcher, some of them into dead letters. {@code ./examples/run-webflux.sh} turns it on.
     *
     * @param enabled {@code example.traffic.enabled}: start workflows and work their rows
     * @param workflowsPerSecond how many workflows to start a second, more than 0 and at most 200
     * @param declinedRate the share of workflows whose card is declined on every attempt, so their
     *     {@code charge-card} row ends as a dead letter once the dispatcher's attempts are used up,
     *     0 to 1
     * @param flakyRate the chance that any one attempt of any activity fails (and is retried), 0 to 1
     */
    public record Traffic(
            @DefaultValue("false") boolean enabled,
            @DefaultValue("3") double workflowsPerSecond,
            @DefaultValue("0.05") double declinedRate,
            @DefaultValue("0.1") double flakyRate) {

        /** Checks the values, naming the property at fault. */
        public Traffic {
            if (!(workflowsPerSecond > 0 && workflowsPerSecond <= 200)) {
                throw new IllegalArgumentException("example.traffic.workflows-per-second must be more than 0 and at "
                        + "most 200, was " + workflowsPerSecond);
            }
            if (!(declinedRate >= 0 && declinedRate <= 1)) {
                throw new IllegalArgumentException(
                        "example.traffic.declined-rate must be from 0 to 1, was " + declinedRate);
            }
            if (!(flakyRate >= 0 && flakyRate <= 1)) {
                throw new IllegalArgumentException("example.traffic.flaky-rate must be from 0 to 1, was " + flakyRate);
            }
        }
    }
}
