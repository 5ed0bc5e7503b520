package dev.durablestore.sqlite.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * O63 and O64 across processes: two JVMs claim serially with a cap from one file at the same time;
 * no workflow ever has two rows claimed, none is handed out before the rows before it are done, the
 * route never has more rows claimed than the cap, and every row is completed exactly once. O65
 * likewise: two JVMs claiming as one node never hold more rows than its node cap between them.
 */
class CrossProcessPolicyTest {

    private static final int WORKFLOWS = 60;
    private static final int ROWS_PER_WORKFLOW = 5;
    private static final int CAP = 6;

    @TempDir
    Path dir;

    @Test
    void O63_O64_two_processes_keep_one_row_per_workflow_in_flight_and_the_route_under_its_cap() throws Exception {
        // given 300 pending rows of 60 workflows on route ns/q, all staged at once
        Path db = dir.resolve("shared.db");
        List<String> keys = TwoWorkers.stage(db, WORKFLOWS, ROWS_PER_WORKFLOW, row -> row.withRoute("ns", "q", null));

        // when two dispatcher processes drain it, each claiming serially with a cap of 6
        List<List<String>> outputs =
                TwoWorkers.run(PolicyClaimWorker.class, dir, db.toString(), "serial", "cap=" + CAP);
        // then every row was completed once, each held alone in its workflow after the rows
        // before it, and the route never above the cap
        Map<String, Integer> completions = TwoWorkers.completions(outputs);
        for (List<String> lines : outputs) {
            for (String line : lines) {
                if (line.startsWith("WORKFLOW ")) {
                    assertThat(line)
                            .as("one claimed row per workflow, none before it open")
                            .isEqualTo("WORKFLOW 1 0");
                } else if (line.startsWith("ROUTE ")) {
                    assertThat(Integer.parseInt(line.substring(6)))
                            .as("claimed rows of the route")
                            .isBetween(1, CAP);
                }
            }
        }
        assertThat(completions.values()).allMatch(n -> n == 1);
        assertThat(completions.keySet()).containsExactlyInAnyOrderElementsOf(keys);
        assertThat(outputs)
                .as("both processes took part")
                .allMatch(lines -> lines.stream().anyMatch(l -> l.startsWith("DONE ")));
    }

    @Test
    void O65_two_processes_claiming_as_one_node_keep_it_under_its_node_cap() throws Exception {
        // given 120 pending rows of 60 workflows on route ns/q, all staged at once
        Path db = dir.resolve("shared.db");
        List<String> keys = TwoWorkers.stage(db, WORKFLOWS, 2, row -> row.withRoute("ns", "q", null));

        // when two dispatcher processes drain it, both claiming as node n1 with a node cap of 6
        List<List<String>> outputs =
                TwoWorkers.run(PolicyClaimWorker.class, dir, db.toString(), "node=n1", "nodecap=" + CAP);

        // then every row was completed once, and the route, every row of which is claimed as n1,
        // never had more than the node cap claimed
        for (List<String> lines : outputs) {
            for (String line : lines) {
                if (line.startsWith("ROUTE ")) {
                    assertThat(Integer.parseInt(line.substring(6)))
                            .as("rows claimed as n1")
                            .isBetween(1, CAP);
                }
            }
        }
        Map<String, Integer> completions = TwoWorkers.completions(outputs);
        assertThat(completions.values()).allMatch(n -> n == 1);
        assertThat(completions.keySet()).containsExactlyInAnyOrderElementsOf(keys);
        assertThat(outputs)
                .as("both processes took part")
                .allMatch(lines -> lines.stream().anyMatch(l -> l.startsWith("DONE ")));
    }
}
