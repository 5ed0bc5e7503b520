package dev.durablestore.bench.raw;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.codec.EventCodec;
import dev.durablestore.api.event.Event;
import dev.durablestore.bench.Fixtures;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The append baseline appends every event it times, and the page count P1 reports is the run's:
 * a loop that skipped appends, or a count that held the schema's pages, would misstate the ceiling.
 */
class RawAppendLoopTest {

    @TempDir
    Path dir;

    private final RawAppendLoop loop = new RawAppendLoop(new RawRows(EventCodec.create()));

    @Test
    void batchedLoopAppendsEveryEventAndTheLogCountsOnlyItsPages() throws SQLException {
        // given a fresh file without automatic checkpoints, its schema's pages checkpointed
        try (RawDb db = RawDb.create(dir.resolve("raw.db"), "FULL", RawDb.Settings.NO_CHECKPOINTS)) {
            db.logFrames();

            // when one transaction appends three events to three new workflows
            loop.run(db, started(3), 100);

            // then all three are stored, and the log holds the pages of that one commit only: the
            // events table's and the projection index's (each still a single leaf), no schema page
            assertThat(count(db)).isEqualTo(3);
            long frames = db.logFrames();
            assertThat(frames).isBetween(2L, 3L);
            assertThat(db.logFrames()).as("counting writes nothing").isEqualTo(frames);
        }
    }

    @Test
    void oneAppendPerTransactionWritesTheTouchedPagesAgainInEachCommit() throws SQLException {
        try (RawDb db = RawDb.create(dir.resolve("raw.db"), "FULL", RawDb.Settings.NO_CHECKPOINTS)) {
            // given
            db.logFrames();

            // when three appends commit one by one
            loop.run(db, started(3), 1);

            // then each commit wrote both leaves again: a batch shares them, one by one does not
            assertThat(count(db)).isEqualTo(3);
            assertThat(db.logFrames()).isGreaterThanOrEqualTo(6L);
        }
    }

    private static List<Event> started(int n) {
        Instant now = Instant.now();
        List<Event> events = new ArrayList<>(n);
        for (WorkflowId w : Fixtures.workflows(n)) {
            events.add(Fixtures.started(w, now));
        }
        return events;
    }

    private static long count(RawDb db) throws SQLException {
        try (Statement s = db.connection().createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM events")) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
