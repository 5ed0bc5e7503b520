package dev.durablestore.examples.demo;

import dev.durablestore.api.OutboxStatus;
import dev.durablestore.examples.demo.Verifier.Check;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/**
 * The final report: what was staged, throughput, latency percentiles, rows by status, workflows by
 * outcome, and the verification verdict — {@code VERIFIED} or {@code VERIFICATION FAILED: …}.
 *
 * @param options the run's options
 * @param stats this run's counters and latency samples
 * @param staged what staging did
 * @param rearmedAtStart rows a previous run left claimed, re-armed before dispatching
 * @param stagingSeconds time to stage
 * @param dispatchSeconds time from the dispatcher's start until the last row was settled
 * @param totalSeconds wall time of the whole run, verification included
 * @param drained false when the run stopped before every row was settled (stall or stream failure)
 * @param verification the verdict
 */
public record Report(
        DemoOptions options,
        DemoStats stats,
        Workload.StageResult staged,
        long rearmedAtStart,
        double stagingSeconds,
        double dispatchSeconds,
        double totalSeconds,
        boolean drained,
        Verifier.Result verification) {

    private static final int PROBLEMS_SHOWN = 5;

    /** @return true when every row was settled and every history and row verified */
    public boolean verified() {
        return verification.verified() && drained;
    }

    /** @return rows settled per second, from the start of dispatch until the last row settled */
    public double settledPerSecond() {
        return dispatchSeconds > 0 ? stats.settled() / dispatchSeconds : 0;
    }

    /** @return the verdict line: {@code VERIFIED} or {@code VERIFICATION FAILED: <first problem>} */
    public String verdict() {
        if (verified()) {
            return "VERIFIED";
        }
        String first = verification.firstProblem().orElse("the run stopped before every row was settled");
        int total = verification.problemCounts().values().stream()
                .mapToInt(Integer::intValue)
                .sum();
        return "VERIFICATION FAILED: " + first + (total > 1 ? " (and " + (total - 1) + " more)" : "");
    }

    /** @param out where to print the report */
    public void print(PrintStream out) {
        out.println();
        out.println("== durable-store demo report ==");
        line(out, "database", options.db().toString());
        line(
                out,
                "workflows",
                f(
                        "%,d in the file: %,d staged by this run (%,d rows), %,d already there",
                        verification.workflows(), staged.staged(), stats.rowsStaged(), staged.skipped()));
        line(out, "failures", options.describeFailures());
        if (rearmedAtStart > 0) {
            line(out, "resumed", f("%,d rows left claimed by an earlier run were re-armed", rearmedAtStart));
        }
        line(
                out,
                "wall time",
                f(
                        "%.2f s total: staging %.2f s, dispatch until the last row settled %.2f s",
                        totalSeconds, stagingSeconds, dispatchSeconds));
        double perSecond = settledPerSecond();
        line(
                out,
                "throughput",
                f(
                        "%,.0f rows/s settled (%,d rows in %.2f s; %,.0f deliveries/s incl. retries)",
                        perSecond,
                        stats.settled(),
                        dispatchSeconds,
                        dispatchSeconds > 0 ? stats.deliveries() / dispatchSeconds : 0));
        line(
                out,
                "deliveries",
                f(
                        "%,d: %,d completed, %,d retried, %,d dead-lettered, %,d redelivered "
                                + "(outcome already in history), %,d stale claims dropped, %,d errors",
                        stats.deliveries(),
                        stats.completed(),
                        stats.retried(),
                        stats.deadLettered(),
                        stats.redelivered(),
                        stats.stale(),
                        stats.errors()));
        line(
                out,
                "history",
                f(
                        "%,d events; %,d workflows ended by this run (%,d completed, %,d failed); "
                                + "%,d step conflicts redone",
                        verification.events(),
                        stats.workflowsCompleted() + stats.workflowsFailed(),
                        stats.workflowsCompleted(),
                        stats.workflowsFailed(),
                        stats.conflicts()));
        line(out, "lease reaper", f("%,d rows re-armed while running", stats.reaped()));
        out.println();
        out.println(f("  %-22s %9s %9s %9s %9s %9s", "latency (ms)", "p50", "p90", "p99", "max", "samples"));
        latency(out, "stage -> claim", stats.stageToClaimMicros());
        latency(out, "claim -> complete", stats.claimToCompleteMicros());
        out.println("  (stage -> claim: first delivery of each row staged by this run, including the wait while");
        out.println(
                "   staging outpaces dispatch; claim -> complete: work and the step recording the outcome and settling the row)");
        out.println();
        StringBuilder rows = new StringBuilder();
        for (OutboxStatus s : OutboxStatus.values()) {
            rows.append(f("%s %,d  ", s.token(), verification.rowCounts().getOrDefault(s, 0L)));
        }
        Long missing = verification.rowCounts().get(null);
        if (missing != null && missing > 0) {
            rows.append(f("missing %,d", missing));
        }
        line(out, "outbox rows", rows.toString().trim());
        long running = verification.workflows() - verification.completedWorkflows() - verification.failedWorkflows();
        line(
                out,
                "workflows",
                f(
                        "completed %,d  failed %,d  not ended %,d",
                        verification.completedWorkflows(), verification.failedWorkflows(), running));
        out.println();
        out.println("VERIFICATION");
        for (Check c : Check.values()) {
            int n = verification.problemCounts().get(c);
            out.println(f("  [%s] %s", n == 0 ? " ok " : "FAIL", c.description()));
            List<String> problems = verification.problems().get(c);
            for (int i = 0; i < Math.min(PROBLEMS_SHOWN, problems.size()); i++) {
                out.println("         - " + problems.get(i));
            }
            if (n > PROBLEMS_SHOWN) {
                out.println(f("         - ... %,d more", n - PROBLEMS_SHOWN));
            }
        }
        if (!drained) {
            out.println("  [FAIL] the run stopped before every row was settled");
        }
        out.println();
        out.println(verdict());
    }

    private static void line(PrintStream out, String label, String text) {
        out.println(f("  %-13s %s", label, text));
    }

    private static void latency(PrintStream out, String label, long[] sortedMicros) {
        if (sortedMicros.length == 0) {
            out.println(f("  %-22s %9s %9s %9s %9s %9d", label, "-", "-", "-", "-", 0));
            return;
        }
        out.println(f(
                "  %-22s %9.1f %9.1f %9.1f %9.1f %,9d",
                label,
                percentile(sortedMicros, 50) / 1e3,
                percentile(sortedMicros, 90) / 1e3,
                percentile(sortedMicros, 99) / 1e3,
                sortedMicros[sortedMicros.length - 1] / 1e3,
                sortedMicros.length));
    }

    /**
     * Nearest-rank percentile.
     *
     * @param sorted ascending samples, not empty
     * @param p the percentile, 0 to 100
     * @return the smallest sample with at least {@code p}% of the samples at or below it
     */
    static long percentile(long[] sorted, double p) {
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    private static String f(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }
}
