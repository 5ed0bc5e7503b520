package dev.durablestore.bench.raw;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.event.EventKind;
import dev.durablestore.bench.Fixtures;
import dev.durablestore.core.codec.EventCodec;
import dev.durablestore.sqlite.SqliteReactiveStore;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * P8's baseline does every step it times, as the store's steps would: each workflow ends with its
 * outcome events at contiguous seqs, every row it staged is done, and a settle whose claim token is
 * not current fails instead of counting as a step.
 */
class RawStepLoopTest {

    @TempDir
    Path dir;

    private final RawStepLoop loop = new RawStepLoop(new RawRows(EventCodec.create()));

    @Test
    void aChainOfFiveLeavesEveryWorkflowCompletedAndEveryRowDone() throws SQLException {
        Path file = dir.resolve("raw.db");
        List<WorkflowId> workflows = Fixtures.workflows(7);
        try (RawDb db = RawDb.create(file, "FULL")) {
            loop.stage(db, workflows, Instant.now());

            // when 7 workflows of 5 activities run their 35 steps, claims of at most 4 rows
            loop.drain(db, 35, 5, 4);

            assertThat(count(db, "SELECT count(*) FROM outbox WHERE status = 'done'"))
                    .isEqualTo(35);
            assertThat(count(db, "SELECT count(*) FROM outbox WHERE status <> 'done'"))
                    .isZero();
            assertThat(count(db, "SELECT count(*) FROM events")).isEqualTo(7 * 12);
        }
        // then the store reads each history as a run of 12 events ending in WorkflowCompleted
        try (SqliteReactiveStore store = Fixtures.openStore(file, "FULL")) {
            for (WorkflowId w : workflows) {
                List<Event> history = store.readHistory(w).collectList().block(Duration.ofSeconds(10));
                assertThat(history).hasSize(12);
                assertThat(history)
                        .extracting(Event::seq)
                        .containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, 11L, 12L);
                assertThat(history.get(11).kind()).isEqualTo(EventKind.WORKFLOW_COMPLETED);
            }
        }
    }

    @Test
    void aSettleWhoseClaimIsNotCurrentFailsTheStep() throws SQLException {
        try (RawDb db = RawDb.create(dir.resolve("stale.db"), "FULL")) {
            loop.stage(db, Fixtures.workflows(1), Instant.now());
            // another claim takes the row right after the loop's claim: the stored token changes (the
            // claim's RETURNING still reports its own, computed before AFTER triggers run)
            try (Statement s = db.connection().createStatement()) {
                s.execute("CREATE TRIGGER steal AFTER UPDATE OF status ON outbox WHEN NEW.status = 'claimed' "
                        + "BEGIN UPDATE outbox SET claim_token = 7 WHERE dispatch_key = NEW.dispatch_key; END");
            }

            assertThatThrownBy(() -> loop.drain(db, 1, 1, 64))
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("changed no row");
            assertThat(count(db, "SELECT count(*) FROM events"))
                    .as("the failed step wrote nothing")
                    .isEqualTo(2);
        }
    }

    private static long count(RawDb db, String sql) throws SQLException {
        try (Statement s = db.connection().createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
