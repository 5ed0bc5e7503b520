package dev.durablestore.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.DispatchPolicy;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.Payload;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.internal.Rows;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ClaimsTest {

    private static final String BMP_HIGH = "k\uFFFF"; // U+FFFF
    private static final String ASTRAL = "k\uD83D\uDE00"; // U+1F600, a surrogate pair

    @Test
    void T4_O18_text_order_is_code_point_order_not_utf16_order() {
        // String.compareTo puts the surrogate (0xD83D) before 0xFFFF; SQL BINARY / "C" do not
        assertThat(ASTRAL.compareTo(BMP_HIGH)).isNegative();
        assertThat(Claims.CODE_POINT_ORDER.compare(BMP_HIGH, ASTRAL)).isNegative();
        assertThat(Claims.CODE_POINT_ORDER.compare("k", "k\u0000")).isNegative();
        assertThat(Claims.CODE_POINT_ORDER.compare(ASTRAL, ASTRAL)).isZero();
    }

    @Test
    void O19_claimed_rows_order_by_visible_after_then_dispatch_key_in_code_points() {
        Instant t = Instant.parse("2026-01-01T00:00:00Z");
        WorkflowId w = WorkflowId.random();
        OutboxRow astral = row(ASTRAL, w, t);
        OutboxRow bmp = row(BMP_HIGH, w, t);
        OutboxRow older = row("z", w, t.minusSeconds(1));
        List<OutboxRow> rows = new ArrayList<>(List.of(astral, bmp, older));
        rows.sort(Claims.CLAIM_ORDER);
        assertThat(rows).containsExactly(older, bmp, astral);
    }

    @Test
    void O24_X10_held_keys_name_a_null_argument_or_element() {
        assertThatThrownBy(() -> Claims.heldKeys(null))
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("held");
        Set<WorkflowId> withNull = new HashSet<>();
        withNull.add(null);
        assertThatThrownBy(() -> Claims.heldKeys(withNull))
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("held[]");
        WorkflowId w = WorkflowId.random();
        assertThat(Claims.heldKeys(Set.of(w))).containsExactly(w.toString());
    }

    @Test
    void O65_X10_a_node_cap_needs_a_scope_with_a_storable_node() {
        DispatchPolicy nodeCapped = DispatchPolicy.none().withNodeConcurrencyCap(2);
        for (ClaimScope scope : new ClaimScope[] {null, ClaimScope.of("ns", "q")}) {
            assertThatThrownBy(() -> Claims.policy(scope, nodeCapped))
                    .isInstanceOf(InvalidArgumentException.class)
                    .satisfies(e -> assertThat(((InvalidArgumentException) e).argument())
                            .isEqualTo("policy.nodeConcurrencyCap"));
        }
        assertThatThrownBy(() -> Claims.policy(new ClaimScope("ns", "q", "n\u0000"), nodeCapped))
                .isInstanceOf(InvalidArgumentException.class)
                .satisfies(e ->
                        assertThat(((InvalidArgumentException) e).argument()).isEqualTo("scope.node"));
        assertThat(Claims.policy(new ClaimScope("ns", "q", "n1"), nodeCapped)).isSameAs(nodeCapped);
        // a node's scope without a node cap needs nothing more
        assertThat(Claims.policy(null, DispatchPolicy.none().withSerialPerWorkflow(true)))
                .isEqualTo(DispatchPolicy.none().withSerialPerWorkflow(true));
    }

    @Test
    void O64_O65_a_claim_takes_the_smaller_room_its_caps_leave() {
        DispatchPolicy both = DispatchPolicy.none().withConcurrencyCap(5).withNodeConcurrencyCap(3);
        // route: 5 - 1 = 4 left, node: 3 - 1 = 2 left
        assertThat(Claims.nodeCapped(Claims.capped(10, both, 1), both, 1)).isEqualTo(2);
        // route: 5 - 4 = 1 left, node: 3 left
        assertThat(Claims.nodeCapped(Claims.capped(10, both, 4), both, 0)).isEqualTo(1);
        // over the cap (rows claimed plainly count too): no room, never negative
        assertThat(Claims.nodeCapped(10, both, 7)).isZero();
        // no node cap: the limit as it was
        assertThat(Claims.nodeCapped(10, DispatchPolicy.none(), 100)).isEqualTo(10);
    }

    @Test
    void O65_X10_node_caps_are_checked_when_built_and_take_part_in_equality() {
        for (int bad : new int[] {0, -1, Integer.MIN_VALUE, DispatchPolicy.MAX_CONCURRENCY_CAP + 1}) {
            assertThatThrownBy(() -> DispatchPolicy.none().withNodeConcurrencyCap(bad))
                    .isInstanceOf(InvalidArgumentException.class)
                    .satisfies(e -> assertThat(((InvalidArgumentException) e).argument())
                            .isEqualTo("nodeConcurrencyCap"));
        }
        DispatchPolicy a = DispatchPolicy.none().withNodeConcurrencyCap(DispatchPolicy.MAX_CONCURRENCY_CAP);
        assertThat(a.nodeConcurrencyCap()).hasValue(DispatchPolicy.MAX_CONCURRENCY_CAP);
        assertThat(a.concurrencyCap()).isEmpty();
        assertThat(a.constrained()).isTrue();
        assertThat(a).isNotEqualTo(DispatchPolicy.none().withConcurrencyCap(DispatchPolicy.MAX_CONCURRENCY_CAP));
        assertThat(DispatchPolicy.none().withNodeConcurrencyCap(4))
                .isEqualTo(DispatchPolicy.none().withNodeConcurrencyCap(4))
                .hasSameHashCodeAs(DispatchPolicy.none().withNodeConcurrencyCap(4))
                .hasToString("DispatchPolicy[serialPerWorkflow=false, nodeConcurrencyCap=4]");
        assertThat(a.withoutNodeConcurrencyCap()).isEqualTo(DispatchPolicy.none());
        assertThat(DispatchPolicy.none().withoutNodeConcurrencyCap()).isSameAs(DispatchPolicy.none());
        // the other settings keep the node cap, and it keeps them
        DispatchPolicy all = DispatchPolicy.none()
                .withNodeConcurrencyCap(2)
                .withConcurrencyCap(7)
                .withSerialPerWorkflow(true)
                .withoutConcurrencyCap();
        assertThat(all.nodeConcurrencyCap()).hasValue(2);
        assertThat(all.withNodeConcurrencyCap(3).serialPerWorkflow()).isTrue();
    }

    private static OutboxRow row(String key, WorkflowId w, Instant visibleAfter) {
        return Rows.stored(
                key,
                w,
                0,
                null,
                OutboxRow.DEFAULT_ROUTE,
                OutboxRow.DEFAULT_ROUTE,
                null,
                "work",
                Payload.json("{}"),
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
