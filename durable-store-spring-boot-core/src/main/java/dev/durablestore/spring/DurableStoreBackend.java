package dev.durablestore.spring;

import dev.durablestore.api.InvalidArgumentException;

/**
 * The backend the starter opened the store on, and why: logged when the application starts and shown
 * in the store's health details ({@code backend}, {@code database}, {@code chosenBy}). The starter
 * registers it as the bean {@code durableStoreBackend} beside the store it opens; an application
 * that declares its own {@code ReactiveStore} has none.
 *
 * <p>The rule, in order:
 * <ol>
 *   <li>{@code durablestore.backend=sqlite} or {@code r2dbc} decides;
 *   <li>{@code durablestore.backend=auto} (the default) chooses R2DBC when the application context holds
 *       an R2DBC {@code ConnectionFactory} bean (the application's own, or the one Spring Boot makes from
 *       {@code spring.r2dbc.url}), the embedded SQLite file otherwise.
 * </ol>
 * Start-up fails instead of choosing when the configuration says otherwise: {@code spring.r2dbc.url} is
 * set but the context has no {@code ConnectionFactory} (the starter would open a local file while the
 * application is configured for a database server), or the settings of the backend not chosen are set
 * ({@code durablestore.sqlite.*} with R2DBC chosen, {@code durablestore.r2dbc.*} with SQLite chosen).
 *
 * @param backend {@link DurableStoreProperties.Backend#SQLITE} or {@link DurableStoreProperties.Backend#R2DBC}
 * @param database the SQLite file's absolute path, or the R2DBC database's product name
 * @param chosenBy the rule and the facts that chose the backend, for example
 *     {@code durablestore.backend=auto and an R2DBC ConnectionFactory bean}
 */
public record DurableStoreBackend(DurableStoreProperties.Backend backend, String database, String chosenBy) {

    /** Checks that the backend is a real one and every part is present. */
    public DurableStoreBackend {
        InvalidArgumentException.requireNonNull(backend, "backend");
        InvalidArgumentException.requireNonNull(database, "database");
        InvalidArgumentException.requireNonNull(chosenBy, "chosenBy");
        if (backend == DurableStoreProperties.Backend.AUTO) {
            throw new InvalidArgumentException("backend", "must be sqlite or r2dbc, was auto");
        }
    }

    /** @return one line for the start-up log: the backend, its database and why it was chosen */
    @Override
    public String toString() {
        return backend.name().toLowerCase(java.util.Locale.ROOT) + " on " + database + " (chosen by " + chosenBy + ")";
    }
}
