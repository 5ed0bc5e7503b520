package dev.durablestore.bench.pg;

import dev.durablestore.bench.Section;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The per-run {@link Measured} figures of the {@code PG} workload by label, in the order first
 * recorded, and how they enter the section: each rate as a context figure, and its CPU per 1,000
 * (JVM beside server) as a side-by-side row.
 */
final class MeteredFigures {

    private record Series(String unit, List<Measured> runs) {}

    private final Map<String, Series> byLabel = new LinkedHashMap<>();

    /**
     * @param label what was measured
     * @param unit the rate's unit, e.g. {@code rows/s}
     * @param measured one run's figure
     * @return {@code measured}
     */
    Measured add(String label, String unit, Measured measured) {
        byLabel.computeIfAbsent(label, l -> new Series(unit, new ArrayList<>()))
                .runs()
                .add(measured);
        return measured;
    }

    /** @param section receives every rate, then every CPU row */
    void addTo(Section section) {
        addTo(section, "");
    }

    /**
     * @param section receives every rate, then every CPU row
     * @param prefix put before every label (e.g. {@code drain: })
     */
    void addTo(Section section, String prefix) {
        byLabel.forEach((label, s) -> section.figure(
                prefix + label, s.runs().stream().map(Measured::perSecond).toList(), s.unit()));
        byLabel.forEach((label, s) -> section.sideBySide(
                prefix + "CPU ms per 1,000 " + s.unit().replace("/s", "") + ": " + label,
                "ms",
                "JVM",
                s.runs().stream().map(m -> m.cpu().jvm()).toList(),
                "server",
                s.runs().stream().map(m -> m.cpu().server()).toList()));
    }
}
