package dev.durablestore.bench.pg;

import dev.durablestore.r2dbc.internal.StoreStatements;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.ConnectionPoolConfiguration;
import io.r2dbc.postgresql.PostgresqlConnectionFactoryProvider;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactories;
import io.r2dbc.spi.ConnectionFactoryOptions;
import io.r2dbc.spi.Result;
import io.r2dbc.spi.Row;
import io.r2dbc.spi.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * r2dbc-postgresql over r2dbc-pool, as the store uses it ({@code Sql.bind}: a value bound by
 * index, a NULL with its type; a connection taken from the pool per statement and given back), with
 * the store's connection options or with tuned ones.
 */
final class R2dbcPgClient implements PgClient {

    private static final Duration TIMEOUT = Duration.ofMinutes(2);

    private final String label;
    private final ConnectionPool pool;
    private final StoreStatements.ArrayForm arrayForm;

    private R2dbcPgClient(String label, ConnectionPool pool, StoreStatements.ArrayForm arrayForm) {
        this.label = label;
        this.pool = pool;
        this.arrayForm = arrayForm;
    }

    /**
     * @param server the server
     * @param schema the schema
     * @param size connections
     * @param tuned false: the options the store's benchmarks open it with (the driver's defaults: an
     *     unbounded prepared statement cache, parameters and results in text); true: binary transfer
     *     ({@code forceBinary}), a bounded prepared statement cache of 256, and the staging arrays
     *     bound as Java arrays for the driver to encode
     * @return the client, its connections open
     */
    static R2dbcPgClient open(PgServer server, String schema, int size, boolean tuned) {
        ConnectionFactoryOptions options = server.nodeOptions(schema, "on");
        if (tuned) {
            options = options.mutate()
                    .option(PostgresqlConnectionFactoryProvider.FORCE_BINARY, true)
                    .option(PostgresqlConnectionFactoryProvider.PREPARED_STATEMENT_CACHE_QUERIES, 256)
                    .build();
        }
        ConnectionPool pool = new ConnectionPool(ConnectionPoolConfiguration.builder(ConnectionFactories.get(options))
                .name(schema + (tuned ? "_r2dbc_tuned" : "_r2dbc"))
                .initialSize(size)
                .maxSize(size)
                .maxAcquireTime(TIMEOUT)
                .build());
        pool.warmup().block(TIMEOUT);
        return new R2dbcPgClient(
                tuned
                        ? "r2dbc-postgresql tuned (forceBinary, 256 cached prepared statements, arrays bound as Java arrays), r2dbc-pool of "
                                + size
                        : "r2dbc-postgresql as the store uses it (driver defaults), r2dbc-pool of " + size,
                pool,
                tuned ? StoreStatements.ArrayForm.JAVA : StoreStatements.ArrayForm.LITERAL);
    }

    @Override
    public StoreStatements.ArrayForm arrayForm() {
        return arrayForm;
    }

    @Override
    public String label() {
        return label;
    }

    @Override
    public Mono<List<ClaimedRow>> claim(StoreStatements.Bound claim) {
        return Mono.usingWhen(
                pool.create(),
                c -> Flux.from(statement(c, claim).execute())
                        .concatMap(r -> r.map((row, meta) -> read(row)))
                        .filter(Optional::isPresent)
                        .map(Optional::get)
                        .collectList(),
                Connection::close);
    }

    private static Optional<ClaimedRow> read(Row row) {
        Long nextDue = row.get(StoreStatements.CLAIMED_COLUMN_COUNT, Long.class);
        String key = row.get(0, String.class);
        if (key == null) {
            return Optional.empty();
        }
        return Optional.of(new ClaimedRow(
                key,
                row.get(1, String.class),
                row.get(2, Long.class),
                row.get(3, String.class),
                row.get(4, String.class),
                row.get(5, String.class),
                row.get(6, String.class),
                row.get(7, String.class),
                row.get(8, String.class),
                row.get(9, Long.class),
                row.get(10, Long.class),
                row.get(11, String.class),
                row.get(12, Integer.class),
                row.get(13, String.class),
                nextDue));
    }

    @Override
    public Mono<List<String>> keys(StoreStatements.Bound statement) {
        return Mono.usingWhen(
                pool.create(),
                c -> Flux.from(statement(c, statement).execute())
                        .concatMap(r -> r.map((row, meta) -> row.get(0, String.class)))
                        .collectList(),
                Connection::close);
    }

    @Override
    public Mono<Long> update(StoreStatements.Bound update) {
        return Mono.usingWhen(
                pool.create(),
                c -> Flux.from(statement(c, update).execute())
                        .concatMap(Result::getRowsUpdated)
                        .reduce(0L, Long::sum),
                Connection::close);
    }

    private static Statement statement(Connection c, StoreStatements.Bound bound) {
        Statement s = c.createStatement(bound.sql());
        Object[] values = bound.values();
        for (int i = 0; i < values.length; i++) {
            if (values[i] instanceof StoreStatements.Null n) {
                s.bindNull(i, n.type());
            } else {
                s.bind(i, values[i]);
            }
        }
        return s;
    }

    @Override
    public void close() {
        pool.disposeLater().block(TIMEOUT);
    }
}
