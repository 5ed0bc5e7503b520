package dev.durablestore.bench;

import dev.durablestore.bench.Stats.Summary;
import java.util.ArrayList;
import java.util.List;

/**
 * The outcome of one {@link Target} over all runs: the store's figure, the baseline's figure and
 * their per-run ratio, each as median and min–max, and whether the target is met.
 *
 * <p>For a {@link Target.Judged#RATIO ratio target} the value judged is the median of the per-run
 * ratios store/baseline (store and baseline measured back to back in the same run); for an
 * {@link Target.Judged#STORE absolute target} (latency, heap growth) it is the median of the
 * store's per-run figures, and the baseline, when present, is context only.
 *
 * @param target the target
 * @param store the store's figure
 * @param baseline the baseline's figure, or {@code null}
 * @param ratio the per-run ratios store/baseline, or {@code null}
 * @param failure why the workload could not measure it, or {@code null}
 */
public record TargetResult(Target target, Summary store, Summary baseline, Summary ratio, String failure) {

    /**
     * @param target the target
     * @param why what went wrong
     * @return a result that is not met because nothing could be measured
     */
    public static TargetResult failed(Target target, String why) {
        Summary none = Stats.summarize(List.of());
        return new TargetResult(target, none, null, null, why);
    }

    /** @return the number the target is about; NaN when it could not be measured */
    public double value() {
        if (target.judged() == Target.Judged.RATIO) {
            return ratio == null ? Double.NaN : ratio.median();
        }
        return store.median();
    }

    /** @return whether the value satisfies the target */
    public boolean met() {
        return target.comparison().holds(value(), target.value());
    }

    /** @return the exact machine-readable line: {@code RESULT <id> value=<n> target=<n> met=<bool>} */
    public String resultLine() {
        return "RESULT " + target.id() + " value=" + Stats.plain(value()) + " target=" + Stats.plain(target.value())
                + " met=" + met();
    }

    /** Collects the per-run figures of one target. */
    public static final class Builder {
        private final Target target;
        private final List<Double> store = new ArrayList<>();
        private final List<Double> baseline = new ArrayList<>();
        private final List<Double> ratios = new ArrayList<>();

        Builder(Target target) {
            this.target = target;
        }

        /**
         * Records one run.
         *
         * @param storeValue the store's figure ({@code NaN} when the run failed)
         * @param baselineValue the baseline's figure of the same run, or {@code NaN} for none
         * @return this
         */
        public Builder run(double storeValue, double baselineValue) {
            store.add(storeValue);
            if (!Double.isNaN(baselineValue)) {
                baseline.add(baselineValue);
                ratios.add(storeValue / baselineValue);
            }
            return this;
        }

        /** @return the result over the recorded runs */
        public TargetResult build() {
            boolean hasBaseline = !baseline.isEmpty();
            return new TargetResult(
                    target,
                    Stats.summarize(store),
                    hasBaseline ? Stats.summarize(baseline) : null,
                    hasBaseline ? Stats.summarize(ratios) : null,
                    null);
        }
    }
}
