package dev.durablestore.bench.raw;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.bench.Fixtures;
import dev.durablestore.core.codec.EventCodec;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The append baseline appends every event it times, and the page count P1 reports is the run's
 * own: a loop that skipped appends, or a count that held the schema's pages, would misstate the
 * ceiling.
 */
class RawAppendLoopTest {

    @TempDir
    Path dir;

    private final RawAppendLoop loop = new RawAppendLoop(new RawRows(EventCodec.create()));
    private RawDb db;

    @BeforeEach
    void freshFileWithAnEmptyLog() throws SQLException {
        db = RawDb.create(dir.resolve("raw.db"), "FULL", RawDb.Settings.NO_CHECKPOINTS);
        db.restartLog();
    }

    @AfterEach
    void close() throws SQLException {
        db.close();
    }

    @Test
    void oneBatchWritesEachTouchedLeafOnce() throws SQLException {
        // when one transaction appends three events to three new workflows
        loop.run(db, Fixtures.startedWorkflows(3), 100);

        // then all three are stored, and the log holds that commit's pages only: the root leaf of
        // the events table and of its projection index (no schema page, no new page)
        assertThat(count()).isEqualTo(3);
        assertThat(db.logPages()).isEqualTo(2);
        assertThat(db.logPages()).as("counting writes nothing").isEqualTo(2);
    }

    @Test
    void onePerTransactionWritesTheLeavesAgainInEveryCommit() throws SQLException {
        // when three appends commit one by one
        loop.run(db, Fixtures.startedWorkflows(3), 1);

        // then each of the three commits wrote both leaves: a batch shares them, one by one does not
        assertThat(count()).isEqualTo(3);
        assertThat(db.logPages()).isEqualTo(6);
    }

    private long count() throws SQLException {
        try (Statement s = db.connection().createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM events")) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
