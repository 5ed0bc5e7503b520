package dev.durablestore.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.Payload;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.internal.Rows;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * O19 with keys outside the Basic Multilingual Plane: a claim returns its rows in the order SQL
 * chose them (code points, SQLite's BINARY collation), not in Java's UTF-16 {@code String} order.
 */
class SqliteClaimOrderTest {

    @TempDir
    Path tmp;

    @Test
    void O19_T4_a_claim_returns_equally_due_rows_in_code_point_order_of_their_keys() {
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(tmp.resolve("order.db")))) {
            // given two rows due at the same instant, keyed k<U+1F600> and k<U+FFFF>
            WorkflowId w = WorkflowId.random();
            Instant due = Instant.now().minusSeconds(1);
            OutboxRow astral = row("k\uD83D\uDE00", w, 0, due);
            OutboxRow bmp = row("k\uFFFF", w, 1, due);
            store.appendOutboxBatch(List.of(astral, bmp)).block(Duration.ofSeconds(10));

            // when both are claimed
            List<OutboxRow> claimed = store.claim(ClaimRequest.of(2)).block(Duration.ofSeconds(10));

            // then U+FFFF comes first (String.compareTo would put the surrogate pair first)
            assertThat(claimed)
                    .extracting(OutboxRow::dispatchKey)
                    .containsExactly(bmp.dispatchKey(), astral.dispatchKey());
        }
    }

    private static OutboxRow row(String key, WorkflowId w, long ordinal, Instant due) {
        return Rows.stored(
                key,
                w,
                ordinal,
                null,
                OutboxRow.DEFAULT_ROUTE,
                OutboxRow.DEFAULT_ROUTE,
                null,
                "work",
                Payload.json("{}"),
                OutboxStatus.PENDING,
                0,
                due,
                null,
                0L,
                null,
                OutboxRow.MIN_PRIORITY,
                List.of());
    }
}
