package dev.durablestore.spring.boot4;

import dev.durablestore.api.ReactiveStore;
import dev.durablestore.spring.DurableStoreAutoConfiguration;
import dev.durablestore.spring.DurableStoreBackend;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * What durable-store adds on Spring Boot 4.0 and 4.1 to the shared {@link DurableStoreAutoConfiguration}:
 * the store's Actuator health indicator ({@code management.health.durableStore.enabled}, on by
 * default when Actuator is present). Its presence on the class path is also how the shared
 * configuration knows which Boot line the application was built for.
 */
@AutoConfiguration(after = DurableStoreAutoConfiguration.class)
public class DurableStoreBoot4AutoConfiguration {

    /** Created by Spring Boot from the auto-configuration imports. */
    public DurableStoreBoot4AutoConfiguration() {}

    /** The store's Actuator health, when Actuator is on the class path. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(
            name = {
                "org.springframework.boot.health.contributor.ReactiveHealthIndicator",
                "org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator"
            })
    @ConditionalOnEnabledHealthIndicator("durableStore")
    static class Health {

        @Bean
        @ConditionalOnMissingBean(name = "durableStoreHealthIndicator")
        DurableStoreHealthIndicator durableStoreHealthIndicator(
                ReactiveStore store, ObjectProvider<DurableStoreBackend> backend) {
            return new DurableStoreHealthIndicator(store, backend.getIfAvailable());
        }
    }
}
