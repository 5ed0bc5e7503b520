package dev.durablestore.bench.pg;

import dev.durablestore.r2dbc.internal.StoreStatements;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.PoolOptions;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.Tuple;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import reactor.core.publisher.Mono;

/**
 * The Vert.x reactive PostgreSQL client ({@code vertx-pg-client}): a pipelined client over a pool
 * ({@code PgBuilder.client()}, up to {@value #PIPELINING} statements in flight per connection),
 * the prepared statements cached per connection; its futures turned into {@link Mono}s. A NULL is
 * sent untyped (the server's inferred type).
 */
final class VertxPgClient implements PgClient {

    /** Statements in flight per connection. */
    static final int PIPELINING = 256;

    private static final Duration TIMEOUT = Duration.ofMinutes(2);

    private final Vertx vertx;
    private final SqlClient client;
    private final String label;

    private VertxPgClient(Vertx vertx, SqlClient client, String label) {
        this.vertx = vertx;
        this.client = client;
        this.label = label;
    }

    /**
     * @param server the server
     * @param schema the schema
     * @param size connections
     * @param eventLoops the Vert.x event loop threads
     * @return the client (it connects on first use)
     */
    static VertxPgClient open(PgServer server, String schema, int size, int eventLoops) {
        PgServer.Endpoint at = server.endpoint();
        PgConnectOptions connect = new PgConnectOptions()
                .setHost(at.host())
                .setPort(at.port())
                .setDatabase(at.database())
                .setUser(at.user())
                .setCachePreparedStatements(true)
                .setPreparedStatementCacheMaxSize(256)
                .setPipeliningLimit(PIPELINING)
                .setProperties(Map.of("search_path", schema, "synchronous_commit", "on"));
        if (at.password() != null) {
            connect.setPassword(at.password());
        }
        Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(eventLoops));
        SqlClient client = PgBuilder.client()
                .with(new PoolOptions().setMaxSize(size))
                .connectingTo(connect)
                .using(vertx)
                .build();
        return new VertxPgClient(
                vertx,
                client,
                "Vert.x pg client 5.0.7 (pipelined, " + PIPELINING + " per connection, prepared statements cached), "
                        + size + " connections, " + eventLoops + " event loops");
    }

    @Override
    public StoreStatements.ArrayForm arrayForm() {
        return StoreStatements.ArrayForm.JAVA;
    }

    @Override
    public String label() {
        return label;
    }

    @Override
    public Mono<List<ClaimedRow>> claim(StoreStatements.Bound claim) {
        return execute(claim).map(rows -> {
            List<ClaimedRow> claimed = new ArrayList<>(rows.size());
            for (Row row : rows) {
                Long nextDue = row.getLong(StoreStatements.CLAIMED_COLUMN_COUNT);
                String key = row.getString(0);
                if (key == null) {
                    continue;
                }
                claimed.add(new ClaimedRow(
                        key,
                        row.getString(1),
                        row.getLong(2),
                        row.getString(3),
                        row.getString(4),
                        row.getString(5),
                        row.getString(6),
                        row.getString(7),
                        row.getString(8),
                        row.getLong(9),
                        row.getLong(10),
                        row.getString(11),
                        row.getInteger(12),
                        row.getString(13),
                        nextDue));
            }
            return claimed;
        });
    }

    @Override
    public Mono<List<String>> keys(StoreStatements.Bound statement) {
        return execute(statement).map(rows -> {
            List<String> keys = new ArrayList<>(rows.size());
            for (Row row : rows) {
                keys.add(row.getString(0));
            }
            return keys;
        });
    }

    @Override
    public Mono<Long> update(StoreStatements.Bound update) {
        return execute(update).map(rows -> (long) rows.rowCount());
    }

    private Mono<RowSet<Row>> execute(StoreStatements.Bound bound) {
        return Mono.fromCompletionStage(() -> {
            Object[] values = bound.values();
            Tuple tuple = Tuple.tuple();
            for (Object v : values) {
                tuple.addValue(v instanceof StoreStatements.Null ? null : v);
            }
            return client.preparedQuery(bound.sql()).execute(tuple).toCompletionStage();
        });
    }

    @Override
    public void close() {
        try {
            client.close().toCompletionStage().toCompletableFuture().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            vertx.close().toCompletionStage().toCompletableFuture().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("cannot close the Vert.x client: " + e, e);
        }
    }
}
