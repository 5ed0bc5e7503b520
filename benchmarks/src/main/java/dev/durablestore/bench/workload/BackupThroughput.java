package dev.durablestore.bench.workload;

import dev.durablestore.api.Payload;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.event.EventEnvelope;
import dev.durablestore.api.event.SignalReceived;
import dev.durablestore.bench.Fixtures;
import dev.durablestore.bench.RunContext;
import dev.durablestore.bench.Section;
import dev.durablestore.bench.Stats;
import dev.durablestore.bench.Target;
import dev.durablestore.bench.Target.Comparison;
import dev.durablestore.bench.TargetResult;
import dev.durablestore.bench.Workload;
import dev.durablestore.sqlite.SqliteReactiveStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.ToDoubleFunction;
import java.util.stream.Stream;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteConnection;
import org.sqlite.core.DB;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

/**
 * BACKUP: what an online backup of the SQLite file costs the writes going on meanwhile (issue 42,
 * item 4). A store on a file of ~4 KB events takes appends (P1's shape: one {@code WorkflowStarted}
 * per new workflow, 64 in flight, {@code synchronous=FULL}, the store's default) without pause, and
 * the appends acknowledged per second are counted while nothing else runs, while
 * {@link SqliteReactiveStore#backup} runs, and while the two ways SQLite offers run bare on a raw
 * read-only connection: {@code VACUUM INTO} (what the store's backup runs, without its integrity
 * check, syncs and rename) and the backup API copying every page in one step. The backup API in
 * steps, as its documentation shows it, starts again whenever another connection writes between two
 * steps: its restarts while the appends go on are counted, then the appends are stopped so it ends.
 */
public final class BackupThroughput implements Workload {

    static final Target DURING_VS_NONE = Target.ratio(
            "BACKUP-during-vs-none",
            "appends/s, FULL, 64 in flight: while SqliteReactiveStore.backup runs (VACUUM INTO, integrity check,"
                    + " sync, rename) vs the same appends with no backup",
            "appends/s",
            "no backup",
            Comparison.AT_LEAST,
            0.5);

    private static final int IN_FLIGHT = 64;
    private static final Duration WARM_UP = Duration.ofSeconds(1);
    private static final Duration NONE_WINDOW = Duration.ofSeconds(2);
    private static final Duration AFTER_WINDOW = Duration.ofSeconds(1);
    private static final Duration STEPPED_WINDOW = Duration.ofSeconds(3);
    private static final int STEP_PAGES = 100;
    private static final String PADDING = "x".repeat(4_000);

    /** What runs beside the appends in one window. */
    private enum Method {
        NONE("no backup"),
        STORE("SqliteReactiveStore.backup"),
        VACUUM_INTO("raw VACUUM INTO"),
        BACKUP_API("raw backup API, one step");

        final String label;

        Method(String label) {
            this.label = label;
        }
    }

    /** One window: appends/s while the method ran and in the second after it, how long it ran, its copy. */
    private record Window(double during, double after, double seconds, double copyMb, double walGrowthMb) {}

    @Override
    public String id() {
        return "BACKUP";
    }

    @Override
    public List<Target> targets() {
        return List.of(DURING_VS_NONE);
    }

    @Override
    public Section run(RunContext ctx) throws Exception {
        int workflows = ctx.sizes().backupWorkflows();
        Path template = ctx.freshDb("backup-template");
        ctx.log("BACKUP preloading " + workflows + " workflows");
        preload(template, workflows);
        double fileMb = Files.size(template) / 1e6;
        ctx.log(String.format("BACKUP file of %.0f MB", fileMb));

        Map<Method, List<Window>> windows = new EnumMap<>(Method.class);
        for (Method m : Method.values()) {
            windows.put(m, new ArrayList<>());
        }
        List<Double> restarts = new ArrayList<>();
        List<Double> finishedWhileWriting = new ArrayList<>();
        List<Double> steppedSeconds = new ArrayList<>();
        TargetResult.Builder target = DURING_VS_NONE.builder();
        for (int run = 1; run <= ctx.runs(); run++) {
            ctx.log("BACKUP run " + run + "/" + ctx.runs());
            Path db = ctx.freshDb("backup");
            Files.copy(template, db);
            try (SqliteReactiveStore store = Fixtures.openStore(db, "FULL")) {
                LongAdder appended = new LongAdder();
                Disposable load = appendWithoutPause(store, appended);
                try {
                    pause(WARM_UP);
                    Map<Method, Window> of = new EnumMap<>(Method.class);
                    for (int turn = 0; turn < Method.values().length; turn++) {
                        Method m = Method.values()[(turn + run - 1) % Method.values().length];
                        Window w = window(ctx, m, store, db, appended);
                        of.put(m, w);
                        windows.get(m).add(w);
                        ctx.log(String.format(
                                "BACKUP   %s: %.0f appends/s during (%.2f s), %.0f appends/s in the second after",
                                m.label, w.during(), w.seconds(), w.after()));
                    }
                    target.run(
                            of.get(Method.STORE).during(), of.get(Method.NONE).during());
                    Stepped s = stepped(ctx, db, load);
                    restarts.add((double) s.restarts());
                    finishedWhileWriting.add(s.finishedWhileWriting() ? 1.0 : 0.0);
                    steppedSeconds.add(s.seconds());
                    ctx.log(String.format(
                            "BACKUP   backup API in steps of %d pages: %d restarts, %s, %.2f s",
                            STEP_PAGES,
                            s.restarts(),
                            s.finishedWhileWriting() ? "finished while appends went on" : "finished once they stopped",
                            s.seconds()));
                } finally {
                    load.dispose();
                }
            } finally {
                ctx.delete(db);
            }
        }
        ctx.delete(template);

        Section section = new Section("BACKUP", "Online backup of the SQLite file", method(workflows, fileMb))
                .target(target.build());
        List<Double> none = during(windows.get(Method.NONE));
        for (Method m : List.of(Method.VACUUM_INTO, Method.BACKUP_API)) {
            section.sideBySide(
                    "appends/s while " + m.label + " runs vs no backup",
                    "appends/s",
                    m.label,
                    during(windows.get(m)),
                    "no backup",
                    none);
        }
        List<Double> afterNone = values(windows.get(Method.NONE), Window::after);
        for (Method m : List.of(Method.STORE, Method.VACUUM_INTO, Method.BACKUP_API)) {
            section.sideBySide(
                    "appends/s in the second after " + m.label + " ended vs after a window with no backup",
                    "appends/s",
                    "after " + m.label,
                    values(windows.get(m), Window::after),
                    "after no backup",
                    afterNone);
        }
        for (Method m : List.of(Method.STORE, Method.VACUUM_INTO, Method.BACKUP_API)) {
            section.figure(m.label + ": duration", values(windows.get(m), Window::seconds), "s");
            section.figure(m.label + ": size of the copy", values(windows.get(m), Window::copyMb), "MB");
        }
        section.figure(
                "SqliteReactiveStore.backup: growth of the -wal file while it ran",
                values(windows.get(Method.STORE), Window::walGrowthMb),
                "MB");
        section.figure(
                "raw backup API in steps of " + STEP_PAGES + " pages: restarts while appends went on for "
                        + STEPPED_WINDOW.toSeconds() + " s",
                restarts,
                "");
        section.figure(
                "raw backup API in steps of " + STEP_PAGES + " pages: finished while appends went on (1 yes, 0 no)",
                finishedWhileWriting,
                "");
        section.figure(
                "raw backup API in steps of " + STEP_PAGES + " pages: duration, appends stopped after "
                        + STEPPED_WINDOW.toSeconds() + " s",
                steppedSeconds,
                "s");
        return section;
    }

    private static String method(int workflows, double fileMb) {
        return "A file of " + workflows + " workflows of one ~4 KB event each ("
                + Stats.format(fileMb) + " MB) is written once; each run copies it, opens a store on it "
                + "(`synchronous=FULL`, the default) and appends without pause: one `WorkflowStarted` per new "
                + "workflow, " + IN_FLIGHT + " in flight, as in P1. After a " + WARM_UP.toSeconds()
                + " s warm-up, four windows take turns going first, each followed by one second whose "
                + "appends are counted too (the log's checkpoint, held back by a backup's read transaction, "
                + "is done then): no backup (" + NONE_WINDOW.toSeconds() + " s); "
                + "`SqliteReactiveStore.backup` to a new file (VACUUM INTO on its own read-only connection, "
                + "`PRAGMA integrity_check` of the copy, fsync, rename, directory fsync); bare `VACUUM INTO` "
                + "on a raw read-only connection; SQLite's backup API (sqlite-jdbc's "
                + "`DB.backup`) copying every page in one step on a raw read-only connection. The target is "
                + "the store's backup's appends/s against no backup's, both of the same run. Last in each "
                + "run, the backup API copies in steps of " + STEP_PAGES + " pages, as its documentation "
                + "shows it: a step after another connection wrote starts the copy again, so with appends "
                + "going on it counts restarts, and the appends are stopped after "
                + STEPPED_WINDOW.toSeconds() + " s so it can end. The store's backup uses VACUUM INTO: its "
                + "progress handler lets a close or a cancel stop it, and its copy is a compact file in "
                + "rollback-journal mode. The one-step backup API runs no such check, so a close would wait for "
                + "it, and its copy is in WAL mode (opening it grows `-wal` and `-shm` files); in steps it does "
                + "not finish while the store is written to.";
    }

    private static List<Double> during(List<Window> windows) {
        return values(windows, Window::during);
    }

    private static List<Double> values(List<Window> windows, ToDoubleFunction<Window> f) {
        List<Double> out = new ArrayList<>(windows.size());
        for (Window w : windows) {
            out.add(f.applyAsDouble(w));
        }
        return out;
    }

    /** Appends one event to a new workflow, {@link #IN_FLIGHT} at a time, until disposed. */
    private static Disposable appendWithoutPause(SqliteReactiveStore store, LongAdder appended) {
        Instant now = Instant.now();
        return Flux.<WorkflowId>generate(sink -> sink.next(WorkflowId.random()))
                .flatMap(
                        w -> store.append(w, List.of(Fixtures.started(w, now)), 0)
                                .doOnSuccess(v -> appended.increment()),
                        IN_FLIGHT)
                .subscribe();
    }

    private static Window window(RunContext ctx, Method m, SqliteReactiveStore store, Path db, LongAdder appended)
            throws Exception {
        Path copy = ctx.freshDb("backup-copy-" + m.name().toLowerCase(Locale.ROOT));
        Path wal = Path.of(db + "-wal");
        long walBefore = size(wal);
        long count0 = appended.sum();
        long t0 = System.nanoTime();
        switch (m) {
            case NONE -> pause(NONE_WINDOW);
            case STORE -> store.backup(copy).block(Duration.ofMinutes(10));
            case VACUUM_INTO -> vacuumInto(db, copy);
            case BACKUP_API -> backupApi(db, copy, -1, (remaining, pages) -> {});
        }
        long t1 = System.nanoTime();
        long count1 = appended.sum();
        long walAfter = size(wal);
        pause(AFTER_WINDOW);
        long t2 = System.nanoTime();
        long count2 = appended.sum();
        double copyMb = size(copy) / 1e6;
        ctx.delete(copy);
        return new Window(
                Stats.perSecond(count1 - count0, t1 - t0),
                Stats.perSecond(count2 - count1, t2 - t1),
                (t1 - t0) / 1e9,
                copyMb,
                Math.max(0, walAfter - walBefore) / 1e6);
    }

    /** What the stepped backup API did. */
    private record Stepped(int restarts, boolean finishedWhileWriting, double seconds) {}

    /**
     * The backup API in steps of {@link #STEP_PAGES} pages while the appends go on; they are stopped
     * after {@link #STEPPED_WINDOW} so that it ends.
     */
    private static Stepped stepped(RunContext ctx, Path db, Disposable load) throws Exception {
        Path copy = ctx.freshDb("backup-copy-stepped");
        AtomicInteger restarts = new AtomicInteger();
        AtomicInteger lastRemaining = new AtomicInteger(Integer.MAX_VALUE);
        Disposable stop =
                Schedulers.parallel().schedule(load::dispose, STEPPED_WINDOW.toMillis(), TimeUnit.MILLISECONDS);
        long t0 = System.nanoTime();
        try {
            backupApi(db, copy, STEP_PAGES, (remaining, pages) -> {
                if (remaining > lastRemaining.getAndSet(remaining)) {
                    restarts.incrementAndGet();
                }
            });
        } finally {
            stop.dispose();
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        boolean finishedWhileWriting = !load.isDisposed();
        ctx.delete(copy);
        return new Stepped(restarts.get(), finishedWhileWriting, seconds);
    }

    private static void vacuumInto(Path db, Path copy) throws SQLException {
        try (Connection c = readOnly(db);
                PreparedStatement ps = c.prepareStatement("VACUUM INTO ?")) {
            ps.setString(1, copy.toAbsolutePath().toString());
            ps.execute();
        }
    }

    private static void backupApi(Path db, Path copy, int pagesPerStep, DB.ProgressObserver observer)
            throws SQLException {
        try (Connection c = readOnly(db)) {
            DB database = ((SQLiteConnection) c).getDatabase();
            // on SQLITE_BUSY: sleep 100 ms, at most 3 times
            int rc = database.backup("main", copy.toAbsolutePath().toString(), observer, 100, 3, pagesPerStep);
            if (rc != 0) {
                throw new SQLException("the backup API ended with SQLite result code " + rc);
            }
        }
    }

    private static Connection readOnly(Path db) throws SQLException {
        SQLiteConfig config = new SQLiteConfig();
        config.setReadOnly(true);
        config.setBusyTimeout(10_000);
        return DriverManager.getConnection("jdbc:sqlite:" + db.toAbsolutePath(), config.toProperties());
    }

    /** The file backed up: {@code workflows} workflows of one event with a ~4 KB payload. */
    private static void preload(Path db, int workflows) {
        Instant at = Instant.now();
        try (SqliteReactiveStore store = Fixtures.openStore(db, "NORMAL")) {
            Flux.fromIterable(
                            Stream.generate(WorkflowId::random).limit(workflows).toList())
                    .flatMap(w -> store.append(w, List.of(padded(w, at)), 0), IN_FLIGHT)
                    .then()
                    .block(Duration.ofMinutes(10));
        }
    }

    private static Event padded(WorkflowId w, Instant at) {
        return new SignalReceived(
                new EventEnvelope(1, at, w), "bench-padding", Payload.json("{\"pad\":\"" + PADDING + "\"}"));
    }

    private static long size(Path file) {
        try {
            return Files.exists(file) ? Files.size(file) : 0L;
        } catch (IOException e) {
            return 0L;
        }
    }

    private static void pause(Duration d) throws InterruptedException {
        Thread.sleep(d.toMillis());
    }
}
