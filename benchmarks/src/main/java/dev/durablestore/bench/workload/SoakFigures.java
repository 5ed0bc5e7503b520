package dev.durablestore.bench.workload;

import dev.durablestore.bench.Section;
import dev.durablestore.bench.Stats;
import dev.durablestore.bench.TargetResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The context figures of a soak (SOAK, SOAKPG), collected run by run and added to its section. */
public final class SoakFigures {

    private final Map<String, List<Double>> megabytes = new LinkedHashMap<>();
    private final Map<String, List<Double>> counts = new LinkedHashMap<>();
    private final List<Double> stagedNone = new ArrayList<>();
    private final List<Double> stagedSweeping = new ArrayList<>();
    private final List<Double> drainedNone = new ArrayList<>();
    private final List<Double> drainedSweeping = new ArrayList<>();

    /**
     * Records a steady soak.
     *
     * @param steady what it saw
     * @param extra more figures of the backend's storage at the end (bytes are reported in MB when
     *     their name ends in {@code bytes}; the rest as counts)
     */
    public void steady(SoakLoad.Steady steady, Map<String, Long> extra) {
        steady.firstPeriod().forEach((part, bytes) -> mb("after the first retention period: " + part, bytes));
        steady.end().forEach((part, bytes) -> mb("at the end: " + part, bytes));
        count("workflows started", steady.started());
        count("workflows closed", steady.closed());
        count("overdue closed workflows left at the end (backlog)", steady.backlogAtEnd());
        extra.forEach((name, value) -> {
            if (name.endsWith("bytes")) {
                mb(
                        "at the end: "
                                + name.substring(0, name.length() - "bytes".length())
                                        .trim(),
                        value);
            } else {
                count("at the end: " + name, value);
            }
        });
    }

    /**
     * Records a run's flat-out windows and gives the targets this run's medians.
     *
     * @param windows the windows
     * @param stage the staging target
     * @param drain the drain target
     */
    public void windows(List<SoakLoad.Window> windows, TargetResult.Builder stage, TargetResult.Builder drain) {
        List<Double> sn = new ArrayList<>();
        List<Double> ss = new ArrayList<>();
        List<Double> dn = new ArrayList<>();
        List<Double> ds = new ArrayList<>();
        for (SoakLoad.Window w : windows) {
            (w.sweeping() ? ss : sn).add(w.stagedPerSecond());
            (w.sweeping() ? ds : dn).add(w.drainedPerSecond());
        }
        stage.run(median(ss), median(sn));
        drain.run(median(ds), median(dn));
        stagedNone.addAll(sn);
        stagedSweeping.addAll(ss);
        drainedNone.addAll(dn);
        drainedSweeping.addAll(ds);
    }

    /**
     * Adds the figures to the section.
     *
     * @param section the section
     */
    public void addTo(Section section) {
        megabytes.forEach((label, values) -> section.figure(label, values, "MB"));
        counts.forEach((label, values) -> section.figure(label, values, ""));
        section.figure("flat out, no sweeper: staged per window", stagedNone, "workflows/s");
        section.figure("flat out, sweeping: staged per window", stagedSweeping, "workflows/s");
        section.figure("flat out, no sweeper: drained per window", drainedNone, "rows/s");
        section.figure("flat out, sweeping: drained per window", drainedSweeping, "rows/s");
    }

    private void mb(String label, long bytes) {
        megabytes.computeIfAbsent(label, k -> new ArrayList<>()).add(bytes / 1e6);
    }

    private void count(String label, long value) {
        counts.computeIfAbsent(label, k -> new ArrayList<>()).add((double) value);
    }

    private static double median(List<Double> values) {
        return Stats.summarize(values).median();
    }
}
