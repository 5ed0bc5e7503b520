package dev.durablestore.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.AttemptFailure;
import dev.durablestore.api.OutboxQuery;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.sqlite.SqliteReactiveStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * A Boot application on a real SQLite file with nothing but the starter, a handler and two
 * properties ({@code durablestore.backend} and {@code durablestore.sqlite.path}): the store, the
 * reaper, the dispatcher and health come from the starter.
 */
@SpringBootTest(
        classes = SqliteApplicationTest.App.class,
        properties = {
            // r2dbc-h2 is on this module's test class path, so Spring Boot would create an in-memory
            // H2 ConnectionFactory and backend=auto would choose it
            "durablestore.backend=sqlite",
            "durablestore.dispatcher.max-attempts=2",
            "durablestore.dispatcher.initial-backoff=0s",
            "management.endpoint.health.show-details=always"
        })
class SqliteApplicationTest {

    private static final Path DIR = tempDir();

    @DynamicPropertySource
    static void file(DynamicPropertyRegistry registry) {
        registry.add("durablestore.sqlite.path", () -> DIR.resolve("app.db").toString());
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
        @Bean
        OutboxDispatchHandler handler() {
            return row -> row.activityType().equals("broken")
                    ? Mono.error(new IllegalStateException("the activity failed"))
                    : Mono.empty();
        }
    }

    @Autowired
    ReactiveStore store;

    @Autowired
    ApplicationContext context;

    @Test
    @DisplayName("given the starter and a handler, when rows are staged, then the dispatcher settles them DONE")
    void stagedRowsAreDispatched() {
        assertThat(store).isInstanceOf(SqliteReactiveStore.class);
        List<OutboxRow> rows = StarterFixtures.rows("greet", 20);

        StepVerifier.create(store.appendOutboxBatch(rows)).verifyComplete();

        for (OutboxRow row : rows) {
            StepVerifier.create(StarterFixtures.await(store, row.dispatchKey(), OutboxStatus.DONE))
                    .assertNext(state -> assertThat(state.attempt()).isZero())
                    .verifyComplete();
        }
    }

    @Test
    @DisplayName("given a handler that fails, when its row is dispatched, then it is retried and dead-lettered at"
            + " max attempts, and the row records the handler's exception for attempts 1 and 2")
    void failingRowsAreRetriedThenDeadLettered() {
        OutboxRow row = StarterFixtures.rows("broken", 1).get(0);

        StepVerifier.create(store.appendOutboxBatch(List.of(row))).verifyComplete();

        StepVerifier.create(StarterFixtures.await(store, row.dispatchKey(), OutboxStatus.FAILED))
                .assertNext(state -> assertThat(state.attempt()).isEqualTo(1))
                .verifyComplete();
        OutboxRow failed = store.listOutbox(OutboxQuery.all(1).withDispatchKey(row.dispatchKey()))
                .blockFirst(Duration.ofSeconds(10));
        assertThat(failed.failures()).extracting(AttemptFailure::attempt).containsExactly(1, 2);
        assertThat(failed.failures()).allSatisfy(f -> {
            assertThat(f.reason().type()).isEqualTo("java.lang.IllegalStateException");
            assertThat(f.reason().message()).isEqualTo("the activity failed");
            assertThat(f.reason().trace()).startsWith("\tat ");
        });
    }

    @Test
    @DisplayName("given the running application, its health endpoint shows the store UP")
    void healthIsUp() {
        assertThat(LineFixtures.endpointStatus(context, "durableStore")).isEqualTo("UP");
    }

    private static Path tempDir() {
        try {
            Path dir = Files.createTempDirectory("starter-sqlite");
            dir.toFile().deleteOnExit();
            return dir;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
