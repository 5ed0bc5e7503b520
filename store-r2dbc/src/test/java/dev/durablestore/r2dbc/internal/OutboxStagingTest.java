package dev.durablestore.r2dbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.Payload;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.internal.Rows;
import dev.durablestore.core.internal.OutboxRowEncoder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How staging and re-arm on PostgreSQL cut a call into statements and send each key once. */
class OutboxStagingTest {

    private static final WorkflowId W = WorkflowId.random();

    private static OutboxRowEncoder.Encoded row(String key, int inputBytes, long visibleAfter, String activity) {
        OutboxRow row = Rows.stored(
                key,
                W,
                0,
                null,
                OutboxRow.DEFAULT_ROUTE,
                OutboxRow.DEFAULT_ROUTE,
                null,
                activity,
                Payload.json("{}"),
                OutboxStatus.PENDING,
                0,
                Instant.EPOCH,
                null,
                0L,
                null,
                OutboxRow.MIN_PRIORITY,
                List.of());
        return new OutboxRowEncoder.Encoded(row, new byte[inputBytes], visibleAfter, null);
    }

    private static List<OutboxRowEncoder.Encoded> rows(int n, int inputBytes) {
        List<OutboxRowEncoder.Encoded> rows = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            rows.add(row("k" + i, inputBytes, 0, "a"));
        }
        return rows;
    }

    private static List<Integer> sizes(List<List<OutboxRowEncoder.Encoded>> statements) {
        return statements.stream().map(List::size).toList();
    }

    @Test
    void a_call_within_the_limits_is_one_statement() {
        List<OutboxRowEncoder.Encoded> rows = rows(OutboxStaging.MAX_ROWS, 10);

        assertThat(OutboxStaging.statements(rows)).containsExactly(rows);
    }

    @Test
    void more_rows_than_one_statement_carries_go_on_in_the_next_in_list_order() {
        List<OutboxRowEncoder.Encoded> rows = rows(2 * OutboxStaging.MAX_ROWS + 1, 10);

        List<List<OutboxRowEncoder.Encoded>> statements = OutboxStaging.statements(rows);

        assertThat(sizes(statements)).containsExactly(OutboxStaging.MAX_ROWS, OutboxStaging.MAX_ROWS, 1);
        assertThat(statements.stream().flatMap(List::stream).toList()).isEqualTo(rows);
    }

    @Test
    void more_payload_bytes_than_one_statement_carries_go_on_in_the_next_and_a_larger_row_goes_alone() {
        int third = (int) (OutboxStaging.MAX_BYTES / 3);
        List<OutboxRowEncoder.Encoded> rows = new ArrayList<>(rows(4, third));
        rows.add(1, row("huge", (int) OutboxStaging.MAX_BYTES + 1, 0, "a"));

        assertThat(sizes(OutboxStaging.statements(rows))).containsExactly(1, 1, 3);
    }

    @Test
    void a_key_repeated_in_a_rearm_is_sent_once_with_its_first_values_and_its_last_visibility_in_key_order() {
        List<OutboxRowEncoder.Encoded> list = List.of(
                row("b", 1, 10, "first"), row("a", 1, 20, "a"), row("b", 2, 30, "second"), row("b", 3, 40, "third"));

        List<OutboxRowEncoder.Encoded> sent = OutboxStaging.onePerKeyInKeyOrder(list);

        assertThat(sent).extracting(e -> e.row().dispatchKey()).containsExactly("a", "b");
        assertThat(sent.get(1).row().activityType()).isEqualTo("first");
        assertThat(sent.get(1).input()).hasSize(1);
        assertThat(sent.get(1).visibleAfterNanos()).isEqualTo(40);
    }
}
