package dev.durablestore.spring;

import dev.durablestore.api.ReactiveStore;
import dev.durablestore.micrometer.observation.ObservedStore;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * Wraps the application's {@link ReactiveStore} beans in an {@link ObservedStore} reporting to its
 * {@link ObservationRegistry}, when {@code durablestore.observations.enabled=true}. The registry is
 * looked up when the store is created, not when this post-processor is.
 */
final class ObservedStorePostProcessor implements BeanPostProcessor {

    private final ObjectProvider<ObservationRegistry> registry;

    ObservedStorePostProcessor(ObjectProvider<ObservationRegistry> registry) {
        this.registry = registry;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof ReactiveStore store && !(bean instanceof ObservedStore)) {
            ObservationRegistry observations = registry.getIfUnique();
            return observations == null ? bean : ObservedStore.wrap(store, observations);
        }
        return bean;
    }
}
