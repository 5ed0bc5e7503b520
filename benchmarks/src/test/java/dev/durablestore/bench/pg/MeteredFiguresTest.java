package dev.durablestore.bench.pg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.bench.Section;
import org.junit.jupiter.api.Test;

/** Every measured rate reaches the section once per label, with its CPU beside it, runs in order. */
class MeteredFiguresTest {

    @Test
    void eachLabelBecomesOneRateAndOneCpuRow() {
        MeteredFigures figures = new MeteredFigures();
        figures.add("raw drain", "rows/s", new Measured(100, new CpuMeter.Cost(2, 4)));
        figures.add("db-scheduler", "executions/s", new Measured(50, new CpuMeter.Cost(1, Double.NaN)));
        figures.add("raw drain", "rows/s", new Measured(300, new CpuMeter.Cost(6, 8)));
        Section section = new Section("PG", "t", "m");

        figures.addTo(section);

        assertThat(section.figures()).extracting(Section.Figure::label).containsExactly("raw drain", "db-scheduler");
        assertThat(section.figures().get(0).value().median()).isEqualTo(200);
        assertThat(section.sideBySides())
                .extracting(Section.SideBySide::label)
                .containsExactly("CPU ms per 1,000 rows: raw drain", "CPU ms per 1,000 executions: db-scheduler");
        assertThat(section.sideBySides().get(0).first().median()).isEqualTo(4);
        assertThat(section.sideBySides().get(0).second().median()).isEqualTo(6);
        assertThat(section.sideBySides().get(1).second().median()).isNaN();
    }
}
