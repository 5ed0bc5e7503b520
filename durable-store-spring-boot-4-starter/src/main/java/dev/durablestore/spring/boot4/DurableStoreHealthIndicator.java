package dev.durablestore.spring.boot4;

import dev.durablestore.api.ReactiveStore;
import dev.durablestore.spring.DurableStoreBackend;
import dev.durablestore.spring.StoreHealth;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.ReactiveHealthIndicator;
import org.springframework.boot.health.contributor.Status;
import reactor.core.publisher.Mono;

/**
 * The Actuator health of the store on Spring Boot 4.0 and 4.1 ({@code /actuator/health/durableStore}):
 * {@code UP}, {@code OUT_OF_SERVICE} while the application stops or once the store is closed,
 * {@code DOWN} with the reason; details {@code backend}, {@code database} and {@code chosenBy}. The
 * rules are {@link StoreHealth}'s; this class only speaks this Boot line's health types.
 */
public final class DurableStoreHealthIndicator extends StoreHealth implements ReactiveHealthIndicator {

    /**
     * @param store the store to probe
     * @param backend the starter's choice, or null when the application declared its own store
     */
    public DurableStoreHealthIndicator(ReactiveStore store, DurableStoreBackend backend) {
        super(store, backend);
    }

    @Override
    public Mono<Health> health() {
        return probe().map(report -> {
            Health.Builder builder = new Health.Builder(status(report.state()), report.details());
            return report.error() == null
                    ? builder.build()
                    : builder.withException(report.error()).build();
        });
    }

    private static Status status(StoreHealth.State state) {
        return switch (state) {
            case UP -> Status.UP;
            case DOWN -> Status.DOWN;
            case OUT_OF_SERVICE -> Status.OUT_OF_SERVICE;
        };
    }
}
