package dev.durablestore.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.micrometer.observation.ObservedStore;
import dev.durablestore.micrometer.observation.StoreObservations;
import dev.durablestore.sqlite.SqliteReactiveStore;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/** {@code durablestore.observations.enabled}: the store and the dispatcher report observations. */
class ObservationsTest {

    @TempDir
    Path dir;

    private ApplicationContextRunner runner(TestObservationRegistry registry) {
        return new ApplicationContextRunner()
                .withConfiguration(LineFixtures.starter())
                .withBean(ObservationRegistry.class, () -> registry)
                .withBean(OutboxDispatchHandler.class, () -> row -> Mono.empty())
                .withPropertyValues("durablestore.backend=sqlite", "durablestore.sqlite.path=" + dir.resolve("o.db"));
    }

    @Test
    @DisplayName("given observations off (the default), the store is not wrapped and reports nothing")
    void offByDefault() {
        TestObservationRegistry registry = TestObservationRegistry.create();
        runner(registry).run(context -> {
            ReactiveStore store = context.getBean(ReactiveStore.class);
            assertThat(store).isInstanceOf(SqliteReactiveStore.class);
            OutboxRow row = StarterFixtures.rows("greet", 1).get(0);
            StepVerifier.create(store.appendOutboxBatch(List.of(row))).verifyComplete();
            StepVerifier.create(StarterFixtures.await(store, row.dispatchKey(), OutboxStatus.DONE))
                    .expectNextCount(1)
                    .verifyComplete();
            TestObservationRegistryAssert.assertThat(registry).doesNotHaveAnyObservation();
        });
    }

    @Test
    @DisplayName(
            "given observations on, staging, the dispatch and its settle are observed, the settle inside the dispatch")
    void onWithARegistry() {
        TestObservationRegistry registry = TestObservationRegistry.create();
        Set<String> stopped = ConcurrentHashMap.newKeySet();
        registry.observationConfig().observationHandler(recorder(stopped));
        runner(registry)
                .withPropertyValues("durablestore.observations.enabled=true")
                .run(context -> {
                    ReactiveStore store = context.getBean(ReactiveStore.class);
                    assertThat(store).isInstanceOf(ObservedStore.class);
                    assertThat(LineFixtures.health(context).details()).containsEntry("backend", "SqliteReactiveStore");
                    OutboxRow row = StarterFixtures.rows("greet", 1).get(0);

                    StepVerifier.create(store.appendOutboxBatch(List.of(row))).verifyComplete();
                    StepVerifier.create(StarterFixtures.await(store, row.dispatchKey(), OutboxStatus.DONE))
                            .expectNextCount(1)
                            .verifyComplete();

                    // the row is DONE once the settle commits, a moment before the dispatch observation stops
                    StepVerifier.create(Mono.fromCallable(() -> stopped.contains(StoreObservations.DISPATCH))
                                    .filter(Boolean::booleanValue)
                                    .repeatWhenEmpty(polls -> polls.delayElements(Duration.ofMillis(20)))
                                    .timeout(Duration.ofSeconds(20)))
                            .expectNext(true)
                            .verifyComplete();
                    TestObservationRegistryAssert.assertThat(registry)
                            .hasObservationWithNameEqualTo(StoreObservations.STAGE)
                            .that()
                            .hasBeenStopped();
                    TestObservationRegistryAssert.assertThat(registry)
                            .hasObservationWithNameEqualTo(StoreObservations.DISPATCH)
                            .that()
                            .hasHighCardinalityKeyValue(StoreObservations.MESSAGE_ID_KEY, row.dispatchKey())
                            .hasBeenStopped();
                    TestObservationRegistryAssert.assertThat(registry)
                            .hasObservationWithNameEqualTo(StoreObservations.SETTLE)
                            .that()
                            .hasParentObservationContextMatching(
                                    parent -> parent.getName().equals(StoreObservations.DISPATCH));
                });
    }

    @Test
    @DisplayName("given Spring Boot's own ObservationRegistry (auto-configured later), dispatches are still observed")
    void withTheAutoConfiguredRegistry() {
        Set<String> seen = ConcurrentHashMap.newKeySet();
        ObservationHandler<Observation.Context> recorder = recorder(seen);
        new ApplicationContextRunner()
                .withConfiguration(LineFixtures.starter())
                .withConfiguration(LineFixtures.observation())
                .withBean("recorder", ObservationHandler.class, () -> recorder)
                .withBean(OutboxDispatchHandler.class, () -> row -> Mono.empty())
                .withPropertyValues(
                        "durablestore.backend=sqlite",
                        "durablestore.sqlite.path=" + dir.resolve("b.db"),
                        "durablestore.observations.enabled=true")
                .run(context -> {
                    ReactiveStore store = context.getBean(ReactiveStore.class);
                    OutboxRow row = StarterFixtures.rows("greet", 1).get(0);
                    StepVerifier.create(store.appendOutboxBatch(List.of(row))).verifyComplete();
                    StepVerifier.create(Mono.fromCallable(() -> seen.contains(StoreObservations.DISPATCH))
                                    .filter(Boolean::booleanValue)
                                    .repeatWhenEmpty(polls -> polls.delayElements(Duration.ofMillis(20)))
                                    .timeout(Duration.ofSeconds(20)))
                            .expectNext(true)
                            .verifyComplete();
                    assertThat(seen).contains(StoreObservations.STAGE, StoreObservations.SETTLE);
                });
    }

    /** @return a handler that records the name of every observation that stops */
    private static ObservationHandler<Observation.Context> recorder(Set<String> stopped) {
        return new ObservationHandler<>() {
            @Override
            public void onStop(Observation.Context context) {
                stopped.add(context.getName());
            }

            @Override
            public boolean supportsContext(Observation.Context context) {
                return true;
            }
        };
    }
}
