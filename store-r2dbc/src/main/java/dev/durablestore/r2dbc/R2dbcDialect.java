package dev.durablestore.r2dbc;

import dev.durablestore.api.InvalidArgumentException;
import io.r2dbc.spi.ConnectionFactory;

/**
 * The databases {@link R2dbcReactiveStore} supports. They differ only where they must: claim
 * statement, rows returned from updates, timer upsert, partial indexes and {@code LISTEN/NOTIFY}.
 */
public enum R2dbcDialect {

    /**
     * PostgreSQL 12 or newer through r2dbc-postgresql (usually behind r2dbc-pool): the production
     * backend. Claims lock due rows {@code FOR UPDATE SKIP LOCKED}, so any number of nodes can
     * claim from one outbox; wake-ups travel between nodes with {@code LISTEN/NOTIFY}.
     */
    POSTGRESQL,

    /**
     * H2 2.4.240 or newer in {@code MODE=PostgreSQL} through r2dbc-h2: an in-process test double.
     * r2dbc-h2 runs the (blocking) H2 engine on the calling thread, so the store runs every H2
     * call on threads of its own; write transactions are serialized across every store instance
     * on the database. Opening a store reads the database's mode first and refuses any other mode
     * with an {@link InvalidArgumentException} saying the URL needs {@code MODE=PostgreSQL} (for
     * example {@code r2dbc:h2:mem:///db?options=DB_CLOSE_DELAY=-1;MODE=PostgreSQL}).
     */
    H2;

    /**
     * Detects the dialect from the factory's metadata name ({@code "PostgreSQL"} or {@code "H2"};
     * r2dbc-pool reports its delegate's name).
     *
     * @param factory a connection factory
     * @return its dialect
     * @throws InvalidArgumentException when the name is neither
     */
    public static R2dbcDialect detect(ConnectionFactory factory) {
        InvalidArgumentException.requireNonNull(factory, "connectionFactory");
        String name =
                factory.getMetadata() == null ? null : factory.getMetadata().getName();
        if (name != null) {
            String lower = name.toLowerCase(java.util.Locale.ROOT);
            if (lower.contains("postgres")) {
                return POSTGRESQL;
            }
            if (lower.equals("h2")) {
                return H2;
            }
        }
        throw new InvalidArgumentException(
                "dialect",
                "cannot be detected from connection factory metadata name '" + name
                        + "'; set it with R2dbcStoreConfig.withDialect(...)");
    }
}
