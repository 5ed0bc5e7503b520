package dev.durablestore.bench.raw;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durablestore.bench.Fixtures;
import dev.durablestore.core.codec.EventCodec;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The raw baselines do the work their figures claim: every drained row is claimed once and
 * completed, none is left claimed, and the rest stay pending. A loop that skipped work would
 * report a baseline the store never had to beat.
 */
class RawOutboxLoopTest {

    private static final int WORKFLOWS = 60;
    private static final int FAN_OUT = 10;

    @TempDir
    Path dir;

    private final RawOutboxLoop loop = new RawOutboxLoop(new RawRows(EventCodec.create()));
    private RawDb db;

    @BeforeEach
    void stage() throws SQLException {
        db = RawDb.create(dir.resolve("raw.db"), "NORMAL");
        loop.stage(db, Fixtures.workflows(WORKFLOWS), FAN_OUT, Instant.now().minusSeconds(1));
    }

    @AfterEach
    void close() throws SQLException {
        db.close();
    }

    @Test
    void batchedDrainCompletesExactlyTheRowsItCounts() throws SQLException {
        loop.drainBatched(db, 250, 100);

        assertThat(statuses()).containsExactlyInAnyOrderEntriesOf(Map.of("done", 250L, "pending", 350L));
    }

    @Test
    void storeShapedDrainCompletesEveryRowItClaims() throws SQLException {
        loop.drainInStoreShape(db, 250, 64);

        assertThat(statuses()).containsExactlyInAnyOrderEntriesOf(Map.of("done", 250L, "pending", 350L));
    }

    @Test
    void storeShapedDrainOfEveryStagedRowLeavesNoneClaimed() throws SQLException {
        loop.drainInStoreShape(db, 600, 64);

        assertThat(statuses()).containsExactlyInAnyOrderEntriesOf(Map.of("done", 600L));
    }

    @Test
    void oneByOneDrainCompletesEachRowInItsOwnTransactions() throws SQLException {
        loop.drainOneByOne(db, 25);

        assertThat(statuses()).containsExactlyInAnyOrderEntriesOf(Map.of("done", 25L, "pending", 575L));
    }

    @Test
    void aDrainAskingForMoreRowsThanStagedFailsInsteadOfReportingARate() {
        assertThatThrownBy(() -> loop.drainInStoreShape(db, 601, 64))
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("queue ran dry after 600 of 601 rows");
    }

    private Map<String, Long> statuses() throws SQLException {
        Map<String, Long> counts = new TreeMap<>();
        try (Statement s = db.connection().createStatement();
                ResultSet rs = s.executeQuery("SELECT status, count(*) FROM outbox GROUP BY status")) {
            while (rs.next()) {
                counts.put(rs.getString(1), rs.getLong(2));
            }
        }
        return counts;
    }
}
