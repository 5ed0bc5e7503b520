package dev.durablestore.cli;

import dev.durablestore.api.ReactiveStore;
import dev.durablestore.r2dbc.R2dbcStoreConfig;
import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import io.r2dbc.spi.ConnectionFactories;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.ConnectionFactoryOptions;
import io.r2dbc.spi.Option;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine.ArgGroup;

/** The store a command works on: {@code --sqlite FILE} or {@code --postgres URL [--schema NAME]}. */
final class StoreOptions {

    /** How long opening a store may take. */
    static final Duration OPEN_TIMEOUT = Duration.ofSeconds(60);

    private static final Option<String> SCHEMA = Option.valueOf("schema");

    @ArgGroup(exclusive = true, multiplicity = "1")
    Which which;

    /** One of the two backends. */
    static final class Which {
        @picocli.CommandLine.Option(
                names = "--sqlite",
                paramLabel = "FILE",
                description = "the store's SQLite file (it must exist; none is created)")
        Path sqlite;

        @picocli.CommandLine.ArgGroup(exclusive = false)
        Postgres postgres;
    }

    /** A PostgreSQL database and schema. */
    static final class Postgres {
        @picocli.CommandLine.Option(
                names = "--postgres",
                paramLabel = "URL",
                required = true,
                description =
                        "the R2DBC URL of the PostgreSQL database, e.g. r2dbc:postgresql://app:secret@db:5432/workflows")
        String url;

        @picocli.CommandLine.Option(
                names = "--schema",
                paramLabel = "NAME",
                description = "the schema the store's tables are in (the connection's search_path); default the URL's")
        String schema;
    }

    /**
     * @return the store, open; the caller closes it
     * @throws CliFailure with {@link ExitCode#UNAVAILABLE} when the SQLite file does not exist
     */
    ReactiveStore open() {
        if (which.sqlite != null) {
            return SqliteReactiveStore.open(SqliteStoreConfig.of(existingFile(which.sqlite)));
        }
        return R2dbcStoreConfig.of(postgres(which.postgres.url, which.postgres.schema))
                .withNotifications(false)
                .open()
                .block(OPEN_TIMEOUT);
    }

    /** @return the store as messages name it */
    String describe() {
        return which.sqlite != null
                ? "SQLite file " + which.sqlite.toAbsolutePath()
                : "PostgreSQL " + redacted(which.postgres.url)
                        + (which.postgres.schema == null ? "" : " schema " + which.postgres.schema);
    }

    /**
     * @param file a SQLite file
     * @return it, absolute
     * @throws CliFailure with {@link ExitCode#UNAVAILABLE} when no file is there
     */
    static Path existingFile(Path file) {
        Path absolute = file.toAbsolutePath().normalize();
        if (!Files.isRegularFile(absolute)) {
            throw new CliFailure(ExitCode.UNAVAILABLE, "no SQLite file at " + absolute + " (none was created)");
        }
        return absolute;
    }

    /**
     * @param url an R2DBC URL
     * @param schema the schema, or null for the URL's
     * @return its connection factory (no pool: a command opens few connections)
     * @throws CliFailure with {@link ExitCode#USAGE} when the URL cannot be parsed or names no
     *     driver on the class path
     */
    static ConnectionFactory postgres(String url, String schema) {
        ConnectionFactoryOptions options;
        try {
            options = ConnectionFactoryOptions.parse(url);
        } catch (IllegalArgumentException e) {
            throw new CliFailure(
                    ExitCode.USAGE, "--postgres " + redacted(url) + " is not an R2DBC URL: " + e.getMessage());
        }
        if (schema != null) {
            options = options.mutate().option(SCHEMA, schema).build();
        }
        try {
            return ConnectionFactories.get(options);
        } catch (IllegalStateException e) {
            throw new CliFailure(ExitCode.USAGE, "--postgres " + redacted(url) + ": " + e.getMessage());
        }
    }

    /** @return the URL without its password */
    static String redacted(String url) {
        return url.replaceAll("(://[^:/@]*):[^@/]*@", "$1:***@");
    }
}
