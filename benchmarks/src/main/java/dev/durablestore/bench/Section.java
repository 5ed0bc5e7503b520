package dev.durablestore.bench;

import dev.durablestore.bench.Stats.Summary;
import java.util.ArrayList;
import java.util.List;

/**
 * What one workload reports: its targets, extra figures worth knowing when tuning (context, not
 * judged), and how it was measured.
 */
public final class Section {

    /**
     * A figure shown for context only.
     *
     * @param label what was measured
     * @param value its median and min–max over the runs
     * @param unit the unit
     */
    public record Figure(String label, Summary value, String unit) {}

    /**
     * Two figures measured in the same runs and shown side by side, e.g. one workload on two stores;
     * context, not judged.
     *
     * @param label what was measured
     * @param firstLabel what the first figure is, e.g. {@code PostgreSQL}
     * @param first the first figure's median and min–max over the runs
     * @param secondLabel what the second figure is, e.g. {@code SQLite}
     * @param second the second figure's
     * @param ratio the per-run ratios first/second
     * @param unit the unit of both figures
     */
    public record SideBySide(
            String label,
            String firstLabel,
            Summary first,
            String secondLabel,
            Summary second,
            Summary ratio,
            String unit) {}

    private final String id;
    private final String title;
    private final String method;
    private final List<TargetResult> targets = new ArrayList<>();
    private final List<Figure> figures = new ArrayList<>();
    private final List<SideBySide> sideBySides = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();

    /**
     * @param id the target group, e.g. {@code P1}
     * @param title a short title
     * @param method how the workload is measured, one paragraph of markdown
     */
    public Section(String id, String title, String method) {
        this.id = id;
        this.title = title;
        this.method = method;
    }

    /** @param result a target of this section @return this */
    public Section target(TargetResult result) {
        targets.add(result);
        return this;
    }

    /**
     * @param label what was measured
     * @param values the per-run values
     * @param unit the unit
     * @return this
     */
    public Section figure(String label, List<Double> values, String unit) {
        figures.add(new Figure(label, Stats.summarize(values), unit));
        return this;
    }

    /**
     * Adds two figures measured in the same runs, with their per-run ratio first/second.
     *
     * @param label what was measured
     * @param unit the unit of both
     * @param firstLabel what the first figure is
     * @param first the first figure's per-run values
     * @param secondLabel what the second figure is
     * @param second the second figure's per-run values, in the same run order
     * @return this
     */
    public Section sideBySide(
            String label, String unit, String firstLabel, List<Double> first, String secondLabel, List<Double> second) {
        List<Double> ratios;
        try {
            ratios = Stats.ratios(first, second);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(label + ": " + e.getMessage(), e);
        }
        sideBySides.add(new SideBySide(
                label,
                firstLabel,
                Stats.summarize(first),
                secondLabel,
                Stats.summarize(second),
                Stats.summarize(ratios),
                unit));
        return this;
    }

    /** @param note a remark seen while measuring, e.g. a failed run @return this */
    public Section note(String note) {
        notes.add(note);
        return this;
    }

    /** @return the target group id */
    public String id() {
        return id;
    }

    /** @return the title */
    public String title() {
        return title;
    }

    /** @return how it was measured */
    public String method() {
        return method;
    }

    /** @return the targets */
    public List<TargetResult> targets() {
        return targets;
    }

    /** @return the context figures */
    public List<Figure> figures() {
        return figures;
    }

    /** @return the figures shown side by side */
    public List<SideBySide> sideBySides() {
        return sideBySides;
    }

    /** @return remarks */
    public List<String> notes() {
        return notes;
    }
}
