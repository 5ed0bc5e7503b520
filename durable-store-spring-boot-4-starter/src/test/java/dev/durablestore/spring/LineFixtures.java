package dev.durablestore.spring;

import dev.durablestore.api.ReactiveStore;
import dev.durablestore.spring.boot4.DurableStoreBoot4AutoConfiguration;
import dev.durablestore.spring.boot4.DurableStoreHealthIndicator;
import java.time.Duration;
import java.util.Map;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.ReactiveHealthIndicator;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.micrometer.tracing.autoconfigure.MicrometerTracingAutoConfiguration;
import org.springframework.boot.micrometer.tracing.opentelemetry.autoconfigure.OpenTelemetryTracingAutoConfiguration;
import org.springframework.boot.opentelemetry.autoconfigure.OpenTelemetrySdkAutoConfiguration;
import org.springframework.context.ApplicationContext;

/**
 * What the shared starter tests need from Spring Boot 4's own packages (health, observation and
 * tracing moved in Boot 4), behind line-neutral types. Each starter's test tree has its own copy of
 * this class, with the same members; the shared tests in durable-store-spring-boot-core/src/shared-test
 * call only these. Spring Boot 4.1.2 (4.0.7 in boot-4.0-tests) here.
 */
final class LineFixtures {

    /** The artifact of this line's starter, as the Boot line check names it. */
    static final String STARTER = "durable-store-spring-boot-4-starter";

    /** The marker class of this line's starter. */
    static final Class<?> STARTER_CONFIGURATION = DurableStoreBoot4AutoConfiguration.class;

    /** Spring Boot's R2DBC auto-configuration on this line, to exclude by name. */
    static final String R2DBC_AUTO_CONFIGURATION =
            "org.springframework.boot.r2dbc.autoconfigure.R2dbcAutoConfiguration";

    /** This line's health API, to hide from the class path. */
    static final Class<?> HEALTH_API = ReactiveHealthIndicator.class;

    private LineFixtures() {}

    /** @return the starter's auto-configurations, as the starter's imports list them */
    static AutoConfigurations starter() {
        return AutoConfigurations.of(DurableStoreAutoConfiguration.class, DurableStoreBoot4AutoConfiguration.class);
    }

    /** @return Spring Boot's observation auto-configuration */
    static AutoConfigurations observation() {
        return AutoConfigurations.of(ObservationAutoConfiguration.class);
    }

    /** @return Spring Boot's OpenTelemetry tracing, with observations */
    static AutoConfigurations tracing() {
        return AutoConfigurations.of(
                ObservationAutoConfiguration.class,
                OpenTelemetrySdkAutoConfiguration.class,
                OpenTelemetryTracingAutoConfiguration.class,
                MicrometerTracingAutoConfiguration.class);
    }

    /**
     * A health report as the shared tests read it.
     *
     * @param status the status code ({@code UP}, {@code DOWN}, {@code OUT_OF_SERVICE})
     * @param details the details
     */
    record HealthView(String status, Map<String, Object> details) {}

    /** @return the store's health indicator bean, probed once */
    static HealthView health(ApplicationContext context) {
        return view(context.getBean(DurableStoreHealthIndicator.class));
    }

    /** @return a health indicator on that store (one the application declared), probed once */
    static HealthView health(ReactiveStore store) {
        return view(new DurableStoreHealthIndicator(store, null));
    }

    /** @return the status Actuator's health endpoint reports for a component */
    static String endpointStatus(ApplicationContext context, String component) {
        return context.getBean(HealthEndpoint.class)
                .healthForPath(component)
                .getStatus()
                .getCode();
    }

    private static HealthView view(DurableStoreHealthIndicator indicator) {
        Health health = indicator.health().block(Duration.ofSeconds(10));
        return new HealthView(health.getStatus().getCode(), health.getDetails());
    }
}
