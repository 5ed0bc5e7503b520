package dev.durablestore.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.r2dbc.R2dbcReactiveStore;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * A Boot application on an embedded PostgreSQL server: {@code spring.r2dbc.url} alone makes the
 * starter open the store on Spring Boot's pooled {@code ConnectionFactory}.
 */
@SpringBootTest(classes = PostgresApplicationTest.App.class)
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS) // closed after the class, before the server
class PostgresApplicationTest {

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        registry.add("spring.r2dbc.url", TestPostgres::url);
        registry.add("spring.r2dbc.username", () -> "postgres");
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
        @Bean
        OutboxDispatchHandler handler() {
            return row -> Mono.empty();
        }
    }

    @Autowired
    ReactiveStore store;

    @Autowired
    ApplicationContext context;

    @Test
    @DisplayName("given spring.r2dbc.url, when rows are staged, then the store on PostgreSQL dispatches them DONE")
    void stagedRowsAreDispatched() {
        assertThat(store).isInstanceOf(R2dbcReactiveStore.class);
        List<OutboxRow> rows = StarterFixtures.rows("greet", 20);

        StepVerifier.create(store.appendOutboxBatch(rows)).verifyComplete();

        for (OutboxRow row : rows) {
            StepVerifier.create(StarterFixtures.await(store, row.dispatchKey(), OutboxStatus.DONE))
                    .expectNextCount(1)
                    .verifyComplete();
        }
        assertThat(LineFixtures.endpointStatus(context, "durableStore")).isEqualTo("UP");
    }
}
