package dev.durablestore.spring;

import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.StoreClosedException;
import dev.durablestore.api.WorkflowId;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import org.springframework.boot.actuate.health.AbstractReactiveHealthIndicator;
import org.springframework.boot.actuate.health.Health;
import org.springframework.context.SmartLifecycle;
import reactor.core.publisher.Mono;

/**
 * The Actuator health of the store ({@code /actuator/health/durableStore}): {@code UP} when a read
 * of the store answers within the probe timeout, {@code OUT_OF_SERVICE} from the moment the
 * application starts shutting down (it stops first, so a load balancer stops sending work before
 * the dispatcher and the store close) and when the store is closed, {@code DOWN} with the reason
 * when the read fails or times out.
 */
public final class DurableStoreHealthIndicator extends AbstractReactiveHealthIndicator implements SmartLifecycle {

    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(5);

    private final ReactiveStore store;
    private final String backend;
    /** True from creation: the web server starts (and health is served) before this bean's phase. */
    private volatile boolean running = true;

    /**
     * @param store the store to probe
     * @param backend the backend's name, reported as the {@code backend} detail
     */
    public DurableStoreHealthIndicator(ReactiveStore store, String backend) {
        super("durable-store health check failed");
        this.store = store;
        this.backend = backend;
    }

    @Override
    protected Mono<Health> doHealthCheck(Health.Builder builder) {
        builder.withDetail("backend", backend);
        if (!running) {
            return Mono.just(builder.outOfService()
                    .withDetail("reason", "the application is stopping")
                    .build());
        }
        return Mono.defer(() -> store.readHead(WorkflowId.nil()))
                .timeout(PROBE_TIMEOUT)
                .map(head -> builder.up().build())
                .onErrorResume(
                        StoreClosedException.class,
                        e -> Mono.just(builder.outOfService()
                                .withDetail("reason", "the store is closed")
                                .build()))
                .onErrorResume(
                        TimeoutException.class,
                        e -> Mono.just(builder.down()
                                .withDetail(
                                        "reason", "the store did not answer within " + PROBE_TIMEOUT.toSeconds() + " s")
                                .build()))
                .onErrorResume(e -> Mono.just(builder.down(e).build()));
    }

    @Override
    public void start() {
        running = true;
    }

    @Override
    public void stop() {
        running = false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** @return {@link SmartLifecycle#DEFAULT_PHASE}: out of service before anything else stops */
    @Override
    public int getPhase() {
        return SmartLifecycle.DEFAULT_PHASE;
    }
}
