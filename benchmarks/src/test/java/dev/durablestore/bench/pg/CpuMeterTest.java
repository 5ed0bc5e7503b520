package dev.durablestore.bench.pg;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * The server CPU is read from {@code /proc/<pid>/stat} fields that follow a command name which may
 * hold spaces and parentheses; a wrong field would report another number as CPU time.
 */
class CpuMeterTest {

    @Test
    void readsPpidAndTheFourTimesAfterTheLastParenthesis() {
        String stat = "4242 (postgres: a (b) c) S 17 4242 4242 0 -1 4194304 100 0 0 0 " + "31 7 5 3 20 0 1 0 12345 0 0";
        assertThat(CpuMeter.parseStat(stat)).containsExactly(17L, 31L, 7L, 5L, 3L);
    }

    @Test
    void perThousandRowsIsMillisecondsPerThousand() {
        CpuMeter meter = new CpuMeter(OptionalLong.empty());
        CpuMeter.Sample zero = new CpuMeter.Sample(0, 0);
        CpuMeter.Cost cost = meter.since(zero, 1_000_000_000L);
        // the JVM has spent some CPU already: per 10^9 rows that is well under a millisecond per 1,000
        assertThat(cost.jvm()).isPositive().isLessThan(1.0);
        assertThat(cost.server()).isNaN();
    }

    @Test
    void theServerOfThisProcessIsItsOwnTree() {
        CpuMeter meter = new CpuMeter(OptionalLong.of(ProcessHandle.current().pid()));
        assertThat(meter.sample().serverNanos()).isPositive();
    }
}
