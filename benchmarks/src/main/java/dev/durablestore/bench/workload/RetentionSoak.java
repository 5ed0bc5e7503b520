package dev.durablestore.bench.workload;

import dev.durablestore.bench.Fixtures;
import dev.durablestore.bench.RunContext;
import dev.durablestore.bench.Section;
import dev.durablestore.bench.Target;
import dev.durablestore.bench.Target.Comparison;
import dev.durablestore.bench.TargetResult;
import dev.durablestore.bench.Workload;
import dev.durablestore.sqlite.SqliteReactiveStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.sqlite.SQLiteConfig;

/**
 * SOAK: storage stays bounded under retention on SQLite, and sweeping costs the load little
 * (issue 42, item 3). The load is {@link SoakLoad}'s; storage is the file and its {@code -wal}.
 */
public final class RetentionSoak implements Workload {

    /** The rate the steady soak offers, workflows per second (on both backends). */
    public static final int RATE = 300;

    /** Flat-out windows per run, taking turns without and with a sweeper. */
    public static final int WINDOWS = 6;

    /** The length of each flat-out window. */
    public static final Duration WINDOW = Duration.ofSeconds(4);

    /** The sweeper's retention in the flat-out windows: it deletes, all the time, what closed that long ago. */
    public static final Duration WINDOW_RETENTION = Duration.ofSeconds(1);

    static final Target SIZE = Target.ratio(
            "SOAK-size",
            "file + WAL bytes, largest sample of the last retention period vs at the end of the first, "
                    + "workflows started and closed at a steady rate, sweeper on",
            "MB",
            "after the first retention period",
            Comparison.AT_MOST,
            1.2);

    static final Target STAGE = Target.ratio(
            "SOAK-stage-sweeping",
            "workflows staged per second, flat out, while a sweeper deletes vs windows without one",
            "workflows/s",
            "no sweeper",
            Comparison.AT_LEAST,
            0.8);

    static final Target DRAIN = Target.ratio(
            "SOAK-drain-sweeping",
            "rows drained (workflows closed) per second, flat out, while a sweeper deletes vs windows without one",
            "rows/s",
            "no sweeper",
            Comparison.AT_LEAST,
            0.8);

    @Override
    public String id() {
        return "SOAK";
    }

    @Override
    public List<Target> targets() {
        return List.of(SIZE, STAGE, DRAIN);
    }

    @Override
    public Section run(RunContext ctx) throws Exception {
        Duration retention = Duration.ofSeconds(ctx.sizes().soakRetentionSeconds());
        int periods = ctx.sizes().soakPeriods();
        TargetResult.Builder size = SIZE.builder();
        TargetResult.Builder stage = STAGE.builder();
        TargetResult.Builder drain = DRAIN.builder();
        SoakFigures figures = new SoakFigures();
        for (int run = 1; run <= ctx.runs(); run++) {
            ctx.log("SOAK run " + run + "/" + ctx.runs() + ": steady " + RATE + " workflows/s, retention "
                    + retention.toSeconds() + " s, " + periods + " periods");
            Path db = ctx.freshDb("soak");
            try (SqliteReactiveStore store = Fixtures.openStore(db, "FULL")) {
                SoakLoad load = new SoakLoad(store);
                SoakLoad.Steady steady = load.steady(ctx, "SOAK", RATE, retention, periods, () -> sizes(db));
                Map<String, Long> pages = pages(db);
                size.run(steady.lastPeriodMax() / 1e6, SoakLoad.total(steady.firstPeriod()) / 1e6);
                figures.steady(steady, pages);
                List<SoakLoad.Window> windows =
                        load.windows(ctx, "SOAK", run % 2 == 0, WINDOWS, WINDOW, WINDOW_RETENTION);
                figures.windows(windows, stage, drain);
            } finally {
                ctx.delete(db);
            }
        }
        Section section = new Section("SOAK", "Retention: storage bounded on SQLite", method(retention, periods))
                .target(size.build())
                .target(stage.build())
                .target(drain.build());
        figures.addTo(section);
        return section;
    }

    /** @return the file's and the log's bytes */
    static Map<String, Long> sizes(Path db) {
        Map<String, Long> parts = new LinkedHashMap<>();
        parts.put("file", size(db));
        parts.put("wal", size(Path.of(db + "-wal")));
        return parts;
    }

    /** @return the file's page count and free-list page count, and its page size */
    static Map<String, Long> pages(Path db) throws SQLException {
        SQLiteConfig config = new SQLiteConfig();
        config.setReadOnly(true);
        config.setBusyTimeout(10_000);
        Map<String, Long> out = new LinkedHashMap<>();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db.toAbsolutePath(), config.toProperties());
                Statement s = c.createStatement()) {
            for (String pragma : List.of("page_count", "freelist_count", "page_size", "auto_vacuum")) {
                try (ResultSet rs = s.executeQuery("PRAGMA " + pragma)) {
                    rs.next();
                    out.put(pragma, rs.getLong(1));
                }
            }
        }
        return out;
    }

    private static long size(Path file) {
        try {
            return Files.exists(file) ? Files.size(file) : 0L;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String method(Duration retention, int periods) {
        return "A store on a fresh file (`synchronous=FULL`, the default). Steady soak: " + RATE
                + " workflows per second are started, each by one `appendWithOutbox` (its `WorkflowStarted` and "
                + "one outbox row); a claim stream (" + SoakLoad.IN_FLIGHT + " in flight) completes each row and "
                + "appends the workflow's `WorkflowCompleted`, which closes it. A `RetentionSweeper` with a "
                + "retention of " + retention.toSeconds() + " s runs every tenth of it for " + periods
                + " retention periods; the file and its `-wal` are measured every second. The size target "
                + "compares the largest sample of the last period with the sample at the end of the first "
                + "(when the file holds one retention's worth of closed workflows and nothing was deleted yet). "
                + "Then, on the same store, the load runs flat out (" + SoakLoad.IN_FLIGHT + " workflows in "
                + "flight) for " + WINDOWS + " windows of " + WINDOW.toSeconds() + " s after 2 s of warm-up, "
                + "taking turns (the first alternating by run) without a sweeper and with one whose retention is "
                + WINDOW_RETENTION.toSeconds() + " s, run every 100 ms, so it deletes all the time what closed a "
                + "second ago, and at first the backlog of the window before. SQLite reuses the pages freed by "
                + "deletes from its free list (the store leaves `auto_vacuum` off), so the file stops growing "
                + "once the deletes keep up; the free list's size at the end of the soak is reported.";
    }
}
