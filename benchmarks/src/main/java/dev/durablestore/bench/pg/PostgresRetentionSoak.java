package dev.durablestore.bench.pg;

import dev.durablestore.api.StoreMetrics;
import dev.durablestore.bench.RunContext;
import dev.durablestore.bench.Section;
import dev.durablestore.bench.Target;
import dev.durablestore.bench.Target.Comparison;
import dev.durablestore.bench.TargetResult;
import dev.durablestore.bench.Workload;
import dev.durablestore.bench.workload.RetentionSoak;
import dev.durablestore.bench.workload.SoakFigures;
import dev.durablestore.bench.workload.SoakLoad;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * SOAKPG: storage stays bounded under retention on PostgreSQL, tables and indexes, and sweeping
 * costs the load little (issue 42, item 3). The load and the windows are SOAK's ({@link SoakLoad});
 * storage is each table's heap (with TOAST, free space and visibility maps) and its indexes.
 */
public final class PostgresRetentionSoak implements Workload {

    private static final int MAX_CONNECTIONS = PostgresComparison.POOL_SIZE + 1 + 1 + 10;
    private static final List<String> TABLES = List.of("events", "outbox", "timers");

    /** Autovacuum's wake-up during the soak, seconds (the server's default is 60). */
    private static final int NAPTIME_SECONDS = 1;

    static final Target SIZE = Target.ratio(
            "SOAKPG-size",
            "tables + indexes bytes, largest sample of the last retention period vs at the end of the first, "
                    + "workflows started and closed at a steady rate, sweeper on",
            "MB",
            "after the first retention period",
            Comparison.AT_MOST,
            1.2);

    static final Target STAGE = Target.ratio(
            "SOAKPG-stage-sweeping",
            "workflows staged per second, flat out, while a sweeper deletes vs windows without one",
            "workflows/s",
            "no sweeper",
            Comparison.AT_LEAST,
            0.8);

    static final Target DRAIN = Target.ratio(
            "SOAKPG-drain-sweeping",
            "rows drained (workflows closed) per second, flat out, while a sweeper deletes vs windows without one",
            "rows/s",
            "no sweeper",
            Comparison.AT_LEAST,
            0.8);

    @Override
    public String id() {
        return "SOAKPG";
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
        ctx.log("SOAKPG starting PostgreSQL");
        try (PgServer server = PgServer.start(ctx.dir(), MAX_CONNECTIONS)) {
            // the retention is shortened from days to seconds; autovacuum's wake-up is shortened alike,
            // or the soak would measure its one-minute default instead of the store
            // (only on the embedded server: an operator's server is used as it is configured)
            if (server.embedded()) {
                server.execute("ALTER SYSTEM SET autovacuum_naptime = '" + NAPTIME_SECONDS + "s'");
                server.execute("SELECT pg_reload_conf()");
            }
            for (int run = 1; run <= ctx.runs(); run++) {
                ctx.log("SOAKPG run " + run + "/" + ctx.runs() + ": steady " + RetentionSoak.RATE
                        + " workflows/s, retention " + retention.toSeconds() + " s, " + periods + " periods");
                try (PgNodes nodes = PgNodes.open(server, 1, PostgresComparison.POOL_SIZE, "on", StoreMetrics.NONE)) {
                    SoakLoad load = new SoakLoad(nodes.stores().get(0));
                    SoakLoad.Steady steady = load.steady(
                            ctx, "SOAKPG", RetentionSoak.RATE, retention, periods, () -> sizes(server, nodes));
                    size.run(steady.lastPeriodMax() / 1e6, SoakLoad.total(steady.firstPeriod()) / 1e6);
                    figures.steady(steady, vacuumStats(server, nodes));
                    List<SoakLoad.Window> windows = load.windows(
                            ctx,
                            "SOAKPG",
                            run % 2 == 0,
                            RetentionSoak.WINDOWS,
                            RetentionSoak.WINDOW,
                            RetentionSoak.WINDOW_RETENTION);
                    figures.windows(windows, stage, drain);
                }
            }
            Section section = new Section(
                            "SOAKPG", "Retention: storage bounded on PostgreSQL", method(retention, periods, server))
                    .target(size.build())
                    .target(stage.build())
                    .target(drain.build());
            figures.addTo(section);
            return section;
        }
    }

    /** @return each table's heap and its indexes, in bytes */
    private static Map<String, Long> sizes(PgServer server, PgNodes nodes) {
        Map<String, Long> parts = new LinkedHashMap<>();
        for (String table : TABLES) {
            String relation = "'" + nodes.schema() + "." + table + "'::regclass";
            List<String> row = server.query("SELECT pg_table_size(" + relation + "), pg_indexes_size(" + relation + ")")
                    .get(0);
            parts.put(table + " table", Long.parseLong(row.get(0)));
            parts.put(table + " indexes", Long.parseLong(row.get(1)));
        }
        return parts;
    }

    /** @return the dead rows left and the (auto)vacuums run per table */
    private static Map<String, Long> vacuumStats(PgServer server, PgNodes nodes) {
        Map<String, Long> out = new LinkedHashMap<>();
        for (List<String> row : server.query("SELECT relname, n_dead_tup, autovacuum_count + vacuum_count "
                + "FROM pg_stat_user_tables WHERE schemaname = '" + nodes.schema() + "' AND relname IN "
                + "('events', 'outbox', 'timers') ORDER BY relname")) {
            out.put(row.get(0) + ": dead rows", Long.parseLong(row.get(1)));
            out.put(row.get(0) + ": vacuums run", Long.parseLong(row.get(2)));
        }
        return out;
    }

    private static String method(Duration retention, int periods, PgServer server) {
        return "One PostgreSQL server on this machine (see PG), the store's tables on a fresh schema per run, "
                + "one node with a pool of " + PostgresComparison.POOL_SIZE + ", `synchronous_commit=on`; the "
                + "server's autovacuum on (`autovacuum` " + server.settings().get("autovacuum")
                + ") with its defaults but one: as the retention is shortened from days to seconds, "
                + "`autovacuum_naptime` is shortened from 1 min to " + NAPTIME_SECONDS + " s for the soak "
                + "(`ALTER SYSTEM`, on the embedded server only), so that autovacuum wakes as often relative to the retention as it would "
                + "in production; the store itself runs no VACUUM. The load is SOAK's: " + RetentionSoak.RATE
                + " workflows per second started (one "
                + "`appendWithOutbox` each) and closed by a claim stream, a `RetentionSweeper` with a retention "
                + "of " + retention.toSeconds() + " s every tenth of it, for " + periods + " retention periods; "
                + "storage is `pg_table_size` (heap, TOAST, free space and visibility maps) and "
                + "`pg_indexes_size` of the events, outbox and timers tables, sampled every second. Then the "
                + "same flat-out windows as SOAK, on the same schema.";
    }
}
