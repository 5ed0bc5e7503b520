package dev.durablestore.migration;

import dev.durablestore.api.InvalidArgumentException;
import java.time.Duration;

/**
 * How far a migration is, as {@link SqliteToPostgresMigration#withProgress} reports it: after each
 * batch copied, and once when the verification starts.
 *
 * @param phase what it is doing
 * @param done the rows of the phase's table on the target so far (copied by this run or by an
 *     interrupted one); 0 in {@link MigrationPhase#VERIFY}
 * @param total the rows of the phase's table in the source; 0 in {@link MigrationPhase#VERIFY}
 * @param elapsed the time since the migration started
 */
public record MigrationProgress(MigrationPhase phase, long done, long total, Duration elapsed) {

    /**
     * @param phase what it is doing
     * @param done the rows on the target so far
     * @param total the rows in the source
     * @param elapsed the time since the migration started
     * @throws InvalidArgumentException naming the argument that is null or negative
     */
    public MigrationProgress {
        InvalidArgumentException.requireNonNull(phase, "phase");
        InvalidArgumentException.requireNonNegative(done, "done");
        InvalidArgumentException.requireNonNegative(total, "total");
        InvalidArgumentException.requireNonNegative(elapsed, "elapsed");
    }
}
