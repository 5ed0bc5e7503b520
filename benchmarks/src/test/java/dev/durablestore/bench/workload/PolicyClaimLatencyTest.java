package dev.durablestore.bench.workload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.bench.Fixtures;
import dev.durablestore.bench.RunContext;
import dev.durablestore.bench.Sizes;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * POL's pieces do what its method says: one staged row in ten gets a priority from 1 to 9, and the
 * claim latency is measured for every kind, each timed claim taking its full 64 rows (a claim that
 * came back short fails the measurement, so a figure never times a claim that found nothing).
 */
class PolicyClaimLatencyTest {

    @TempDir
    Path dir;

    @Test
    void prioritizesOneRowInTenWithPriorities1To9() {
        WorkflowId w = WorkflowId.random();
        List<OutboxRow> rows = new ArrayList<>();
        int n = 0;
        for (OutboxRow r : Fixtures.pendingRows(w, 90, Instant.now())) {
            rows.add(DispatchPolicyCost.prioritized(r, ++n));
        }
        List<Integer> priorities =
                rows.stream().map(OutboxRow::priority).filter(p -> p != 0).toList();
        assertThat(priorities).hasSize(9).containsExactlyInAnyOrder(1, 2, 3, 4, 5, 6, 7, 8, 9);
    }

    @Test
    void measuresEveryKindWithFullClaims() {
        try (RunContext ctx = new RunContext(Sizes.quick(), 1, dir, System.err)) {
            PolicyClaimLatency.Run run = PolicyClaimLatency.measure(ctx, 500, 12);
            int kinds = PolicyClaimLatency.Kind.values().length;
            assertThat(run.p50()).hasSize(kinds);
            for (int k = 0; k < kinds; k++) {
                assertThat(run.p50()[k]).isPositive();
                assertThat(run.p99()[k]).isGreaterThanOrEqualTo(run.p50()[k]);
            }
        }
    }
}
