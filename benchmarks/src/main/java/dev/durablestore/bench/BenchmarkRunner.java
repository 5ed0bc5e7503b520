package dev.durablestore.bench;

import dev.durablestore.bench.ReportWriter.Report;
import dev.durablestore.bench.pg.PostgresClients;
import dev.durablestore.bench.pg.PostgresComparison;
import dev.durablestore.bench.pg.PostgresPolicyCost;
import dev.durablestore.bench.pg.PostgresRetentionSoak;
import dev.durablestore.bench.pg.PostgresStaging;
import dev.durablestore.bench.workload.AppendThroughput;
import dev.durablestore.bench.workload.BackupThroughput;
import dev.durablestore.bench.workload.ClaimCost;
import dev.durablestore.bench.workload.ClaimStreamMemory;
import dev.durablestore.bench.workload.DemoThroughput;
import dev.durablestore.bench.workload.DispatchPolicyCost;
import dev.durablestore.bench.workload.ObservationCost;
import dev.durablestore.bench.workload.OutboxRoundTrip;
import dev.durablestore.bench.workload.RangeRead;
import dev.durablestore.bench.workload.RetentionSoak;
import dev.durablestore.bench.workload.StagingVsDbScheduler;
import dev.durablestore.bench.workload.StepThroughput;
import dev.durablestore.bench.workload.WakeLatency;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The workload runner of issue 5: measures every target (P1–P6, P8, P9, OBS, POL, PG, POLPG, PGSTAGE, PGCLIENT, BACKUP, SOAK, SOAKPG) against a baseline
 * (raw JDBC, or a peer) run in the same process, prints a table and one {@code RESULT} line per target, and writes
 * {@code BENCHMARKS.md}. {@code ./bench.sh} builds and starts it; {@code --jmh} runs the JMH
 * micro-benchmarks instead. See {@link RunnerOptions#USAGE}.
 */
public final class BenchmarkRunner {

    private BenchmarkRunner() {}

    /**
     * @param args see {@link RunnerOptions#USAGE}
     * @throws Exception when JMH or the report file fails
     */
    public static void main(String[] args) throws Exception {
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        }
        RunnerOptions options;
        try {
            options = RunnerOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("bench: " + e.getMessage());
            System.err.print(RunnerOptions.USAGE);
            System.exit(2);
            return;
        }
        if (options.help()) {
            System.out.print(RunnerOptions.USAGE);
            return;
        }
        if (options.jmhArgs() != null) {
            org.openjdk.jmh.Main.main(options.jmhArgs().toArray(new String[0]));
            return;
        }
        System.exit(run(options, String.join(" ", args)) ? 0 : 1);
    }

    /**
     * @return every workload, in report order
     */
    static List<Workload> workloads() {
        return List.of(
                new AppendThroughput(),
                new OutboxRoundTrip(),
                new WakeLatency(),
                new ClaimCost(),
                new RangeRead(),
                new ClaimStreamMemory(),
                new StepThroughput(),
                new StagingVsDbScheduler(),
                new DemoThroughput(),
                new ObservationCost(),
                new DispatchPolicyCost(),
                new PostgresComparison(),
                new PostgresPolicyCost(),
                new PostgresStaging(),
                new PostgresClients(),
                new BackupThroughput(),
                new RetentionSoak(),
                new PostgresRetentionSoak());
    }

    private static boolean run(RunnerOptions options, String argLine) throws IOException {
        long began = System.nanoTime();
        String command = System.getenv("BENCH_COMMAND");
        if (command == null || command.isBlank()) {
            command = "java -cp … " + BenchmarkRunner.class.getName() + (argLine.isEmpty() ? "" : " " + argLine);
        }
        List<Section> sections = new ArrayList<>();
        List<String> failed = new ArrayList<>();
        Map<String, String> machine;
        try (RunContext ctx = new RunContext(options.sizes(), options.runs(), options.dataDir(), System.err)) {
            machine = MachineInfo.describe(ctx.dir().getParent());
            ctx.log("sizes " + options.sizes() + ", " + options.runs() + " run(s), files in " + ctx.dir());
            for (Workload w : workloads()) {
                if (!options.selects(w.id())) {
                    continue;
                }
                long t = System.nanoTime();
                sections.add(runOne(w, ctx, failed));
                ctx.log(String.format("%s done in %.1f s", w.id(), (System.nanoTime() - t) / 1e9));
            }
        }
        Report report = new Report(
                command, options.quick(), options.runs(), machine, (System.nanoTime() - began) / 1e9, sections);
        ReportWriter.printConsole(report, System.out);
        ReportWriter.writeMarkdown(report, options.out());
        System.err.println("[bench] wrote " + options.out().toAbsolutePath());
        if (!failed.isEmpty()) {
            System.err.println("[bench] failed workloads: " + String.join(", ", failed));
        }
        // a workload without targets (PG) still fails the run when it fails
        return failed.isEmpty() && report.results().stream().allMatch(TargetResult::met);
    }

    /**
     * @param failed where the workload's id goes when it fails
     * @return its section, or one reporting the failure (each target not met)
     */
    private static Section runOne(Workload w, RunContext ctx, List<String> failed) {
        try {
            return w.run(ctx);
        } catch (Exception e) {
            ctx.log(w.id() + " failed: " + e);
            e.printStackTrace(System.err);
            failed.add(w.id());
            Section section = new Section(w.id(), "failed", "The workload failed: `" + e + "`.");
            for (Target t : w.targets()) {
                section.target(TargetResult.failed(t, e.getClass().getSimpleName()));
            }
            return section;
        }
    }
}
