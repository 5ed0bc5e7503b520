package dev.durablestore.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Writes the results: a plain-text table and the {@code RESULT} lines on the console, and the
 * markdown report ({@code BENCHMARKS.md}).
 */
public final class ReportWriter {

    /**
     * Everything a report shows.
     *
     * @param command the command that produced it
     * @param quick whether the sizes were the quick ones
     * @param runs runs per figure
     * @param machine labelled facts about the machine
     * @param seconds how long the whole runner took
     * @param sections the workloads' results, in order
     */
    public record Report(
            String command,
            boolean quick,
            int runs,
            Map<String, String> machine,
            double seconds,
            List<Section> sections) {

        /** @return every target result, in order */
        public List<TargetResult> results() {
            List<TargetResult> all = new ArrayList<>();
            for (Section s : sections) {
                all.addAll(s.targets());
            }
            return all;
        }
    }

    private static final String[] HEADER = {"target", "store", "baseline", "ratio", "target", "met"};

    private ReportWriter() {}

    /**
     * Prints the table, then one {@code RESULT} line per target.
     *
     * @param report the report
     * @param out where to print
     */
    public static void printConsole(Report report, PrintStream out) {
        List<String[]> rows = new ArrayList<>();
        rows.add(HEADER);
        for (TargetResult r : report.results()) {
            rows.add(new String[] {
                r.target().id(),
                figure(r.store(), r.target().unit()),
                r.baseline() == null ? "–" : figure(r.baseline(), r.target().unit()),
                r.ratio() == null ? "–" : r.ratio().format() + "×",
                r.target().text(),
                r.failure() != null ? "FAILED" : r.met() ? "yes" : "NO"
            });
        }
        int[] width = new int[HEADER.length];
        for (String[] row : rows) {
            for (int i = 0; i < row.length; i++) {
                width[i] = Math.max(width[i], row[i].length());
            }
        }
        out.println();
        out.println("durable-store benchmarks (" + (report.quick() ? "quick sizes" : "full sizes") + ", median of "
                + report.runs() + " run(s), [min–max] over runs)");
        for (int r = 0; r < rows.size(); r++) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < width.length; i++) {
                line.append(String.format("%-" + width[i] + "s", rows.get(r)[i]));
                if (i < width.length - 1) {
                    line.append(" | ");
                }
            }
            out.println(line.toString().stripTrailing());
            if (r == 0) {
                StringBuilder rule = new StringBuilder();
                for (int i = 0; i < width.length; i++) {
                    rule.append("-".repeat(width[i])).append(i < width.length - 1 ? "-+-" : "");
                }
                out.println(rule);
            }
        }
        out.println();
        for (Section s : report.sections()) {
            if (!s.sideBySides().isEmpty()) {
                out.println(s.id() + " — " + s.title() + " (context, not judged; ratio = first ÷ second)");
                for (Section.SideBySide f : s.sideBySides()) {
                    out.println("  " + f.label() + ": " + figure(f.first(), f.unit()) + " (" + f.firstLabel()
                            + ") vs " + figure(f.second(), f.unit()) + " (" + f.secondLabel() + "), "
                            + f.ratio().format() + "×");
                }
                out.println();
            }
        }
        for (TargetResult r : report.results()) {
            out.println(r.resultLine());
        }
        out.flush();
    }

    /**
     * Writes the markdown report.
     *
     * @param report the report
     * @param file where to write it
     * @throws IOException on failure
     */
    public static void writeMarkdown(Report report, Path file) throws IOException {
        StringBuilder md = new StringBuilder();
        List<TargetResult> results = report.results();
        long met = results.stream().filter(TargetResult::met).count();
        md.append("# Benchmarks\n\n");
        md.append("Written by the workload runner (`dev.durablestore.bench.BenchmarkRunner` in `benchmarks/`); "
                        + "rerun the command below to refresh it. Every figure is the **median of ")
                .append(report.runs())
                .append(report.runs() == 1 ? " run" : " runs")
                .append("** with the [min–max] over the runs; every ratio is "
                        + "store ÷ baseline, both measured back to back in the same run, and its median is taken over the "
                        + "per-run ratios. **")
                .append(met)
                .append(" of ")
                .append(results.size())
                .append(" targets met.**\n\n");
        if (report.quick()) {
            md.append("> These are **quick** sizes (`--quick`): smaller than issue 5 names. Run without "
                    + "`--quick` for the figures that count.\n\n");
        }
        md.append("Command: `")
                .append(report.command())
                .append("` (")
                .append(report.quick() ? "quick" : "full")
                .append(" sizes, ")
                .append(report.runs())
                .append(report.runs() == 1 ? " run, " : " runs, ")
                .append(String.format(java.util.Locale.ROOT, "%.0f", report.seconds()))
                .append(" s in all)\n\n");
        md.append("## Machine\n\n| | |\n|---|---|\n");
        report.machine()
                .forEach((k, v) -> md.append("| ")
                        .append(k)
                        .append(" | ")
                        .append(escape(v))
                        .append(" |\n"));
        md.append("\n## Summary\n\n");
        md.append("| id | what | store | baseline | ratio | target | met |\n");
        md.append("|---|---|---|---|---|---|---|\n");
        for (TargetResult r : results) {
            md.append(row(r, true));
        }
        for (Section s : report.sections()) {
            md.append("\n## ").append(s.id()).append(" — ").append(s.title()).append("\n\n");
            md.append(s.method()).append("\n\n");
            if (!s.targets().isEmpty()) {
                md.append("| id | store | baseline | ratio | target | met |\n");
                md.append("|---|---|---|---|---|---|\n");
                for (TargetResult r : s.targets()) {
                    md.append(row(r, false));
                }
            }
            if (!s.sideBySides().isEmpty()) {
                md.append(s.targets().isEmpty() ? "" : "\n")
                        .append("Side by side, measured in the same runs (context, not judged; ratio = first ÷ "
                                + "second, the median of the per-run ratios):\n\n")
                        .append("| figure | first | second | ratio |\n|---|---|---|---|\n");
                for (Section.SideBySide f : s.sideBySides()) {
                    md.append("| ")
                            .append(escape(f.label()))
                            .append(" | ")
                            .append(figure(f.first(), f.unit()))
                            .append(" (")
                            .append(escape(f.firstLabel()))
                            .append(") | ")
                            .append(figure(f.second(), f.unit()))
                            .append(" (")
                            .append(escape(f.secondLabel()))
                            .append(") | ")
                            .append(f.ratio().format())
                            .append("× |\n");
                }
            }
            if (!s.figures().isEmpty()) {
                md.append("\nContext (not judged):\n\n| figure | median [min–max] |\n|---|---|\n");
                for (Section.Figure f : s.figures()) {
                    md.append("| ")
                            .append(escape(f.label()))
                            .append(" | ")
                            .append(figure(f.value(), f.unit()))
                            .append(" |\n");
                }
            }
            for (String note : s.notes()) {
                md.append("\n> ").append(escape(note)).append('\n');
            }
        }
        md.append("\n## Baselines\n\n");
        md.append("Every baseline is plain JDBC on sqlite-jdbc, on one thread, on a fresh file per measurement, "
                + "opened like the store's writer (WAL, the same `synchronous`, 10 s busy timeout, temporary "
                + "storage in memory, explicit `BEGIN IMMEDIATE`/`COMMIT`, prepared statements reused). It creates "
                + "the store's schema (tables and indexes, copied as text from `Schema.java`) and runs the store's "
                + "statements (copied from `EventRows`, `OutboxRows`, `ClaimCommand`, `SettleCommand`, "
                + "`OutboxWrites`), encoding and decoding with the same public `EventCodec`. The "
                + "one-operation-per-transaction baselines are the original design: one `BEGIN IMMEDIATE` per "
                + "append, and a `SELECT` then an `UPDATE` per claimed row.\n");
        md.append("\n## Machine-readable lines\n\n```\n");
        for (TargetResult r : results) {
            md.append(r.resultLine()).append('\n');
        }
        md.append("```\n");
        Files.writeString(file, md.toString(), StandardCharsets.UTF_8);
    }

    private static String row(TargetResult r, boolean withTitle) {
        StringBuilder sb = new StringBuilder("| `").append(r.target().id()).append("` | ");
        if (withTitle) {
            sb.append(escape(r.target().title())).append(" | ");
        }
        sb.append(figure(r.store(), r.target().unit())).append(" | ");
        if (r.baseline() == null) {
            sb.append("–");
        } else {
            sb.append(figure(r.baseline(), r.target().unit()));
            if (r.target().baselineLabel() != null) {
                sb.append(" (").append(escape(r.target().baselineLabel())).append(')');
            }
        }
        sb.append(" | ").append(r.ratio() == null ? "–" : r.ratio().format() + "×");
        sb.append(" | ").append(r.target().text()).append(" | ").append(met(r));
        if (r.failure() != null) {
            sb.append(" (").append(escape(r.failure())).append(')');
        }
        return sb.append(" |\n").toString();
    }

    private static String met(TargetResult r) {
        if (r.failure() != null) {
            return "FAILED";
        }
        return r.met() ? "yes" : "**no**";
    }

    private static String figure(Stats.Summary s, String unit) {
        if (s.count() == 0) {
            return "–";
        }
        return s.format() + (unit == null || unit.isEmpty() ? "" : " " + unit);
    }

    private static String escape(String text) {
        return text.replace("|", "\\|").replace("\n", " ");
    }
}
