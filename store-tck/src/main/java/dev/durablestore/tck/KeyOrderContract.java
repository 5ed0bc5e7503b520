package dev.durablestore.tck;

import static dev.durablestore.tck.OutboxFixtures.input;
import static dev.durablestore.tck.OutboxFixtures.keys;
import static dev.durablestore.tck.OutboxFixtures.workflow;
import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.internal.Rows;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Text order is Unicode code point order (T4, O18) on every backend, also for characters outside
 * the Basic Multilingual Plane, where it differs from the UTF-16 order of {@link String#compareTo}:
 * U+1F600 ({@code "\uD83D\uDE00"}) sorts <em>after</em> U+FFFF in code points but before it in
 * UTF-16 units. The keys {@code heartbeat}, {@code cancelWorkflowRows} and {@code redriveWorkflow}
 * return, and the rows a claim returns (by {@code visibleAfter}, then key), follow code points.
 */
public abstract class KeyOrderContract extends OutboxContractSupport {

    /** The last character of the BMP: after every BMP character, before every supplementary one. */
    private static final String BMP_LAST = "a\uFFFF";
    /** U+1F600 (a surrogate pair): after {@link #BMP_LAST} in code points, before it in UTF-16. */
    private static final String ASTRAL = "a\uD83D\uDE00";
    /** Every key in code point order. */
    private static final List<String> CODE_POINT_ORDER = List.of("a", "a\u00E9", BMP_LAST, ASTRAL, "b");
    /** The same keys in an order that is neither code point nor UTF-16 order, for staging. */
    private static final List<String> SHUFFLED = List.of(ASTRAL, "b", BMP_LAST, "a", "a\u00E9");

    @Test
    void T4_O18_heartbeat_returns_the_refreshed_keys_in_code_point_order() {
        // given claimed rows whose keys differ in and beyond the BMP
        WorkflowId w = workflow(1);
        stageAll(rows(w, now()));
        Map<String, OutboxRow> claimed = claim(100).stream().collect(Collectors.toMap(OutboxRow::dispatchKey, r -> r));
        assertThat(claimed).hasSize(SHUFFLED.size());

        // when they are heartbeated, named in no particular order
        List<String> refreshed =
                store.heartbeat(SHUFFLED.stream().map(claimed::get).toList()).block(TIMEOUT);

        // then the keys come back in code point order: U+FFFF before U+1F600
        assertThat(refreshed).containsExactlyElementsOf(CODE_POINT_ORDER);
    }

    @Test
    void T4_O18_cancelWorkflowRows_returns_the_cancelled_keys_in_code_point_order() {
        // given live rows of one workflow whose keys differ in and beyond the BMP
        WorkflowId w = workflow(1);
        stageAll(rows(w, now()));

        // when the workflow's rows are cancelled
        List<String> cancelled = store.cancelWorkflowRows(w).block(TIMEOUT);

        // then the keys come back in code point order, and every row is cancelled
        assertInCodePointOrder(cancelled, OutboxStatus.CANCELLED);
    }

    @Test
    void T4_O18_redriveWorkflow_returns_the_redriven_keys_in_code_point_order() {
        // given dead-lettered rows of one workflow whose keys differ in and beyond the BMP
        WorkflowId w = workflow(1);
        stageAll(rows(w, now()));
        for (String key : SHUFFLED) {
            store.settleKeys(List.of(key), Settlement.fail()).block(TIMEOUT);
        }

        // when the workflow is redriven
        List<String> redriven = store.redriveWorkflow(w, true).block(TIMEOUT);

        // then the keys come back in code point order, and every row is pending again
        assertInCodePointOrder(redriven, OutboxStatus.PENDING);
    }

    @Test
    void T4_O18_a_claim_returns_rows_by_visibleAfter_then_key_in_code_point_order() {
        // given rows due at one instant with keys differing in and beyond the BMP, and an earlier
        // row whose key sorts last
        WorkflowId w = workflow(1);
        Instant later = now();
        stageAll(rows(w, later));
        OutboxRow earliest = keyed(workflow(2), 0, "z", later.minus(Duration.ofSeconds(1)));
        stage(earliest);

        // when every row is claimed
        List<OutboxRow> claimed = claim(100);

        // then the earlier row comes first, the others follow in code point order of their keys
        assertThat(keys(claimed)).containsExactly("z", "a", "a\u00E9", BMP_LAST, ASTRAL, "b");
    }

    /**
     * @param returned the keys a call returned
     * @param status the status the call left every row in
     */
    private void assertInCodePointOrder(List<String> returned, OutboxStatus status) {
        assertThat(returned).containsExactlyElementsOf(CODE_POINT_ORDER);
        for (String key : CODE_POINT_ORDER) {
            assertStatus(key, status);
        }
    }

    /** @return one pending row of {@code w} per key of {@link #SHUFFLED}, in that order */
    private static List<OutboxRow> rows(WorkflowId w, Instant visibleAfter) {
        return java.util.stream.IntStream.range(0, SHUFFLED.size())
                .mapToObj(i -> keyed(w, i, SHUFFLED.get(i), visibleAfter))
                .toList();
    }

    private static OutboxRow keyed(WorkflowId w, long ordinal, String key, Instant visibleAfter) {
        return Rows.stored(
                key,
                w,
                ordinal,
                null,
                OutboxRow.DEFAULT_ROUTE,
                OutboxRow.DEFAULT_ROUTE,
                null,
                OutboxFixtures.ACTIVITY,
                input(w, ordinal),
                OutboxStatus.PENDING,
                0,
                visibleAfter,
                null,
                0L,
                null,
                OutboxRow.MIN_PRIORITY,
                List.of());
    }
}
