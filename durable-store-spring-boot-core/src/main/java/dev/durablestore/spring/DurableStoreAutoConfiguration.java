package dev.durablestore.spring;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.RetentionSweeper;
import dev.durablestore.api.StoreMetrics;
import dev.durablestore.console.ConsoleAuthorizer;
import dev.durablestore.console.ConsoleOptions;
import dev.durablestore.console.DurableConsole;
import dev.durablestore.console.TrafficMeter;
import dev.durablestore.micrometer.MicrometerStoreMetrics;
import dev.durablestore.micrometer.observation.ClaimLinksObservationHandler;
import dev.durablestore.micrometer.observation.StoreObservations;
import dev.durablestore.r2dbc.R2dbcReactiveStore;
import dev.durablestore.r2dbc.R2dbcStoreConfig;
import dev.durablestore.sqlite.SqliteReactiveStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Clock;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.Disposables;

/**
 * Auto-configuration of durable-store, shared by the Spring Boot 3.5 and 4 starters: the
 * {@link ReactiveStore} on the backend {@link DurableStoreBackend} describes (embedded SQLite by
 * default, the application's R2DBC {@link ConnectionFactory} when there is one or
 * {@code durablestore.backend=r2dbc}), the lease reaper, a dispatcher when the application declares
 * an {@link OutboxDispatchHandler}, Micrometer metrics and observations when those libraries are
 * present, and the operator console when asked for. Each starter adds its line's Actuator health
 * indicator. Every bean backs off when the application declares its own (by type for the store and
 * the metrics, by name for {@code durableStoreLeaseReaper}, {@code durableStoreDispatcher} and
 * {@code durableStoreHealthIndicator}).
 *
 * <p>Start-up fails when the running Spring Boot line is not the one of the starter on the class
 * path, naming the artifact to use, and when the configuration contradicts the backend chosen (see
 * {@link DurableStoreBackend}). The chosen backend is logged once, at INFO.
 *
 * <p>The store reads {@code now} from the application's {@link Clock} bean when it has one, the UTC
 * system clock otherwise. It is closed when the context closes, after every lifecycle bean has
 * stopped and before the connection pool it uses. With {@code durablestore.observations.enabled=true}
 * every {@link ReactiveStore} bean is wrapped in an
 * {@link dev.durablestore.micrometer.observation.ObservedStore}: inject it as {@code ReactiveStore}; when
 * the application also traces (a Micrometer Tracing {@code Tracer} and {@code Propagator}), a
 * {@link ClaimLinksObservationHandler} links each claim's span to its rows' staging contexts.
 */
@AutoConfiguration(
        afterName = {
            // Spring Boot 4
            "org.springframework.boot.r2dbc.autoconfigure.R2dbcAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration",
            "org.springframework.boot.micrometer.tracing.autoconfigure.MicrometerTracingAutoConfiguration",
            // Spring Boot 3.5
            "org.springframework.boot.autoconfigure.r2dbc.R2dbcAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.observation.ObservationAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.tracing.MicrometerTracingAutoConfiguration"
        })
@EnableConfigurationProperties(DurableStoreProperties.class)
public class DurableStoreAutoConfiguration {

    private static final Logger log = LoggerFactory.getLogger(DurableStoreAutoConfiguration.class);

    /** Spring Boot's limit on each shutdown phase, the dispatcher's drain included. */
    private static final String SHUTDOWN_PHASE_TIMEOUT = "spring.lifecycle.timeout-per-shutdown-phase";

    /**
     * Before Spring Boot's receiver tracing handler (order 1000 on both lines), whose sender
     * counterpart would otherwise make the claims' spans.
     */
    private static final int CLAIM_LINKS_ORDER = 900;

    /** Created by Spring Boot from the auto-configuration imports. */
    public DurableStoreAutoConfiguration() {}

    /**
     * @return a check, run before any bean is created, that the starter on the class path is the one
     *     of the running Spring Boot line
     */
    @Bean
    static BeanFactoryPostProcessor durableStoreBootLineCheck() {
        return beans -> BootLine.check(beans.getBeanClassLoader());
    }

    private static Clock clock(ObjectProvider<Clock> clock) {
        return clock.getIfAvailable(Clock::systemUTC);
    }

    private static StoreMetrics metrics(ObjectProvider<StoreMetrics> metrics) {
        return metrics.getIfAvailable(() -> StoreMetrics.NONE);
    }

    /** The store the starter opens, when the application declares none. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingBean(ReactiveStore.class)
    static class Store {

        @Bean
        DurableStoreBackend durableStoreBackend(
                DurableStoreProperties properties,
                Environment environment,
                ObjectProvider<ConnectionFactory> factories) {
            BackendChoice choice = BackendChoice.choose(properties.getBackend(), environment, factories);
            String database = choice.backend() == DurableStoreProperties.Backend.SQLITE
                    ? properties.getSqlite().getPath().toAbsolutePath().toString()
                    : choice.factory().getMetadata().getName();
            return new DurableStoreBackend(choice.backend(), database, choice.chosenBy());
        }

        @Bean(destroyMethod = "close")
        ReactiveStore durableStore(
                DurableStoreBackend durableStoreBackend,
                DurableStoreProperties properties,
                ObjectProvider<ConnectionFactory> factories,
                ObjectProvider<Clock> clock,
                ObjectProvider<StoreMetrics> metrics) {
            log.info("opening durable-store: {}", durableStoreBackend);
            return switch (durableStoreBackend.backend()) {
                case SQLITE -> openSqlite(properties.getSqlite(), clock(clock), metrics(metrics));
                case R2DBC -> openR2dbc(factories.getObject(), properties.getR2dbc(), clock(clock), metrics(metrics));
                case AUTO -> throw new IllegalStateException("a chosen backend is never auto");
            };
        }

        private static ReactiveStore openSqlite(
                DurableStoreProperties.Sqlite sqlite, Clock clock, StoreMetrics metrics) {
            return SqliteReactiveStore.open(sqlite.config(null).withClock(clock).withMetrics(metrics));
        }

        private static ReactiveStore openR2dbc(
                ConnectionFactory connections, DurableStoreProperties.R2dbc r2dbc, Clock clock, StoreMetrics metrics) {
            R2dbcStoreConfig config =
                    r2dbc.config(connections, null).withClock(clock).withMetrics(metrics);
            if ("H2".equals(connections.getMetadata().getName())) {
                log.warn(
                        "durable-store runs on H2, the in-process test double: an in-memory H2 database (such as "
                                + "the one Spring Boot creates when r2dbc-h2 is on the class path) loses every workflow on "
                                + "restart; set {}.backend=sqlite or spring.r2dbc.url for production",
                        DurableStoreProperties.PREFIX);
            }
            // start-up runs on the main thread, where waiting for the schema check is what it is for
            return R2dbcReactiveStore.open(config)
                    .block(r2dbc.getOperationTimeout().multipliedBy(2));
        }
    }

    /** The store's meters, in the application's {@link MeterRegistry}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterRegistry.class)
    @ConditionalOnBean(MeterRegistry.class)
    @ConditionalOnProperty(prefix = DurableStoreProperties.PREFIX + ".metrics", name = "enabled", matchIfMissing = true)
    static class Metrics {

        @Bean
        @ConditionalOnMissingBean(StoreMetrics.class)
        StoreMetrics durableStoreMetrics(MeterRegistry registry, DurableStoreProperties properties) {
            return new MicrometerStoreMetrics(registry, properties.getMetrics().getStoreName());
        }
    }

    /** The store's observations ({@code durablestore.observations.enabled=true}). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(ObservationRegistry.class)
    @ConditionalOnProperty(prefix = DurableStoreProperties.PREFIX + ".observations", name = "enabled")
    static class Observations {

        @Bean
        static BeanPostProcessor durableStoreObservations(ObjectProvider<ObservationRegistry> registry) {
            return new ObservedStorePostProcessor(registry);
        }

        @Bean
        DispatchObserver durableStoreDispatchObserver(ObjectProvider<ObservationRegistry> registry) {
            ObservationRegistry observations = registry.getIfUnique();
            if (observations == null) {
                log.warn(
                        "{}.observations.enabled is true but the application has no single ObservationRegistry "
                                + "bean: nothing is observed",
                        DurableStoreProperties.PREFIX);
                return DispatchObserver.NONE;
            }
            return (row, work) -> StoreObservations.dispatch(observations, row, work);
        }

        /**
         * Claim spans that link to their rows' staging contexts, when the application traces
         * (Micrometer Tracing with a bridge: a {@link Tracer} and a {@link Propagator} bean; Spring
         * Boot's no-op tracer comes without a propagator). Spring Boot puts it in the group of
         * tracing handlers, where the first that supports an observation handles it: it is ordered
         * before Spring Boot's own (receiver 1000, sender 2000, default last), of which the sender
         * handler would otherwise make the claims' spans.
         */
        @Configuration(proxyBeanMethods = false)
        @ConditionalOnClass(
                name = {"io.micrometer.tracing.Tracer", "io.micrometer.tracing.handler.TracingObservationHandler"})
        @ConditionalOnBean({Tracer.class, Propagator.class})
        static class ClaimLinks {

            @Bean
            @Order(CLAIM_LINKS_ORDER)
            @ConditionalOnMissingBean
            ClaimLinksObservationHandler durableStoreClaimLinks(Tracer tracer) {
                return new ClaimLinksObservationHandler(tracer);
            }
        }
    }

    /**
     * The operator console ({@code durablestore.console.enabled=true}, in a reactive web application):
     * a {@link TrafficMeter} around the store for live rates and the console's routes under
     * {@code durablestore.console.path}, on the application's own server. The lease is the reaper's.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({RouterFunction.class, DurableConsole.class})
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
    @ConditionalOnProperty(prefix = DurableStoreProperties.PREFIX + ".console", name = "enabled")
    static class Console {

        @Bean
        static TrafficMeter durableStoreTrafficMeter() {
            return new TrafficMeter();
        }

        @Bean
        static BeanPostProcessor durableStoreTrafficMeterWrapper(ObjectProvider<TrafficMeter> meter) {
            return new BeanPostProcessor() {
                @Override
                public Object postProcessAfterInitialization(Object bean, String beanName) {
                    return bean instanceof ReactiveStore store
                            ? meter.getObject().wrap(store)
                            : bean;
                }
            };
        }

        @Bean
        @ConditionalOnMissingBean(name = "durableStoreConsole")
        DurableConsole durableStoreConsoleInstance(
                ReactiveStore store,
                DurableStoreProperties properties,
                TrafficMeter meter,
                ObjectProvider<ConsoleAuthorizer> authorizer,
                ObjectProvider<Clock> clock) {
            DurableStoreProperties.Console c = properties.getConsole();
            // the sweeper's policy, from the same settings, so the backlog shown is the one it works off
            ConsoleOptions options = c.options(null)
                    .withLease(properties.getReaper().getLease())
                    .withRetention(properties.getRetention().policy(null));
            ConsoleAuthorizer hook = authorizer.getIfUnique();
            if (!c.isReadOnly() && hook == null) {
                throw new InvalidArgumentException(
                        DurableStoreProperties.PREFIX + ".console.read-only",
                        "is false, but the application has no single ConsoleAuthorizer bean: declare one to decide "
                                + "who may redrive, release and cancel");
            }
            return DurableConsole.builder(store)
                    .withOptions(options)
                    .withAuthorizer(hook)
                    .withMeter(meter)
                    .withClock(clock(clock))
                    .build();
        }

        @Bean
        @ConditionalOnMissingBean(name = "durableStoreConsole")
        RouterFunction<ServerResponse> durableStoreConsole(
                DurableConsole durableStoreConsoleInstance, DurableStoreProperties properties) {
            DurableStoreProperties.Console c = properties.getConsole();
            log.info(
                    "mounting the durable-store console at {} ({})",
                    c.getPath(),
                    c.isReadOnly() ? "read-only" : "actions through the application's ConsoleAuthorizer");
            return durableStoreConsoleInstance.router(c.getPath());
        }

        /** Ends the console's live streams before the web server's graceful shutdown waits for them. */
        @Bean
        @ConditionalOnBean(name = "durableStoreConsoleInstance")
        SmartLifecycle durableStoreConsoleStreams(DurableConsole durableStoreConsoleInstance) {
            return new ConsoleStreamsLifecycle(durableStoreConsoleInstance);
        }
    }

    /**
     * @param store the store whose claims it watches
     * @param properties the lease, interval and batch size
     * @param clock the application's clock, if any
     * @return the lease reaper, as a lifecycle bean
     */
    @Bean
    @ConditionalOnMissingBean(name = "durableStoreLeaseReaper")
    @ConditionalOnProperty(prefix = DurableStoreProperties.PREFIX + ".reaper", name = "enabled", matchIfMissing = true)
    SmartLifecycle durableStoreLeaseReaper(
            ReactiveStore store, DurableStoreProperties properties, ObjectProvider<Clock> clock) {
        DurableStoreProperties.Reaper reaper = properties.getReaper();
        return new SweeperLifecycle(reaper.reaper(store, null)
                .withClock(clock(clock))
                .withOnReaped(rows -> log.warn(
                        "re-armed {} outbox rows whose claim outlived the {} lease", rows.size(), reaper.getLease()))
                .withOnError(e -> log.warn("a lease reaper sweep failed", e))::start);
    }

    /**
     * Logs at start-up, in one line, whether retention is on and its values; when
     * {@code durablestore.retention.closed-for} is set, runs a {@link RetentionSweeper} while the
     * context runs (disposed on shutdown, before the store closes). Off by default: closed
     * workflows are kept (docs/operations.md, "Why off by default").
     *
     * @param store the store to sweep
     * @param properties the retention settings
     * @param clock the application's clock, if any
     * @param metrics where the sweeps and the backlog are reported
     * @return the sweeper, as a lifecycle bean (one that only logs when retention is off)
     */
    @Bean
    @ConditionalOnMissingBean(name = "durableStoreRetentionSweeper")
    SmartLifecycle durableStoreRetentionSweeper(
            ReactiveStore store,
            DurableStoreProperties properties,
            ObjectProvider<Clock> clock,
            ObjectProvider<StoreMetrics> metrics) {
        DurableStoreProperties.Retention retention = properties.getRetention();
        RetentionSweeper sweeper = retention.sweeper(store, retention.policy(null), null);
        if (sweeper == null) {
            return new SweeperLifecycle(() -> {
                log.info("durable-store retention is off: closed workflows are kept"
                        + " (set durablestore.retention.closed-for to delete them)");
                return Disposables.disposed();
            });
        }
        RetentionSweeper configured = sweeper.withClock(clock(clock)).withMetrics(metrics(metrics));
        return new SweeperLifecycle(() -> {
            log.info(
                    "durable-store retention is on: {}, every {}, {} closed workflows per step",
                    retention.describe(),
                    retention.getInterval(),
                    retention.getBatchSize());
            return configured.start();
        });
    }

    /**
     * @param store the store to claim from
     * @param handler the application's handler
     * @param properties the route, concurrency, retries and drain timeout
     * @param clock the application's clock, if any
     * @param observer observes each dispatch when observations are on
     * @param environment where Spring's shutdown phase timeout is read, to check the drain timeout
     *     fits in it
     * @return the dispatcher, as a lifecycle bean
     */
    @Bean
    @ConditionalOnSingleCandidate(OutboxDispatchHandler.class)
    @ConditionalOnMissingBean(name = "durableStoreDispatcher")
    @ConditionalOnProperty(
            prefix = DurableStoreProperties.PREFIX + ".dispatcher",
            name = "enabled",
            matchIfMissing = true)
    SmartLifecycle durableStoreDispatcher(
            ReactiveStore store,
            OutboxDispatchHandler handler,
            DurableStoreProperties properties,
            ObjectProvider<Clock> clock,
            ObjectProvider<DispatchObserver> observer,
            Environment environment) {
        Duration drain = properties.getDispatcher().getDrainTimeout();
        Duration phase = Binder.get(environment)
                .bind(SHUTDOWN_PHASE_TIMEOUT, Duration.class)
                .orElse(Duration.ofSeconds(30));
        if (drain.plus(DispatcherLifecycle.RELEASE_TIMEOUT).plusSeconds(1).compareTo(phase) > 0) {
            throw new InvalidArgumentException(
                    DurableStoreProperties.PREFIX + ".dispatcher.drain-timeout",
                    "(" + drain + ") plus the " + DispatcherLifecycle.RELEASE_TIMEOUT.toSeconds()
                            + " s release of stuck "
                            + "rows must end before " + SHUTDOWN_PHASE_TIMEOUT + " (" + phase + "), or the store "
                            + "closes while stuck rows are being released: shorten the one or lengthen the other");
        }
        return new DispatcherLifecycle(
                store,
                handler,
                properties.getDispatcher(),
                properties.getDispatcher().claimStreamOptions(null),
                clock(clock),
                observer.getIfAvailable(() -> DispatchObserver.NONE));
    }
}
