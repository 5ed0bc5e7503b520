package dev.durablestore.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.BackendException;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.StoreMetrics;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.r2dbc.R2dbcReactiveStore;
import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.r2dbc.spi.ConnectionFactories;
import io.r2dbc.spi.ConnectionFactory;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/** The starter's conditions, user overrides and property checks, without starting an application. */
class DurableStoreAutoConfigurationTest {

    @TempDir
    Path dir;

    /** The starter with the SQLite file in the test's folder. */
    private ApplicationContextRunner runner() {
        return starter().withPropertyValues("durablestore.sqlite.path=" + dir.resolve("store.db"));
    }

    /** The starter, no property set. */
    private static ApplicationContextRunner starter() {
        return new ApplicationContextRunner().withConfiguration(LineFixtures.starter());
    }

    private static ConnectionFactory h2() {
        return ConnectionFactories.get(
                "r2dbc:h2:mem:///starter-" + UUID.randomUUID() + "?options=MODE=PostgreSQL;DB_CLOSE_DELAY=-1");
    }

    @Test
    @DisplayName(
            "given no connection factory, when the context starts, then the store is the SQLite file with a reaper")
    void sqliteByDefault() {
        runner().run(context -> {
            assertThat(context).hasSingleBean(ReactiveStore.class);
            assertThat(context.getBean(ReactiveStore.class)).isInstanceOf(SqliteReactiveStore.class);
            assertThat(context).hasBean("durableStoreLeaseReaper");
            assertThat(context).doesNotHaveBean("durableStoreDispatcher");
            assertThat(dir.resolve("store.db")).exists();
        });
    }

    @Test
    @DisplayName("given an R2DBC connection factory bean, when the context starts, then the store runs on it")
    void r2dbcWhenAConnectionFactoryIsPresent() {
        starter()
                .withBean(ConnectionFactory.class, DurableStoreAutoConfigurationTest::h2)
                .run(context -> {
                    assertThat(context.getBean(ReactiveStore.class)).isInstanceOf(R2dbcReactiveStore.class);
                    StepVerifier.create(context.getBean(ReactiveStore.class).readHead(WorkflowId.random()))
                            .expectNext(0L)
                            .verifyComplete();
                });
    }

    @Test
    @DisplayName("given a connection factory and backend=sqlite, when the context starts, then the store is SQLite")
    void backendPropertyWins() {
        runner().withBean(ConnectionFactory.class, DurableStoreAutoConfigurationTest::h2)
                .withPropertyValues("durablestore.backend=sqlite")
                .run(context ->
                        assertThat(context.getBean(ReactiveStore.class)).isInstanceOf(SqliteReactiveStore.class));
    }

    @Test
    @DisplayName(
            "given backend=r2dbc and no connection factory, when the context starts, then it fails naming the property")
    void r2dbcWithoutFactoryFails() {
        runner().withPropertyValues("durablestore.backend=r2dbc").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .rootCause()
                    .hasMessageContaining("durablestore.backend")
                    .hasMessageContaining("spring.r2dbc.url");
        });
    }

    @Test
    @DisplayName("given the application's own store, when the context starts, then the starter opens none and uses it")
    void userStoreWins() {
        Path own = dir.resolve("own.db");
        runner().withBean(
                        "myStore",
                        ReactiveStore.class,
                        () -> SqliteReactiveStore.open(SqliteStoreConfig.of(own)),
                        bd -> bd.setDestroyMethodName("close"))
                .run(context -> {
                    assertThat(context).hasSingleBean(ReactiveStore.class);
                    assertThat(context).hasBean("myStore");
                    assertThat(context).hasBean("durableStoreLeaseReaper");
                    assertThat(dir.resolve("store.db")).doesNotExist();
                });
    }

    @Test
    @DisplayName("given bad properties, when the context starts, then it fails naming each property and opens nothing")
    void badPropertiesNameTheProperty() {
        runner().withPropertyValues(
                        "durablestore.dispatcher.concurrency=0",
                        "durablestore.sqlite.reader-pool-size=65",
                        "durablestore.reaper.lease=-1s",
                        "durablestore.dispatcher.namespace=orders",
                        "durablestore.r2dbc.notify-channel=Bad-Channel")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure())
                            .rootCause()
                            .hasMessageContaining(
                                    "durablestore.dispatcher.concurrency must be between 1 and 10000, was 0")
                            .hasMessageContaining(
                                    "durablestore.sqlite.reader-pool-size must be between 1 and 64, was 65")
                            .hasMessageContaining("durablestore.reaper.lease must be positive, was PT-1S")
                            .hasMessageContaining("durablestore.dispatcher.task-queue must be set together with")
                            .hasMessageContaining("durablestore.r2dbc.notify-channel must be a lower-case identifier");
                    assertThat(dir.resolve("store.db")).doesNotExist();
                });
    }

    @Test
    @DisplayName("given two connection factories and backend=auto, the failure says why r2dbc was chosen")
    void twoFactoriesInAuto() {
        runner().withBean("one", ConnectionFactory.class, DurableStoreAutoConfigurationTest::h2)
                .withBean("two", ConnectionFactory.class, DurableStoreAutoConfigurationTest::h2)
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure())
                            .rootCause()
                            .hasMessageContaining("'durablestore.backend': chose r2dbc")
                            .hasMessageContaining("2 R2DBC ConnectionFactory beans");
                });
    }

    @Test
    @DisplayName("given a drain timeout that does not fit Spring's shutdown phase, start-up fails naming both")
    void drainTimeoutMustFitTheShutdownPhase() {
        runner().withBean(OutboxDispatchHandler.class, () -> row -> Mono.empty())
                .withPropertyValues("durablestore.dispatcher.drain-timeout=30s")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure())
                            .rootCause()
                            .hasMessageContaining("durablestore.dispatcher.drain-timeout")
                            .hasMessageContaining("spring.lifecycle.timeout-per-shutdown-phase");
                });
        runner().withBean(OutboxDispatchHandler.class, () -> row -> Mono.empty())
                .withPropertyValues(
                        "durablestore.dispatcher.drain-timeout=30s", "spring.lifecycle.timeout-per-shutdown-phase=40s")
                .run(context -> assertThat(context).hasNotFailed().hasBean("durableStoreDispatcher"));
    }

    @Test
    @DisplayName("given an unknown backend name, when the context starts, then it fails naming durablestore.backend")
    void unknownBackendFails() {
        runner().withPropertyValues("durablestore.backend=mongo").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasStackTraceContaining("durablestore.backend");
        });
    }

    @Test
    @DisplayName("given reaper.enabled=false, when the context starts, then no reaper runs")
    void reaperCanBeTurnedOff() {
        runner().withPropertyValues("durablestore.reaper.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean("durableStoreLeaseReaper"));
    }

    @Test
    @DisplayName("given a handler bean, when the context starts, then a dispatcher runs unless turned off")
    void dispatcherRunsWithAHandler() {
        OutboxDispatchHandler handler = row -> Mono.empty();
        runner().withBean(OutboxDispatchHandler.class, () -> handler)
                .run(context -> assertThat(context).hasBean("durableStoreDispatcher"));
        runner().withBean(OutboxDispatchHandler.class, () -> handler)
                .withPropertyValues("durablestore.dispatcher.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean("durableStoreDispatcher"));
    }

    @Test
    @DisplayName("given a meter registry, when the store works, then its meters carry the store name")
    void metricsWithMicrometer() {
        runner().withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withPropertyValues("durablestore.metrics.store-name=orders")
                .run(context -> {
                    assertThat(context).hasSingleBean(StoreMetrics.class);
                    context.getBean(ReactiveStore.class)
                            .readHead(WorkflowId.random())
                            .block();
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    assertThat(registry.find("durable.store.operation")
                                    .tag("store", "orders")
                                    .timers())
                            .isNotEmpty();
                });
    }

    @Test
    @DisplayName(
            "given no Micrometer or no Actuator on the class path, the store still starts, without metrics or health")
    void optionalLibrariesAbsent() {
        runner().withClassLoader(new FilteredClassLoader(MeterRegistry.class)).run(context -> {
            assertThat(context).hasSingleBean(ReactiveStore.class);
            assertThat(context).doesNotHaveBean(StoreMetrics.class);
        });
        runner().withClassLoader(new FilteredClassLoader(LineFixtures.HEALTH_API))
                .run(context -> {
                    assertThat(context).hasSingleBean(ReactiveStore.class);
                    assertThat(context).doesNotHaveBean("durableStoreHealthIndicator");
                });
        runner().withPropertyValues("management.health.durableStore.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean("durableStoreHealthIndicator"));
    }

    @Test
    @DisplayName("given a running store, its health is UP; once stopping OUT_OF_SERVICE; closed OUT_OF_SERVICE")
    void healthFollowsTheLifecycle() {
        runner().run(context -> {
            assertThat(LineFixtures.health(context)).satisfies(h -> {
                assertThat(h.status()).isEqualTo("UP");
                assertThat(h.details())
                        .containsEntry("backend", "SqliteReactiveStore")
                        .containsEntry(
                                "database",
                                dir.resolve("store.db").toAbsolutePath().toString())
                        .containsEntry("chosenBy", "durablestore.backend=auto and no R2DBC ConnectionFactory bean");
            });

            StoreHealth lifecycle = context.getBean(StoreHealth.class);
            lifecycle.stop();
            assertThat(LineFixtures.health(context).status()).isEqualTo("OUT_OF_SERVICE");

            lifecycle.start();
            context.getBean(ReactiveStore.class).close();
            assertThat(LineFixtures.health(context)).satisfies(h -> {
                assertThat(h.status()).isEqualTo("OUT_OF_SERVICE");
                assertThat(h.details()).containsEntry("reason", "the store is closed");
            });
        });
    }

    @Test
    @DisplayName("given a store whose reads fail, its health is DOWN with the reason")
    void healthDownWithTheReason() {
        ReactiveStore failing = (ReactiveStore) Proxy.newProxyInstance(
                getClass().getClassLoader(),
                new Class<?>[] {ReactiveStore.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "readHead" -> Mono.error(new BackendException("disk I/O error", null));
                    case "toString" -> "failing store";
                    case "hashCode" -> 1;
                    case "equals" -> proxy == args[0];
                    default -> null;
                });

        LineFixtures.HealthView health = LineFixtures.health(failing);

        assertThat(health.status()).isEqualTo("DOWN");
        assertThat(health.details().get("error").toString()).contains("disk I/O error");
        assertThat(health.details()).containsEntry("chosenBy", "the application's own ReactiveStore bean");
    }

    @Test
    @DisplayName(
            "given spring.r2dbc.url but no connection factory, when the context starts, then it fails naming both properties and opens nothing")
    void r2dbcUrlWithoutFactoryFails() {
        runner().withPropertyValues("spring.r2dbc.url=r2dbc:postgresql://db.example:5432/orders")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure())
                            .rootCause()
                            .hasMessageContaining("'durablestore.backend': is auto and spring.r2dbc.url is set")
                            .hasMessageContaining("no R2DBC ConnectionFactory bean")
                            .hasMessageContaining("durablestore.backend=sqlite");
                    assertThat(dir.resolve("store.db")).doesNotExist();
                });
        runner().withPropertyValues(
                        "spring.r2dbc.url=r2dbc:postgresql://db.example:5432/orders", "durablestore.backend=sqlite")
                .run(context -> assertThat(
                                context.getBean(DurableStoreBackend.class).chosenBy())
                        .isEqualTo("durablestore.backend=sqlite"));
    }

    @Test
    @DisplayName(
            "given a connection factory and durablestore.sqlite.path, when the context starts in auto, then it fails naming the settings")
    void sqliteSettingsWithR2dbcChosenFail() {
        // the runner sets durablestore.sqlite.path
        runner().withBean(ConnectionFactory.class, DurableStoreAutoConfigurationTest::h2)
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure())
                            .rootCause()
                            .hasMessageContaining(
                                    "chose r2dbc (durablestore.backend=auto and an R2DBC ConnectionFactory bean)")
                            .hasMessageContaining("but durablestore.sqlite.* is set")
                            .hasMessageContaining("set durablestore.backend=sqlite");
                });
    }

    @Test
    @DisplayName(
            "given durablestore.r2dbc settings and no connection factory, when the context starts, then it fails naming them")
    void r2dbcSettingsWithSqliteChosenFail() {
        runner().withPropertyValues("durablestore.r2dbc.notify-channel=orders_outbox")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure())
                            .rootCause()
                            .hasMessageContaining(
                                    "chose sqlite (durablestore.backend=auto and no R2DBC ConnectionFactory bean)")
                            .hasMessageContaining("but durablestore.r2dbc.* is set");
                    assertThat(dir.resolve("store.db")).doesNotExist();
                });
    }

    @Test
    @DisplayName("given an R2DBC connection factory, the backend bean says r2dbc, on which database, chosen by what")
    void backendIsDescribed() {
        starter()
                .withBean(ConnectionFactory.class, DurableStoreAutoConfigurationTest::h2)
                .run(context -> {
                    assertThat(context.getBean(DurableStoreBackend.class))
                            .isEqualTo(new DurableStoreBackend(
                                    DurableStoreProperties.Backend.R2DBC,
                                    "H2",
                                    "durablestore.backend=auto and an R2DBC ConnectionFactory bean"));
                    assertThat(LineFixtures.health(context).details())
                            .containsEntry("backend", "R2dbcReactiveStore")
                            .containsEntry("database", "H2");
                });
    }

    @Test
    @DisplayName("given the starter of this Boot line hidden from the class path, start-up fails naming the artifact")
    void wrongStarterFailsNamingTheArtifact() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DurableStoreAutoConfiguration.class))
                .withClassLoader(new FilteredClassLoader(LineFixtures.STARTER_CONFIGURATION))
                .withPropertyValues("durablestore.sqlite.path=" + dir.resolve("store.db"))
                .run(context -> {
                    assertThat(context).hasFailed();
                    // thrown before any bean exists, by the check itself
                    assertThat(context.getStartupFailure())
                            .isInstanceOf(IllegalStateException.class)
                            .hasMessageContaining("without a durable-store starter")
                            .hasMessageContaining("dev.durablestore:" + LineFixtures.STARTER);
                    assertThat(dir.resolve("store.db")).doesNotExist();
                });
    }
}
