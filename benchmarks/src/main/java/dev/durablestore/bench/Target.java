package dev.durablestore.bench;

/**
 * One target of issue 5, as declared by its workload before anything runs (so a workload that
 * fails still reports each of its targets as not met).
 *
 * @param id the machine-readable id, e.g. {@code P1-normal-vs-raw100}
 * @param title what is compared, in words
 * @param unit the unit of the store's and the baseline's figures, e.g. {@code appends/s}
 * @param baselineLabel what the baseline is, or {@code null} when there is none
 * @param judged which figure the target is about
 * @param comparison how that figure is compared with {@code value}
 * @param value the target number
 */
public record Target(
        String id,
        String title,
        String unit,
        String baselineLabel,
        Judged judged,
        Comparison comparison,
        double value) {

    /** Which figure a target judges. */
    public enum Judged {
        /** the median of the per-run ratios store/baseline (both measured in the same run) */
        RATIO,
        /** the median of the store's per-run figure; a baseline, if any, is context */
        STORE
    }

    /** How a figure is compared with its target. */
    public enum Comparison {
        /** figure ≥ target */
        AT_LEAST("≥"),
        /** figure ≤ target */
        AT_MOST("≤"),
        /** figure &lt; target */
        BELOW("<");

        private final String symbol;

        Comparison(String symbol) {
            this.symbol = symbol;
        }

        /** @return the mathematical symbol */
        public String symbol() {
            return symbol;
        }

        /**
         * @param figure the measured figure
         * @param target the target
         * @return whether the figure satisfies the target; never for NaN
         */
        public boolean holds(double figure, double target) {
            if (Double.isNaN(figure)) {
                return false;
            }
            return switch (this) {
                case AT_LEAST -> figure >= target;
                case AT_MOST -> figure <= target;
                case BELOW -> figure < target;
            };
        }
    }

    /**
     * A target on the ratio store/baseline.
     *
     * @param id the id
     * @param title what is compared
     * @param unit the unit of both figures
     * @param baselineLabel what the baseline is
     * @param comparison how the ratio is compared
     * @param ratio the target ratio
     * @return the target
     */
    public static Target ratio(
            String id, String title, String unit, String baselineLabel, Comparison comparison, double ratio) {
        return new Target(id, title, unit, baselineLabel, Judged.RATIO, comparison, ratio);
    }

    /**
     * A target on the store's own figure.
     *
     * @param id the id
     * @param title what is measured
     * @param unit its unit
     * @param contextLabel what a context baseline is, or {@code null}
     * @param comparison how the figure is compared
     * @param value the target figure
     * @return the target
     */
    public static Target absolute(
            String id, String title, String unit, String contextLabel, Comparison comparison, double value) {
        return new Target(id, title, unit, contextLabel, Judged.STORE, comparison, value);
    }

    /** @return e.g. {@code ≥ 0.8×} or {@code ≤ 1.00 ms} */
    public String text() {
        String number = Stats.plain(value);
        return comparison.symbol() + " " + (judged == Judged.RATIO ? number + "×" : number + " " + unit);
    }

    /** @return a collector for this target's per-run figures */
    public TargetResult.Builder builder() {
        return new TargetResult.Builder(this);
    }
}
