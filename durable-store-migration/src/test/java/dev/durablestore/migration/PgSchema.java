package dev.durablestore.migration;

import com.google.errorprone.annotations.CanIgnoreReturnValue;
import dev.durablestore.r2dbc.PostgresServer;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.ConnectionPoolConfiguration;
import io.r2dbc.spi.ConnectionFactories;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.Option;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A fresh schema of the tests' PostgreSQL server ({@link PostgresServer}), the search path of its
 * pool; dropped on {@link #close}.
 */
final class PgSchema implements AutoCloseable {

    private static final Option<String> SCHEMA = Option.valueOf("schema");
    private static final AtomicInteger SCHEMAS = new AtomicInteger();
    private static final Duration WAIT = Duration.ofSeconds(30);

    private final String name;
    private final ConnectionPool pool;

    PgSchema() {
        this.name = "migration_" + SCHEMAS.incrementAndGet() + "_"
                + ProcessHandle.current().pid();
        execute(PostgresServer.admin(), "CREATE SCHEMA " + name);
        this.pool = new ConnectionPool(ConnectionPoolConfiguration.builder(ConnectionFactories.get(
                        PostgresServer.options().mutate().option(SCHEMA, name).build()))
                .initialSize(0)
                .maxSize(4)
                .build());
    }

    /** @return the pool, whose connections use this schema */
    ConnectionFactory factory() {
        return pool;
    }

    /** @return the schema's name */
    String name() {
        return name;
    }

    /**
     * @param sql a statement, run in this schema
     * @return the rows it updated
     */
    @CanIgnoreReturnValue
    long execute(String sql) {
        return execute(pool, sql);
    }

    /**
     * @param sql a query of one long, run in this schema
     * @return its value
     */
    long queryLong(String sql) {
        return readLong(sql).block(WAIT);
    }

    /**
     * @param sql a query of one long, run in this schema
     * @return a cold Mono of its value
     */
    Mono<Long> readLong(String sql) {
        return Mono.usingWhen(
                pool.create(),
                c -> Flux.from(c.createStatement(sql).execute())
                        .concatMap(r -> r.map(row -> row.get(0, Long.class)))
                        .next(),
                c -> c.close());
    }

    /**
     * @param sql a query of one text column, run in this schema
     * @return its values
     */
    List<String> queryStrings(String sql) {
        return Mono.usingWhen(
                        pool.create(),
                        c -> Flux.from(c.createStatement(sql).execute())
                                .concatMap(r -> r.map(row -> row.get(0, String.class)))
                                .collectList(),
                        c -> c.close())
                .block(WAIT);
    }

    @CanIgnoreReturnValue
    private static long execute(ConnectionFactory factory, String sql) {
        return Mono.usingWhen(
                        Mono.from(factory.create()),
                        c -> Flux.from(c.createStatement(sql).execute())
                                .concatMap(r -> r.getRowsUpdated())
                                .reduce(0L, Long::sum),
                        c -> c.close())
                .block(WAIT);
    }

    @Override
    public void close() {
        pool.dispose();
        execute(PostgresServer.admin(), "DROP SCHEMA " + name + " CASCADE");
    }
}
