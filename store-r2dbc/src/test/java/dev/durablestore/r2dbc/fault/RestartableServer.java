package dev.durablestore.r2dbc.fault;

import io.r2dbc.spi.ConnectionFactoryOptions;
import io.r2dbc.spi.Option;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * An embedded PostgreSQL of the fault tests' own, which a test may stop and start again: same
 * loopback port, same data directory, so what was committed before the stop is there after the
 * start. Not the shared {@code PostgresServer}, so the other test classes never see it go away.
 *
 * <p>{@code synchronous_commit} stays on (the shared server turns it off for speed): with it off a
 * commit is acknowledged before its WAL record leaves the server's memory, and the tests check that
 * acknowledged commits survive a restart. {@code fsync} stays off: the machine does not crash, only
 * the server stops. The stop is PostgreSQL's fast shutdown ({@code pg_ctl stop -m fast}): every
 * session is terminated, open transactions are rolled back, the socket closes.
 */
final class RestartableServer implements AutoCloseable {

    private final int port;
    private final File dataDirectory;
    private EmbeddedPostgres server;

    private RestartableServer(int port, File dataDirectory) {
        this.port = port;
        this.dataDirectory = dataDirectory;
    }

    /** @return a started server on a free loopback port and a fresh data directory under {@code target/} */
    static RestartableServer start() {
        File dir = Path.of("target", "pg-fault-" + ProcessHandle.current().pid() + "-" + System.nanoTime())
                .toAbsolutePath()
                .toFile();
        RestartableServer s = new RestartableServer(Loopback.freePort(), dir);
        s.startAgain();
        return s;
    }

    int port() {
        return port;
    }

    /**
     * @param host where the client connects: this server's port, or a proxy's
     * @param port the port there
     * @param applicationName shows in {@code pg_stat_activity}, to find the store's sessions
     * @return R2DBC options for the {@code postgres} database
     */
    static ConnectionFactoryOptions options(int port, String applicationName) {
        return ConnectionFactoryOptions.parse(
                        "r2dbc:postgresql://postgres@" + Loopback.ADDRESS.getHostAddress() + ":" + port + "/postgres")
                .mutate()
                .option(Option.valueOf("autodetectExtensions"), false)
                .option(Option.valueOf("applicationName"), applicationName)
                .build();
    }

    /** Starts the server on its port and data directory (initialised on the first start). */
    synchronized void startAgain() {
        if (server != null) {
            throw new IllegalStateException("already running");
        }
        try {
            server = EmbeddedPostgres.builder()
                    .setPort(port)
                    .setDataDirectory(dataDirectory)
                    .setCleanDataDirectory(false)
                    .setServerConfig("listen_addresses", Loopback.ADDRESS.getHostAddress())
                    .setServerConfig("fsync", "off")
                    .setServerConfig("full_page_writes", "off")
                    .setServerConfig("max_connections", "100")
                    .setOutputRedirector(ProcessBuilder.Redirect.appendTo(log()))
                    .setErrorRedirector(ProcessBuilder.Redirect.appendTo(log()))
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the fault tests' PostgreSQL on port " + port, e);
        }
    }

    /** Starts the server unless it runs (after a test that failed while it was stopped). */
    synchronized void ensureRunning() {
        if (server == null) {
            startAgain();
        }
    }

    /** @return the server's log, beside its data directory */
    private File log() {
        return new File(dataDirectory.getParentFile(), dataDirectory.getName() + ".log");
    }

    /** Stops the server (fast shutdown); returns when it is down. */
    synchronized void stop() {
        if (server == null) {
            throw new IllegalStateException("not running");
        }
        try {
            server.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            server = null;
        }
    }

    /** Stops the server if running and deletes its data directory. */
    @Override
    public synchronized void close() {
        if (server != null) {
            stop();
        }
        if (dataDirectory.exists()) {
            try (Stream<Path> files = Files.walk(dataDirectory.toPath())) {
                files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
