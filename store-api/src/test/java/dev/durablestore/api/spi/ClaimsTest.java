package dev.durablestore.api.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.Payload;
import dev.durablestore.api.WorkflowId;
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

    private static OutboxRow row(String key, WorkflowId w, Instant visibleAfter) {
        return new OutboxRow(
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
                null);
    }
}
