package dev.durablestore.examples.webflux;

import dev.durablestore.api.OutboxLeaseReaper;
import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.Disposable;

/**
 * The store as a Spring bean, with the clock it reads {@code now} from and the lease reaper that
 * runs beside it. Spring closes them in reverse order on shutdown: the reaper stops, then
 * {@link SqliteReactiveStore#close()} lets queued writes finish and releases the file.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ExampleProperties.class)
public class StoreConfiguration {

    private static final Logger log = LoggerFactory.getLogger(StoreConfiguration.class);

    /**
     * @return the clock of the store and of the service (record times, visibility); a test may
     *     replace it with a settable one
     */
    @Bean
    public Clock clock() {
        return Clock.systemUTC();
    }

    /**
     * @param properties where the database file is
     * @param clock the clock the store reads {@code now} from
     * @return the open store, closed when the application context closes
     */
    @Bean(destroyMethod = "close")
    public SqliteReactiveStore store(ExampleProperties properties, Clock clock) {
        log.info("opening the store on {}", properties.db().toAbsolutePath());
        return SqliteReactiveStore.open(SqliteStoreConfig.of(properties.db()).withClock(clock));
    }

    /**
     * @param store the outbox to watch
     * @param properties the lease and the sweep interval
     * @param clock the store's clock
     * @return the running reaper, disposed when the application context closes (before the store)
     */
    @Bean(destroyMethod = "dispose")
    public Disposable leaseReaper(SqliteReactiveStore store, ExampleProperties properties, Clock clock) {
        return OutboxLeaseReaper.of(store)
                .lease(properties.lease())
                .interval(properties.reaperInterval())
                .clock(clock)
                .onReaped(rows -> log.warn("re-armed {} rows whose claim outlived the lease", rows.size()))
                .onError(e -> log.warn("a lease reaper sweep failed", e))
                .start();
    }
}
