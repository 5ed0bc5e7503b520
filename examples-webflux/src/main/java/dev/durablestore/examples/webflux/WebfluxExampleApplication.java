package dev.durablestore.examples.webflux;

import dev.durablestore.spring.OutboxDispatchHandler;
import java.time.Clock;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A Spring WebFlux service on the embedded store:
 *
 * <ul>
 *   <li>{@code POST /workflows} starts a workflow: its {@code WorkflowStarted} and one
 *       {@code ActivityScheduled} per activity, with their outbox rows, in one
 *       {@code appendWithOutbox} (201 with the id);</li>
 *   <li>{@code GET /workflows/{id}/history} returns the history in the store's JSON wire format;</li>
 *   <li>{@code GET /workflows/{id}} returns the projected summary and the state of each dispatch;</li>
 *   <li>{@code GET /dispatches} streams outbox rows as server-sent events as they are claimed.</li>
 * </ul>
 *
 * <p>The store, its lease reaper, its health ({@code /actuator/health}) and its metrics come from
 * {@code durable-store-spring-boot-4-starter} (Spring Boot 4.1), configured in {@code application.properties}; this
 * application adds only the clock it shares with the store. Run it with
 * {@code ./examples/run-webflux.sh} (port 8080, database {@code ./durable-store-webflux.db}; Spring
 * properties such as {@code --server.port=9090} or {@code --durablestore.sqlite.path=/tmp/w.db} may
 * follow).
 *
 * <p>With {@code example.traffic.enabled=true} (which {@code run-webflux.sh} sets) it also makes demo
 * traffic for the operator console under {@code /ops/durable-store/}: see {@link ExampleProperties.Traffic}.
 */
@SpringBootApplication
@EnableConfigurationProperties(ExampleProperties.class)
public class WebfluxExampleApplication {

    /**
     * @return the clock of the service (record times) and, through the starter, of the store
     *     (visibility, claims); a test may replace it with a settable one
     */
    @Bean
    public Clock clock() {
        return Clock.systemUTC();
    }

    /** The demo traffic: workflows started a few times a second, their rows worked by the starter's dispatcher. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(prefix = "example.traffic", name = "enabled", havingValue = "true")
    static class Traffic {

        /**
         * @param service starts the workflows
         * @param properties how many a second
         * @return the loop, started and stopped with the application
         */
        @Bean
        SmartLifecycle trafficLoop(WorkflowService service, ExampleProperties properties) {
            return new TrafficLoop(service, properties.traffic());
        }

        /**
         * @param properties the failure rates
         * @return the activities, which the starter's dispatcher runs
         */
        @Bean
        OutboxDispatchHandler trafficWorker(ExampleProperties properties) {
            return new TrafficWorker(properties.traffic());
        }
    }

    /** @param args Spring Boot arguments, e.g. {@code --server.port=9090} */
    public static void main(String[] args) {
        SpringApplication.run(WebfluxExampleApplication.class, args);
    }
}
