package dev.durablestore.spring;

import io.r2dbc.spi.ConnectionFactory;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.ConfigurationCondition;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Decides which backend the starter opens: {@code durablestore.backend} when it names one, else
 * R2DBC when the context holds a {@link ConnectionFactory} bean (the application's own, or Spring
 * Boot's from {@code spring.r2dbc.url}) and SQLite otherwise. Evaluated when beans are registered,
 * after Spring Boot's R2DBC auto-configuration.
 */
abstract class BackendCondition extends SpringBootCondition implements ConfigurationCondition {

    private final DurableStoreProperties.Backend wanted;

    BackendCondition(DurableStoreProperties.Backend wanted) {
        this.wanted = wanted;
    }

    @Override
    public ConfigurationPhase getConfigurationPhase() {
        return ConfigurationPhase.REGISTER_BEAN;
    }

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        DurableStoreProperties.Backend configured = Binder.get(context.getEnvironment())
                .bind(DurableStoreProperties.PREFIX + ".backend", DurableStoreProperties.Backend.class)
                .orElse(DurableStoreProperties.Backend.AUTO);
        DurableStoreProperties.Backend chosen = configured;
        String why =
                DurableStoreProperties.PREFIX + ".backend=" + configured.name().toLowerCase();
        if (configured == DurableStoreProperties.Backend.AUTO) {
            ConfigurableListableBeanFactory beans = context.getBeanFactory();
            boolean r2dbc = beans != null && beans.getBeanNamesForType(ConnectionFactory.class, true, false).length > 0;
            chosen = r2dbc ? DurableStoreProperties.Backend.R2DBC : DurableStoreProperties.Backend.SQLITE;
            why += (r2dbc ? " and an R2DBC ConnectionFactory bean" : " and no R2DBC ConnectionFactory bean");
        }
        return chosen == wanted ? ConditionOutcome.match(why) : ConditionOutcome.noMatch(why);
    }

    /** Matches when the store is the embedded SQLite file. */
    static final class Sqlite extends BackendCondition {
        Sqlite() {
            super(DurableStoreProperties.Backend.SQLITE);
        }
    }

    /** Matches when the store is on the application's R2DBC {@code ConnectionFactory}. */
    static final class R2dbc extends BackendCondition {
        R2dbc() {
            super(DurableStoreProperties.Backend.R2DBC);
        }
    }
}
