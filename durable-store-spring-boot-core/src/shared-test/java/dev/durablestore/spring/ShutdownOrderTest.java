package dev.durablestore.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

/**
 * Shutdown of a Boot application with work in flight: dispatching stops, handlers still running
 * after the drain timeout have their rows released (pending again, attempt unchanged), and only
 * then does the store close, so a reopened file shows every row either settled or claimable.
 */
class ShutdownOrderTest {

    @TempDir
    Path dir;

    /** A handler that finishes {@code quick} rows and never finishes {@code stuck} ones. */
    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
        static final List<String> started = new CopyOnWriteArrayList<>();
        static final Sinks.Many<String> startedSignal = Sinks.many().replay().all();

        @Bean
        OutboxDispatchHandler handler() {
            return row -> {
                started.add(row.dispatchKey());
                // handlers run concurrently on the parallel scheduler: a sink takes one emitter at a time
                synchronized (startedSignal) {
                    startedSignal.tryEmitNext(row.dispatchKey());
                }
                return row.activityType().equals("stuck") ? Mono.never() : Mono.empty();
            };
        }
    }

    @Test
    @DisplayName(
            "given handlers stuck at shutdown, when the context closes, then their rows are released before the store closes")
    void stuckRowsAreReleasedOnShutdown() {
        Path file = dir.resolve("shutdown.db");
        List<OutboxRow> stuck = StarterFixtures.rows("stuck", 3);
        List<OutboxRow> quick = StarterFixtures.rows("quick", 5);
        ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.NONE)
                .properties(
                        "durablestore.backend=sqlite",
                        "durablestore.sqlite.path=" + file,
                        "durablestore.dispatcher.drain-timeout=200ms")
                .run();
        ReactiveStore store = context.getBean(ReactiveStore.class);
        StepVerifier.create(store.appendOutboxBatch(stuck).then(store.appendOutboxBatch(quick)))
                .verifyComplete();
        for (OutboxRow row : quick) {
            StepVerifier.create(StarterFixtures.await(store, row.dispatchKey(), OutboxStatus.DONE))
                    .expectNextCount(1)
                    .verifyComplete();
        }
        // every stuck row reached its handler
        StepVerifier.create(App.startedSignal
                        .asFlux()
                        .filter(key ->
                                stuck.stream().anyMatch(r -> r.dispatchKey().equals(key)))
                        .take(stuck.size()))
                .expectNextCount(stuck.size())
                .expectComplete()
                .verify(Duration.ofSeconds(20));

        context.close();

        try (SqliteReactiveStore reopened = SqliteReactiveStore.open(SqliteStoreConfig.of(file))) {
            for (OutboxRow row : stuck) {
                StepVerifier.create(reopened.rowState(row.dispatchKey()))
                        .assertNext(state -> {
                            assertThat(state.status()).isEqualTo(OutboxStatus.PENDING);
                            assertThat(state.attempt()).isZero();
                        })
                        .verifyComplete();
            }
            for (OutboxRow row : quick) {
                StepVerifier.create(reopened.rowState(row.dispatchKey()))
                        .assertNext(state -> assertThat(state.status()).isEqualTo(OutboxStatus.DONE))
                        .verifyComplete();
            }
        }
    }
}
