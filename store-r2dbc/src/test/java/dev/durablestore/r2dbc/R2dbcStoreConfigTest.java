package dev.durablestore.r2dbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.StoreConfig;
import dev.durablestore.api.StoreMetrics;
import dev.durablestore.api.WorkflowId;
import io.r2dbc.spi.ConnectionFactories;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.ConnectionFactoryMetadata;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

class R2dbcStoreConfigTest {

    private final ConnectionFactory h2 = ConnectionFactories.get("r2dbc:h2:mem:///config_test?options=MODE=PostgreSQL");

    @Test
    void defaults_detect_the_dialect_and_notify_on_the_default_channel() {
        R2dbcStoreConfig config = R2dbcStoreConfig.of(h2);
        assertThat(config.dialect()).isNull();
        assertThat(config.notifications()).isTrue();
        assertThat(config.notifyChannel()).isEqualTo(R2dbcStoreConfig.DEFAULT_CHANNEL);
        assertThat(config.metrics()).isSameAs(StoreMetrics.NONE);
        assertThat(R2dbcDialect.detect(h2)).isEqualTo(R2dbcDialect.H2);
    }

    @Test
    void with_methods_return_checked_copies() {
        R2dbcStoreConfig base = R2dbcStoreConfig.of(h2);
        Clock clock = Clock.systemUTC();
        R2dbcStoreConfig changed = base.withDialect(R2dbcDialect.POSTGRESQL)
                .withClock(clock)
                .withNotifications(false)
                .withNotifyChannel("orders_outbox");
        assertThat(changed).isNotSameAs(base);
        assertThat(base.notifications()).isTrue();
        assertThat(changed.dialect()).isEqualTo(R2dbcDialect.POSTGRESQL);
        assertThat(changed.notifications()).isFalse();
        assertThat(changed.notifyChannel()).isEqualTo("orders_outbox");
    }

    @Test
    void configurations_of_the_same_settings_are_equal_and_print_every_setting() {
        R2dbcStoreConfig one =
                R2dbcStoreConfig.of(h2).withNotifications(false).withOperationTimeout(Duration.ofSeconds(5));
        R2dbcStoreConfig other = R2dbcStoreConfig.of(h2)
                .withOperationTimeout(Duration.ofSeconds(5))
                .withNotifications(false);
        assertThat(one).isEqualTo(other).hasSameHashCodeAs(other);
        assertThat(one).isNotEqualTo(R2dbcStoreConfig.of(h2));
        assertThat(one.toString())
                .startsWith("R2dbcStoreConfig[connectionFactory=")
                .contains("notifications=false", "notifyChannel=durable_store_outbox", "operationTimeout=PT5S");
    }

    @Test
    void invalid_values_are_rejected_naming_the_argument() {
        assertThatThrownBy(() -> R2dbcStoreConfig.of(null))
                .isInstanceOfSatisfying(
                        InvalidArgumentException.class,
                        e -> assertThat(e.argument()).isEqualTo("connectionFactory"));
        R2dbcStoreConfig base = R2dbcStoreConfig.of(h2);
        for (String channel : new String[] {"", "Upper", "has-dash", "1digit", "x".repeat(64), "a; DROP"}) {
            assertThatThrownBy(() -> base.withNotifyChannel(channel))
                    .isInstanceOfSatisfying(
                            InvalidArgumentException.class,
                            e -> assertThat(e.argument()).isEqualTo("notifyChannel"));
        }
        assertThatThrownBy(() -> base.withClock(null)).isInstanceOf(InvalidArgumentException.class);
        assertThatThrownBy(() -> base.withMetrics(null)).isInstanceOf(InvalidArgumentException.class);
        for (Duration timeout : new Duration[] {null, Duration.ZERO, Duration.ofMillis(-1)}) {
            assertThatThrownBy(() -> base.withOperationTimeout(timeout))
                    .isInstanceOfSatisfying(
                            InvalidArgumentException.class,
                            e -> assertThat(e.argument()).isEqualTo("operationTimeout"));
        }
    }

    @Test
    void operations_time_out_after_30_s_by_default_and_the_timeout_can_be_set() {
        R2dbcStoreConfig base = R2dbcStoreConfig.of(h2);
        assertThat(base.operationTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(base.withOperationTimeout(Duration.ofMillis(1500)).operationTimeout())
                .isEqualTo(Duration.ofMillis(1500));
    }

    @Test
    void open_fails_as_a_signal_when_the_dialect_cannot_be_detected() {
        ConnectionFactory unknown = new ConnectionFactory() {
            @Override
            public Publisher<io.r2dbc.spi.Connection> create() {
                throw new AssertionError("must not connect");
            }

            @Override
            public ConnectionFactoryMetadata getMetadata() {
                return () -> "SomeOtherDatabase";
            }
        };
        StepVerifier.create(R2dbcReactiveStore.open(R2dbcStoreConfig.of(unknown)))
                .expectErrorSatisfies(e -> assertThat(e)
                        .isInstanceOf(InvalidArgumentException.class)
                        .hasMessageContaining("SomeOtherDatabase"))
                .verify(Duration.ofSeconds(10));
    }

    @Test
    void open_is_the_same_cold_open_as_every_backend() {
        // given a configuration of a database that lives while the test runs, as a backend-neutral StoreConfig
        StoreConfig<? extends ReactiveStore> config = R2dbcStoreConfig.of(
                ConnectionFactories.get("r2dbc:h2:mem:///config_open_test?options=MODE=PostgreSQL;DB_CLOSE_DELAY=-1"));

        // when it is opened and used, then closed without blocking
        StepVerifier.create(config.open()
                        .flatMap(store -> store.readHead(WorkflowId.random())
                                .flatMap(head -> store.closeAsync().thenReturn(head))))
                // then it works as the store R2dbcReactiveStore.open gives
                .expectNext(0L)
                .expectComplete()
                .verify(Duration.ofSeconds(30));
    }

    @ParameterizedTest(name = "{1}")
    @CsvSource({"DB_CLOSE_DELAY=-1, REGULAR", "DB_CLOSE_DELAY=-1;MODE=MySQL, MySQL"})
    void S20_opening_an_h2_database_not_in_postgresql_mode_fails_saying_what_the_url_needs_and_writes_nothing(
            String options, String mode) {
        // given an H2 database whose URL does not ask for MODE=PostgreSQL
        ConnectionFactory h2 = ConnectionFactories.get("r2dbc:h2:mem:///no_pg_mode_" + mode + "?options=" + options);

        // when a store opens on it
        StepVerifier.create(R2dbcReactiveStore.open(R2dbcStoreConfig.of(h2)))
                // then the open fails naming the factory, the mode found and what the URL needs
                .expectErrorSatisfies(e -> assertThat(e)
                        .isInstanceOfSatisfying(
                                InvalidArgumentException.class,
                                x -> assertThat(x.argument()).isEqualTo("connectionFactory"))
                        .hasMessageContaining("in mode " + mode)
                        .hasMessageContaining("add MODE=PostgreSQL to the URL's options"))
                .verify(Duration.ofSeconds(30));
        // and not one table was created
        StepVerifier.create(Mono.usingWhen(
                        Mono.from(h2.create()),
                        c -> Flux.from(c.createStatement(
                                                "SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_SCHEMA = 'PUBLIC'")
                                        .execute())
                                .concatMap(r -> r.map((row, meta) -> row.get(0, Long.class)))
                                .single(),
                        c -> Mono.from(c.close())))
                .expectNext(0L)
                .expectComplete()
                .verify(Duration.ofSeconds(30));
    }
}
