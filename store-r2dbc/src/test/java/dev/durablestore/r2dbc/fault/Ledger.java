package dev.durablestore.r2dbc.fault;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.WorkflowId;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What the fault tests' loads ({@link WriteLoad}, {@link FailoverLoad}) must find stored for one
 * workflow, whose step {@code k} writes event {@code k} with the rows of ordinals {@code 2k} and
 * {@code 2k + 1}.
 */
final class Ledger {

    private Ledger() {}

    /**
     * Checks one workflow: its acknowledged steps stored, its history contiguous from 1, and both rows
     * of every stored event and no row of a missing one (an unacknowledged write whole or absent).
     *
     * @param w the workflow
     * @param events the sequences of its stored events
     * @param rows the ordinals of its stored outbox rows
     * @param acknowledged the steps whose write was acknowledged
     */
    static void assertWorkflowHolds(WorkflowId w, Set<Long> events, Set<Long> rows, Set<Long> acknowledged) {
        assertThat(events).as("acknowledged writes of %s", w).containsAll(acknowledged);
        List<Long> contiguous = new ArrayList<>();
        for (long k = 1; k <= events.size(); k++) {
            contiguous.add(k);
        }
        assertThat(events).as("history of %s", w).containsExactlyElementsOf(contiguous);
        Set<Long> expectedRows = new HashSet<>();
        events.forEach(k -> {
            expectedRows.add(2 * k);
            expectedRows.add(2 * k + 1);
        });
        assertThat(rows)
                .as("outbox rows of %s: both rows of every stored event, none of a missing one", w)
                .containsExactlyInAnyOrderElementsOf(expectedRows);
    }
}
