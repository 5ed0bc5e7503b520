package dev.durablestore.examples.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.StoreClosedException;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.spring.DurableStoreProperties;
import dev.durablestore.sqlite.SqliteReactiveStore;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import reactor.test.StepVerifier;

/**
 * The store bean (the starter's) opens on the configured file and is closed with the application
 * context. The application is started without its web server.
 */
class StoreLifecycleTest {

    @TempDir
    Path dir;

    @Test
    void theStoreOpensOnTheConfiguredFileAndClosesOnShutdown() {
        // given the store's configuration started on a database file of this test
        Path db = dir.resolve("lifecycle.db");
        SqliteReactiveStore store;
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(WebfluxExampleApplication.class)
                .web(WebApplicationType.NONE)
                .run("--durablestore.sqlite.path=" + db)) {
            store = context.getBean(SqliteReactiveStore.class);
            assertThat(db).exists();
            StepVerifier.create(store.readHead(WorkflowId.random()))
                    .expectNext(0L)
                    .verifyComplete();
            assertThat(context.getBean(DurableStoreProperties.class).getSqlite().getPath())
                    .isEqualTo(db);
        } // when the context closes

        // then the store is closed: a later operation fails with StoreClosedException
        StepVerifier.create(store.readHead(WorkflowId.random()))
                .expectError(StoreClosedException.class)
                .verify(Duration.ofSeconds(5));
    }
}
