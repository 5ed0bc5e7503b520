package dev.durablestore.bench.pg;

import dev.durablestore.api.StoreMetrics;
import dev.durablestore.bench.Fixtures;
import dev.durablestore.r2dbc.R2dbcDialect;
import dev.durablestore.r2dbc.R2dbcReactiveStore;
import dev.durablestore.r2dbc.R2dbcStoreConfig;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.ConnectionPoolConfiguration;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactories;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Nodes of the R2DBC store on one fresh schema: each node an {@link R2dbcReactiveStore} with its
 * own connection pool, as separate processes would have. The schema is created when the nodes open
 * and dropped when they close, so runs never see each other's rows; {@link #truncate} empties it
 * between the measurements of one run.
 */
final class PgNodes implements AutoCloseable {

    private static final Duration TIMEOUT = Duration.ofMinutes(2);

    private final PgServer server;
    private final String schema;
    private final List<ConnectionPool> pools = new ArrayList<>();
    private final List<R2dbcReactiveStore> stores = new ArrayList<>();
    private int stagedCopy;

    private PgNodes(PgServer server, String schema) {
        this.server = server;
        this.schema = schema;
    }

    /**
     * Creates a fresh schema and opens {@code count} nodes on it, each pool filled before it returns.
     *
     * @param server the server
     * @param count how many nodes
     * @param poolSize connections per node (the store's {@code LISTEN} connection is extra)
     * @param synchronousCommit the sessions' {@code synchronous_commit}: {@code on} or {@code off}
     * @param metrics node 0's metrics; the others report nothing
     * @return the open nodes
     */
    static PgNodes open(PgServer server, int count, int poolSize, String synchronousCommit, StoreMetrics metrics) {
        String schema = "bench_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        server.execute("CREATE SCHEMA " + schema);
        PgNodes nodes = new PgNodes(server, schema);
        try {
            for (int i = 0; i < count; i++) {
                ConnectionPool pool = new ConnectionPool(ConnectionPoolConfiguration.builder(
                                ConnectionFactories.get(server.nodeOptions(schema, synchronousCommit)))
                        .name(schema + "_" + i)
                        .initialSize(poolSize)
                        .maxSize(poolSize)
                        .maxAcquireTime(TIMEOUT)
                        .build());
                nodes.pools.add(pool);
                pool.warmup().block(TIMEOUT);
                nodes.stores.add(R2dbcReactiveStore.open(R2dbcStoreConfig.of(pool)
                                .withDialect(R2dbcDialect.POSTGRESQL)
                                .withNotifyChannel(schema)
                                .withMetrics(i == 0 ? metrics : StoreMetrics.NONE))
                        .block(TIMEOUT));
            }
            nodes.checkSession(synchronousCommit);
            return nodes;
        } catch (RuntimeException e) {
            nodes.close();
            throw e;
        }
    }

    /** @return the stores, node 0 first */
    List<R2dbcReactiveStore> stores() {
        return stores;
    }

    /** @return the schema's name */
    String schema() {
        return schema;
    }

    /**
     * Empties the schema's tables (untimed, between measurements of one run), so the next
     * measurement starts from empty tables as on a fresh schema.
     */
    void truncate() {
        server.execute("TRUNCATE " + schema + ".events, " + schema + ".timers, " + schema + ".outbox");
    }

    /**
     * Empties the tables and stages {@code rows} pending outbox rows, {@code fanOut} per workflow
     * (untimed). The first time, and whenever more rows are asked for than before, node 0's
     * {@code appendOutboxBatch} writes them and a copy is kept in a table of its own; otherwise the
     * copy's first {@code rows} rows are inserted back by one {@code INSERT … SELECT}, so every drain of
     * a run starts from rows the store itself wrote, without paying the store's staging each time.
     *
     * @param rows how many
     * @param fanOut rows per workflow
     */
    void stage(int rows, int fanOut) {
        truncate();
        if (rows > stagedCopy) {
            Drives.stageRows(stores.get(0), Fixtures.workflows(rows / fanOut), fanOut);
            server.execute("DROP TABLE IF EXISTS " + schema + ".staged_copy");
            server.execute("CREATE TABLE " + schema + ".staged_copy AS SELECT * FROM " + schema + ".outbox");
            stagedCopy = rows;
            return;
        }
        server.execute("INSERT INTO " + schema + ".outbox SELECT * FROM " + schema + ".staged_copy "
                + "ORDER BY visible_after, dispatch_key LIMIT " + rows);
    }

    /** @return how many outbox rows the schema holds in each status */
    Map<String, Long> outboxStatusCounts() {
        Map<String, Long> counts = new TreeMap<>();
        for (List<String> row : server.query("SELECT status, count(*) FROM " + schema + ".outbox GROUP BY status")) {
            counts.put(row.get(0), Long.parseLong(row.get(1)));
        }
        return counts;
    }

    /** Checks on a pooled connection that the session has the schema and durability asked for. */
    private void checkSession(String synchronousCommit) {
        List<String> seen = Mono.usingWhen(
                        pools.get(0).create(),
                        (Connection c) -> Flux.from(c.createStatement(
                                                "SELECT current_setting('synchronous_commit'), current_schema()")
                                        .execute())
                                .concatMap(r -> r.map(
                                        (row, meta) -> List.of(String.valueOf(row.get(0)), String.valueOf(row.get(1)))))
                                .next(),
                        c -> Mono.from(c.close()))
                .block(TIMEOUT);
        if (seen == null || !seen.equals(List.of(synchronousCommit, schema))) {
            throw new IllegalStateException("a node's session has synchronous_commit and schema " + seen + ", expected "
                    + List.of(synchronousCommit, schema));
        }
    }

    /** Closes the stores, then their pools, then drops the schema. */
    @Override
    public void close() {
        stores.forEach(R2dbcReactiveStore::close);
        pools.forEach(p -> p.disposeLater().block(TIMEOUT));
        server.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }
}
