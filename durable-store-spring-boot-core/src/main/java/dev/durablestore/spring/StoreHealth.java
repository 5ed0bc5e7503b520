package dev.durablestore.spring;

import dev.durablestore.api.ForwardingReactiveStore;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.StoreClosedException;
import dev.durablestore.api.WorkflowId;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.springframework.context.SmartLifecycle;
import reactor.core.publisher.Mono;

/**
 * The store's health, whatever the Spring Boot line: the base of each starter's
 * {@code DurableStoreHealthIndicator}, which only turns a {@link Report} into its line's Actuator
 * type. Applications use the indicator ({@code /actuator/health/durableStore}), not this class.
 *
 * <p>{@code UP} when a read of the store answers within the probe timeout; {@code OUT_OF_SERVICE}
 * from the moment the application starts shutting down (this bean stops first, so a load balancer
 * stops sending work before the dispatcher and the store close) and when the store is closed;
 * {@code DOWN} with the reason when the read fails or times out. Every report carries the
 * {@code backend} detail and, when the starter opened the store, {@code database} and
 * {@code chosenBy} (see {@link DurableStoreBackend}).
 */
public abstract class StoreHealth implements SmartLifecycle {

    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(5);

    /** The states a report can have, named as Actuator names its statuses. */
    public enum State {
        /** The store answers. */
        UP,
        /** The store failed to answer, or did not answer in time. */
        DOWN,
        /** The application is stopping, or the store is closed. */
        OUT_OF_SERVICE
    }

    /**
     * One probe's outcome.
     *
     * @param state the state
     * @param details what Actuator shows beside it
     * @param error the failure that made it {@code DOWN}, or null
     */
    public record Report(State state, Map<String, Object> details, Throwable error) {
        /** Copies the details. */
        public Report {
            details = Map.copyOf(details);
        }
    }

    private final ReactiveStore store;
    private final Map<String, Object> details;
    /** True from creation: the web server starts (and health is served) before this bean's phase. */
    private volatile boolean running = true;

    /**
     * @param store the store to probe
     * @param backend the starter's choice, or null when the application declared its own store
     */
    protected StoreHealth(ReactiveStore store, DurableStoreBackend backend) {
        this.store = store;
        Map<String, Object> d = new LinkedHashMap<>();
        // the backend's class, not the decorators around it (observations, the console's meter)
        ReactiveStore backendStore = store;
        while (backendStore instanceof ForwardingReactiveStore decorator) {
            backendStore = decorator.delegate();
        }
        d.put("backend", backendStore.getClass().getSimpleName());
        if (backend != null) {
            d.put("database", backend.database());
            d.put("chosenBy", backend.chosenBy());
        } else {
            d.put("chosenBy", "the application's own ReactiveStore bean");
        }
        this.details = Map.copyOf(d);
    }

    /** @return one probe of the store; never fails */
    protected final Mono<Report> probe() {
        if (!running) {
            return Mono.just(report(State.OUT_OF_SERVICE, "the application is stopping", null));
        }
        return Mono.defer(() -> store.readHead(WorkflowId.nil()))
                .timeout(PROBE_TIMEOUT)
                .map(head -> new Report(State.UP, details, null))
                .onErrorResume(
                        StoreClosedException.class,
                        e -> Mono.just(report(State.OUT_OF_SERVICE, "the store is closed", null)))
                .onErrorResume(
                        TimeoutException.class,
                        e -> Mono.just(report(
                                State.DOWN,
                                "the store did not answer within " + PROBE_TIMEOUT.toSeconds() + " s",
                                null)))
                .onErrorResume(e -> Mono.just(new Report(State.DOWN, details, e)));
    }

    private Report report(State state, String reason, Throwable error) {
        Map<String, Object> d = new LinkedHashMap<>(details);
        d.put("reason", reason);
        return new Report(state, d, error);
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
