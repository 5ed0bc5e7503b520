package dev.durablestore.spring;

import dev.durablestore.api.InvalidArgumentException;
import io.r2dbc.spi.ConnectionFactory;
import java.util.List;
import java.util.Locale;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.ConfigurationPropertyState;
import org.springframework.core.env.Environment;

/**
 * Applies the rule of {@link DurableStoreBackend}: which backend the starter opens, or why start-up
 * must stop. It runs when the store bean is created, once every bean definition is known, so the
 * order of the auto-configurations cannot change its answer.
 */
final class BackendChoice {

    private static final String BACKEND = DurableStoreProperties.PREFIX + ".backend";
    private static final String R2DBC_URL = "spring.r2dbc.url";

    private final DurableStoreProperties.Backend backend;
    private final String chosenBy;
    /** Null when the store opens on SQLite. */
    private final ConnectionFactory factory;

    private BackendChoice(DurableStoreProperties.Backend backend, String chosenBy, ConnectionFactory factory) {
        this.backend = backend;
        this.chosenBy = chosenBy;
        this.factory = factory;
    }

    /** @return {@link DurableStoreProperties.Backend#SQLITE} or {@link DurableStoreProperties.Backend#R2DBC} */
    DurableStoreProperties.Backend backend() {
        return backend;
    }

    /** @return the rule and the facts that chose the backend */
    String chosenBy() {
        return chosenBy;
    }

    /** @return the connection factory the store opens on; only for R2DBC */
    ConnectionFactory factory() {
        if (factory == null) {
            throw new IllegalStateException("the store opens on SQLite, not on a ConnectionFactory");
        }
        return factory;
    }

    /**
     * @param configured {@code durablestore.backend}
     * @param environment where {@code spring.r2dbc.url} and the backends' own settings are looked up
     * @param factories the context's R2DBC connection factories
     * @return the backend to open
     * @throws InvalidArgumentException naming the deciding property when the configuration contradicts
     *     the choice, or R2DBC is chosen without exactly one connection factory
     */
    static BackendChoice choose(
            DurableStoreProperties.Backend configured,
            Environment environment,
            ObjectProvider<ConnectionFactory> factories) {
        List<ConnectionFactory> all = factories.stream().toList();
        String setting = BACKEND + "=" + configured.name().toLowerCase(Locale.ROOT);
        BackendChoice choice = switch (configured) {
            case SQLITE -> new BackendChoice(DurableStoreProperties.Backend.SQLITE, setting, null);
            case R2DBC -> r2dbc(setting, factories, all.size(), "chose r2dbc");
            case AUTO ->
                all.isEmpty()
                        ? new BackendChoice(
                                DurableStoreProperties.Backend.SQLITE,
                                setting + " and no R2DBC ConnectionFactory bean",
                                null)
                        : r2dbc(setting + " and an R2DBC ConnectionFactory bean", factories, all.size(), "chose r2dbc");
        };
        choice.refuseContradictions(configured, environment);
        return choice;
    }

    private static BackendChoice r2dbc(
            String chosenBy, ObjectProvider<ConnectionFactory> factories, int count, String verb) {
        ConnectionFactory unique = factories.getIfUnique();
        if (unique == null) {
            throw new InvalidArgumentException(
                    BACKEND,
                    count == 0
                            ? "is r2dbc, but the application has no R2DBC ConnectionFactory bean: set " + R2DBC_URL
                                    + " (with Spring Boot's R2DBC support on the class path) or declare one"
                            : verb + ", but the application has " + count + " R2DBC ConnectionFactory beans: mark the "
                                    + "one for the store @Primary, or declare the ReactiveStore bean yourself");
        }
        return new BackendChoice(DurableStoreProperties.Backend.R2DBC, chosenBy, unique);
    }

    private void refuseContradictions(DurableStoreProperties.Backend configured, Environment environment) {
        if (backend == DurableStoreProperties.Backend.SQLITE) {
            String url = Binder.get(environment).bind(R2DBC_URL, String.class).orElse(null);
            if (configured == DurableStoreProperties.Backend.AUTO && url != null) {
                throw new InvalidArgumentException(
                        BACKEND,
                        "is auto and " + R2DBC_URL + " is set, but the application context has no R2DBC "
                                + "ConnectionFactory bean, so the store would open the local SQLite file instead of that "
                                + "database: put Spring Boot's R2DBC support on the class path "
                                + "(spring-boot-starter-data-r2dbc, or spring-boot-r2dbc on Spring Boot 4) so that the URL "
                                + "makes a ConnectionFactory, or set " + BACKEND
                                + "=sqlite to keep the store in the file");
            }
            refuseSettingsOfTheOther("r2dbc", environment);
        } else {
            refuseSettingsOfTheOther("sqlite", environment);
        }
    }

    private void refuseSettingsOfTheOther(String other, Environment environment) {
        ConfigurationPropertyName name = ConfigurationPropertyName.of(DurableStoreProperties.PREFIX + "." + other);
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            if (source.containsDescendantOf(name) == ConfigurationPropertyState.PRESENT) {
                String chosen = backend.name().toLowerCase(Locale.ROOT);
                throw new InvalidArgumentException(
                        BACKEND,
                        "chose " + chosen + " (" + chosenBy + "), but " + name + ".* is set, which only the " + other
                                + " backend reads: set " + BACKEND + "=" + other
                                + " to open the store there, or remove "
                                + name + ".*");
            }
        }
    }
}
