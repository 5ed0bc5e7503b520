package dev.durablestore.bench.workload;

import dev.durablestore.api.OutboxStatus;
import dev.durablestore.bench.RunContext;
import dev.durablestore.bench.Section;
import dev.durablestore.bench.Target;
import dev.durablestore.bench.Target.Comparison;
import dev.durablestore.bench.TargetResult;
import dev.durablestore.bench.Workload;
import dev.durablestore.bench.raw.RawLoader;
import dev.durablestore.bench.raw.RawRows;
import dev.durablestore.core.codec.EventCodec;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * P6: heap growth while many rows pass through {@code claimStream} one row of demand at a time.
 * Runs {@link ClaimStreamMemoryProbe} in a child JVM with a small {@code -Xmx}, on a file loaded
 * with pending rows by raw JDBC.
 */
public final class ClaimStreamMemory implements Workload {

    private static final double MB = 1024.0 * 1024.0;

    static final Target GROWTH = Target.absolute(
            "P6-heap-growth",
            "heap growth after GC: 1M rows (10k in --quick) through claimStream, 1 requested at a time, -Xmx128m",
            "MB",
            null,
            Comparison.BELOW,
            32.0);

    @Override
    public List<Target> targets() {
        return List.of(GROWTH);
    }

    @Override
    public String id() {
        return "P6";
    }

    @Override
    public Section run(RunContext ctx) throws Exception {
        int rows = ctx.sizes().memoryRows();
        String heap = ctx.sizes().memoryHeap();
        TargetResult.Builder growth = GROWTH.builder();
        List<Double> rate = new ArrayList<>();
        List<Double> peak = new ArrayList<>();
        List<Double> start = new ArrayList<>();
        RawLoader loader = new RawLoader(new RawRows(EventCodec.create()));
        Path template = ctx.freshDb("p6-template");
        loader.load(template, rows, OutboxStatus.PENDING);
        Section section = new Section(
                "P6",
                "Claim stream memory",
                "A file loaded by raw JDBC with " + rows + " pending rows (10 per workflow). Each run copies it "
                        + "and starts a child JVM (`-Xmx" + heap + "`, default GC) that opens the store "
                        + "(`synchronous=NORMAL`), passes the first 1,000 rows through a claim stream as warm-up, "
                        + "takes the used heap after `System.gc()` (three times, 100 ms apart) from "
                        + "`MemoryMXBean`, then passes every other row through a new claim stream whose subscriber "
                        + "requests one row, requests the next when it arrives and completes each row (the complete "
                        + "is not awaited before the next request, so it can share the next claim's commit), and "
                        + "takes the used heap after GC again. The figure is end − start. A child that fails "
                        + "(e.g. `OutOfMemoryError`) counts as not met.");
        try {
            for (int run = 1; run <= ctx.runs(); run++) {
                ctx.log("P6 run " + run + "/" + ctx.runs() + " (" + rows + " rows in a child JVM, -Xmx" + heap + ")");
                Path db = ctx.freshDb("p6-run");
                Files.copy(template, db);
                try {
                    Map<String, Long> m = child(db, rows, heap);
                    if (m == null) {
                        growth.run(Double.NaN, Double.NaN);
                        section.note("run " + run + ": the child JVM failed (see the log)");
                        continue;
                    }
                    double grown = (m.get("end") - m.get("start")) / MB;
                    growth.run(grown, Double.NaN);
                    start.add(m.get("start") / MB);
                    peak.add(m.get("peak") / MB);
                    rate.add(m.get("rows") * 1e9 / m.get("nanos"));
                    ctx.log(String.format(
                            "P6   heap %.1f MB → %.1f MB after GC (growth %.2f MB), %.0f rows/s",
                            m.get("start") / MB, m.get("end") / MB, grown, rate.get(rate.size() - 1)));
                } finally {
                    ctx.delete(db);
                }
            }
        } finally {
            ctx.delete(template);
        }
        return section.target(growth.build())
                .figure("used heap after GC at start", start, "MB")
                .figure("peak used heap during the stream (before GC)", peak, "MB")
                .figure("rows/s through the one-at-a-time stream", rate, "rows/s");
    }

    private static Map<String, Long> child(Path db, int rows, String heap) throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(
                java,
                "-Xmx" + heap,
                "-cp",
                System.getProperty("java.class.path"),
                ClaimStreamMemoryProbe.class.getName(),
                db.toString(),
                Integer.toString(rows));
        pb.redirectError(ProcessBuilder.Redirect.INHERIT);
        Process p = pb.start();
        Map<String, Long> result = null;
        try (BufferedReader out =
                new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                if (line.startsWith("MEMORY ")) {
                    result = new HashMap<>();
                    for (String kv : line.substring(7).trim().split(" ")) {
                        String[] parts = kv.split("=");
                        result.put(parts[0], Long.parseLong(parts[1]));
                    }
                }
            }
        }
        if (!p.waitFor(3, TimeUnit.HOURS)) {
            p.destroyForcibly();
            return null;
        }
        return p.exitValue() == 0 ? result : null;
    }
}
