package dev.durablestore.r2dbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.DispatchPolicy;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.Payload;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.tck.TestClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * O63 on PostgreSQL: serial claims write negative claim tokens, and the unique partial index
 * {@code outbox_serial_claimed} refuses a second row of one workflow claimed that way, whatever the
 * snapshot of the claim that tries it; plain claims (positive tokens) are not constrained by it.
 */
class PostgresSerialClaimIndexTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @Test
    void O63_a_second_serially_claimed_row_of_a_workflow_is_refused_by_the_database() {
        PostgresHarness h = new PostgresHarness(TestClock.atDefaultStart());
        try {
            // given a workflow with two due rows, the first claimed serially
            ReactiveStore store = h.open();
            WorkflowId w = WorkflowId.random();
            Instant due = TestClock.atDefaultStart().instant().minusSeconds(10);
            OutboxRow first = OutboxRow.pending(w, 1, "a", Payload.json("{}"), due);
            OutboxRow second = OutboxRow.pending(w, 2, "a", Payload.json("{}"), due);
            store.appendOutboxBatch(List.of(first, second)).block(TIMEOUT);
            List<OutboxRow> claimed = store.claim(
                            ClaimRequest.of(10).withPolicy(DispatchPolicy.none().withSerialPerWorkflow(true)))
                    .block(TIMEOUT);
            assertThat(claimed).extracting(OutboxRow::dispatchKey).containsExactly(first.dispatchKey());
            assertThat(claimed.get(0).claimToken()).isNegative();

            // when another claim, with a snapshot that missed the first, marks the second row
            // claimed serially, then the database refuses it
            assertThatThrownBy(() -> HarnessSupport.execute(
                            h.factory(),
                            "UPDATE outbox SET status = 'claimed', "
                                    + "claimed_at = 1, claim_token = -7 WHERE dispatch_key = '" + second.dispatchKey()
                                    + "'"))
                    .hasStackTraceContaining("outbox_serial_claimed");

            // and a plain claim (positive token) may still take it
            List<OutboxRow> plain = store.claim(ClaimRequest.of(10)).block(TIMEOUT);
            assertThat(plain).extracting(OutboxRow::dispatchKey).containsExactly(second.dispatchKey());
            assertThat(plain.get(0).claimToken()).isPositive();
        } finally {
            h.close();
        }
    }
}
