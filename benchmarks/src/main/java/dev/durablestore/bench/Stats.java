package dev.durablestore.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The small statistics the runner needs: medians, extremes and nearest-rank percentiles of a
 * sample, and the {@link Summary} of one figure over several runs.
 */
public final class Stats {

    private Stats() {}

    /**
     * The median, minimum and maximum of one figure over the runs of a target.
     *
     * @param median the median (mean of the two middle values for an even count)
     * @param min the smallest value
     * @param max the largest value
     * @param count how many values
     */
    public record Summary(double median, double min, double max, int count) {

        /** @return {@code median [min–max]} with up to three significant decimals */
        public String format() {
            if (count == 0) {
                return "–";
            }
            if (count == 1) {
                return Stats.format(median);
            }
            return Stats.format(median) + " [" + Stats.format(min) + "–" + Stats.format(max) + "]";
        }
    }

    /**
     * @param values the values of each run; {@code NaN} marks a failed run
     * @return their median (NaN when a run failed), minimum and maximum
     */
    public static Summary summarize(List<Double> values) {
        if (values.isEmpty()) {
            return new Summary(Double.NaN, Double.NaN, Double.NaN, 0);
        }
        double[] sorted = values.stream()
                .mapToDouble(Double::doubleValue)
                .filter(v -> !Double.isNaN(v))
                .sorted()
                .toArray();
        if (sorted.length == 0) {
            return new Summary(Double.NaN, Double.NaN, Double.NaN, values.size());
        }
        // a failed run (NaN) makes the median unknown: the target is then not met
        double median = sorted.length == values.size() ? median(sorted) : Double.NaN;
        return new Summary(median, sorted[0], sorted[sorted.length - 1], values.size());
    }

    /**
     * @param first per-run values
     * @param second per-run values of the same runs, in the same order
     * @return the per-run ratios first/second
     * @throws IllegalArgumentException when the two hold different numbers of runs
     */
    public static List<Double> ratios(List<Double> first, List<Double> second) {
        if (first.size() != second.size()) {
            throw new IllegalArgumentException("ratios of " + first.size() + " runs to " + second.size() + " runs");
        }
        List<Double> ratios = new ArrayList<>(first.size());
        for (int i = 0; i < first.size(); i++) {
            ratios.add(first.get(i) / second.get(i));
        }
        return ratios;
    }

    /**
     * @param sorted ascending values; not empty
     * @return the median
     */
    public static double median(double[] sorted) {
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
    }

    /**
     * Nearest-rank percentile.
     *
     * @param sorted ascending values; not empty
     * @param p the percentile, 0 to 100
     * @return the smallest value with at least {@code p}% of the values at or below it
     */
    public static double percentile(double[] sorted, double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    /**
     * @param nanos latencies in nanoseconds
     * @return the latencies in milliseconds, sorted ascending
     */
    public static double[] sortedMillis(long[] nanos) {
        double[] ms = new double[nanos.length];
        for (int i = 0; i < nanos.length; i++) {
            ms[i] = nanos[i] / 1_000_000.0;
        }
        Arrays.sort(ms);
        return ms;
    }

    /**
     * @param count operations done
     * @param nanos elapsed nanoseconds
     * @return operations per second
     */
    public static double perSecond(long count, long nanos) {
        return count * 1_000_000_000.0 / nanos;
    }

    /**
     * Formats a figure for tables: integers above 100 without decimals, smaller values with up to
     * three significant decimals.
     *
     * @param v the value
     * @return its text; {@code NaN} as {@code n/a}
     */
    public static String format(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return "n/a";
        }
        double a = Math.abs(v);
        if (a >= 100) {
            return String.format(java.util.Locale.ROOT, "%,.0f", v);
        }
        if (a >= 10) {
            return String.format(java.util.Locale.ROOT, "%.1f", v);
        }
        if (a >= 1) {
            return String.format(java.util.Locale.ROOT, "%.2f", v);
        }
        return String.format(java.util.Locale.ROOT, "%.3f", v);
    }

    /**
     * Formats a figure for the machine-readable lines: plain decimal, no grouping.
     *
     * @param v the value
     * @return e.g. {@code 0.912} or {@code NaN}
     */
    public static String plain(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return "NaN";
        }
        return String.format(java.util.Locale.ROOT, "%.4f", v)
                .replaceAll("0+$", "")
                .replaceAll("\\.$", "");
    }
}
