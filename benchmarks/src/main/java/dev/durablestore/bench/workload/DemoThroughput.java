package dev.durablestore.bench.workload;

import dev.durablestore.bench.RunContext;
import dev.durablestore.bench.Section;
import dev.durablestore.bench.Target;
import dev.durablestore.bench.Target.Comparison;
import dev.durablestore.bench.TargetResult;
import dev.durablestore.bench.Workload;
import dev.durablestore.examples.demo.DemoOptions;
import dev.durablestore.examples.demo.DemoRun;
import dev.durablestore.examples.demo.Report;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * DEMO (issue 19): the demo at its defaults ({@code ./demo.sh}: 2,000 workflows × 5 activities, 64
 * in flight, 5 ms of work each, 10% of attempts failing and retried, 1% dead-lettered, a fresh
 * file) against the bound its own work sets, in-flight ÷ work time (64 / 5 ms = 12,800 rows/s).
 * Each run also runs the same demo with no work at all ({@code --work-ms 0}): what the store
 * settles of this workload when the work costs nothing, the ceiling the defaults cannot pass. Every
 * run must verify (every history and row), or the workload fails.
 */
public final class DemoThroughput implements Workload {

    static final Target DEFAULTS_VS_BOUND = Target.ratio(
            "DEMO-defaults-vs-work-bound",
            "rows settled/s by ./demo.sh at its defaults (64 in flight, 5 ms of work) vs the bound its work sets "
                    + "(64 / 5 ms = 12,800 rows/s)",
            "rows/s",
            "work bound",
            Comparison.AT_LEAST,
            0.7);

    @Override
    public String id() {
        return "DEMO";
    }

    @Override
    public List<Target> targets() {
        return List.of(DEFAULTS_VS_BOUND);
    }

    @Override
    public Section run(RunContext ctx) throws Exception {
        DemoOptions defaults = DemoOptions.defaults();
        double bound = defaults.concurrency() * 1000.0 / defaults.workMs();
        TargetResult.Builder result = DEFAULTS_VS_BOUND.builder();
        List<Double> noWork = new ArrayList<>();
        List<Double> ceiling = new ArrayList<>();
        List<Double> ofCeiling = new ArrayList<>();

        ctx.log("DEMO warm-up");
        demo(ctx, defaults.workMs());
        for (int run = 1; run <= ctx.runs(); run++) {
            ctx.log("DEMO run " + run + "/" + ctx.runs());
            double withWork;
            double without;
            // the two take turns going first
            if (run % 2 == 1) {
                withWork = demo(ctx, defaults.workMs());
                without = demo(ctx, 0);
            } else {
                without = demo(ctx, 0);
                withWork = demo(ctx, defaults.workMs());
            }
            ctx.log(String.format(
                    "DEMO   defaults %.0f rows/s (%.2f× the work bound %.0f), no work %.0f rows/s (%.2f×)",
                    withWork, withWork / bound, bound, without, without / bound));
            result.run(withWork, bound);
            noWork.add(without);
            ceiling.add(without / bound);
            ofCeiling.add(withWork / without);
        }
        return new Section(
                        "DEMO",
                        "The demo against the bound of its work",
                        "Each run runs the demo (`dev.durablestore.examples.demo.DemoRun`, what `./demo.sh` runs) "
                                + "twice on fresh files, taking turns going first: at its defaults ("
                                + defaults.workflows() + " workflows × " + defaults.activities() + " activities, "
                                + defaults.concurrency() + " in flight, " + defaults.workMs() + " ms of work per "
                                + "attempt, " + defaults.describeFailures()
                                + ", `synchronous` at SQLite's default, FULL), and the same "
                                + "with no work (`--work-ms 0`). The figure is the demo's own: rows settled per "
                                + "second from the start of dispatch (staging runs beside it) until the last row "
                                + "settled. The bound the work sets is in-flight ÷ work time; the demo with no work "
                                + "is the ceiling of the store on this workload on this machine (the work bound "
                                + "cannot be reached above it). A run that does not verify every history and row "
                                + "fails the group. One demo runs first as warm-up.")
                .target(result.build())
                .figure("the same demo with no work (`--work-ms 0`)", noWork, "rows/s")
                .figure("ceiling: no work ÷ the work bound", ceiling, "×")
                .figure("defaults ÷ no work", ofCeiling, "×");
    }

    /** @return rows settled per second by one verified demo run with this work time */
    private static double demo(RunContext ctx, int workMs) throws Exception {
        Path db = ctx.freshDb("demo-work" + workMs);
        try (PrintStream quiet = new PrintStream(OutputStream.nullOutputStream())) {
            DemoOptions options = DemoOptions.parse("--db", db.toString(), "--work-ms", Integer.toString(workMs));
            Report report = DemoRun.execute(options, quiet, false);
            if (report == null || !report.verified()) {
                throw new IllegalStateException("the demo did not verify"
                        + (report == null ? " (it broke or could not open " + db + ")" : ": " + report.verdict()));
            }
            return report.settledPerSecond();
        } finally {
            ctx.delete(db);
        }
    }
}
