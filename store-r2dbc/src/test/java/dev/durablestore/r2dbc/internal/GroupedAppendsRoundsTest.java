package dev.durablestore.r2dbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.Payload;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.internal.Rows;
import dev.durablestore.core.internal.EventEncoder;
import dev.durablestore.core.internal.OutboxRowEncoder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * How a group of appends is cut into rounds, so that one statement per round means what writing
 * the appends one by one in submission order would.
 */
class GroupedAppendsRoundsTest {

    private static final WorkflowId A = WorkflowId.random();
    private static final WorkflowId B = WorkflowId.random();
    private static final WorkflowId C = WorkflowId.random();

    private static GroupedAppends.Append append(WorkflowId w, long expected, String... keys) {
        return append(w, expected, 10, keys);
    }

    private static GroupedAppends.Append append(WorkflowId w, long expected, int payloadBytes, String... keys) {
        List<EventEncoder.Encoded> events = List.of(new EventEncoder.Encoded(
                expected + 1, new byte[payloadBytes], 0L, "SignalReceived", false, null, null));
        List<OutboxRowEncoder.Encoded> rows = new ArrayList<>();
        for (String key : keys) {
            OutboxRow row = Rows.stored(
                    key,
                    w,
                    0,
                    null,
                    OutboxRow.DEFAULT_ROUTE,
                    OutboxRow.DEFAULT_ROUTE,
                    null,
                    "activity",
                    Payload.json("{}"),
                    OutboxStatus.PENDING,
                    0,
                    Instant.EPOCH,
                    null,
                    0L,
                    null,
                    OutboxRow.MIN_PRIORITY,
                    List.of());
            rows.add(new OutboxRowEncoder.Encoded(row, new byte[2], 0L, null));
        }
        return new GroupedAppends.Append("append", w.toString(), expected, events, rows);
    }

    private static List<List<GroupedAppends.Append>> rounds(GroupedAppends.Append... appends) {
        return GroupedAppends.rounds(List.of(appends), Function.identity());
    }

    @Test
    void appends_of_different_workflows_share_one_round() {
        // given three appends of three workflows
        GroupedAppends.Append a = append(A, 0);
        GroupedAppends.Append b = append(B, 0);
        GroupedAppends.Append c = append(C, 0);

        // when cut into rounds, then they share one
        assertThat(rounds(a, b, c)).containsExactly(List.of(a, b, c));
    }

    @Test
    void a_workflow_appended_twice_gets_one_append_per_round_in_submission_order() {
        // given a pipelined caller's appends of A (heads 0, 1, 2) between appends of B and C
        GroupedAppends.Append a0 = append(A, 0);
        GroupedAppends.Append b = append(B, 0);
        GroupedAppends.Append a1 = append(A, 1);
        GroupedAppends.Append c = append(C, 0);
        GroupedAppends.Append a2 = append(A, 2);

        // when cut into rounds, then each of A's appends waits for the one before it
        assertThat(rounds(a0, b, a1, c, a2)).containsExactly(List.of(a0, b, c), List.of(a1), List.of(a2));
    }

    @Test
    void two_appends_staging_one_dispatch_key_go_in_submission_order() {
        // given two workflows' appends staging the same key (O9: the first staged wins)
        GroupedAppends.Append a = append(A, 0, "k1", "shared");
        GroupedAppends.Append b = append(B, 0, "shared");
        GroupedAppends.Append c = append(C, 0, "k3");

        // when cut into rounds, then the later one waits for the earlier's commit
        assertThat(rounds(a, b, c)).containsExactly(List.of(a, c), List.of(b));
    }

    @Test
    void what_comes_after_a_waiting_append_of_its_workflow_waits_too() {
        // given A twice, then a third append of A behind a key-blocked append
        GroupedAppends.Append a0 = append(A, 0, "k");
        GroupedAppends.Append b = append(B, 0, "k");
        GroupedAppends.Append b1 = append(B, 1);

        // when cut into rounds, then B's second append stays behind B's first
        assertThat(rounds(a0, b, b1)).containsExactly(List.of(a0), List.of(b), List.of(b1));
    }

    @Test
    void a_round_holds_at_most_the_byte_bound_but_a_larger_append_goes_alone() {
        // given three appends of just over a third of the byte bound each, and one larger than the bound
        int third = (int) (GroupedAppends.MAX_BYTES / 3) + 1;
        GroupedAppends.Append a = append(A, 0, third);
        GroupedAppends.Append b = append(B, 0, third);
        GroupedAppends.Append c = append(C, 0, third);
        GroupedAppends.Append huge = append(WorkflowId.random(), 0, (int) GroupedAppends.MAX_BYTES + 1);

        // when cut into rounds, then two fit a round, and the huge one is written alone
        assertThat(rounds(a, b, c, huge)).containsExactly(List.of(a, b), List.of(c), List.of(huge));
    }
}
