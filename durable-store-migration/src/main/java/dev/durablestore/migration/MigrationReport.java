package dev.durablestore.migration;

import dev.durablestore.api.InvalidArgumentException;
import java.nio.file.Path;
import java.time.Duration;

/**
 * What a migration did: where from, whether it resumed an interrupted run, the rows it copied and
 * the rows it found on the target already, how long it took and what the verification found.
 *
 * @param source the SQLite file, absolute
 * @param fingerprint the fingerprint of the source's content, as recorded on the target
 * @param resumed true when the target held part of this source's copy from an earlier run
 * @param eventsCopied the events this run inserted
 * @param timersCopied the timers this run inserted
 * @param outboxRowsCopied the outbox rows this run inserted
 * @param rowsAlreadyThere the rows of all three tables on the target before this run copied any
 * @param copyTime the time the copy took (from the first batch read to the last one committed)
 * @param verification the comparison of the copy with the source
 */
public record MigrationReport(
        Path source,
        String fingerprint,
        boolean resumed,
        long eventsCopied,
        long timersCopied,
        long outboxRowsCopied,
        long rowsAlreadyThere,
        Duration copyTime,
        MigrationVerification verification) {

    /**
     * @param source the SQLite file
     * @param fingerprint the fingerprint of its content
     * @param resumed whether it resumed an earlier run
     * @param eventsCopied the events inserted
     * @param timersCopied the timers inserted
     * @param outboxRowsCopied the outbox rows inserted
     * @param rowsAlreadyThere the rows there before
     * @param copyTime the time of the copy
     * @param verification the verification
     * @throws InvalidArgumentException naming the argument that is null or negative
     */
    public MigrationReport {
        InvalidArgumentException.requireNonNull(source, "source");
        InvalidArgumentException.requireNonNull(fingerprint, "fingerprint");
        InvalidArgumentException.requireNonNegative(eventsCopied, "eventsCopied");
        InvalidArgumentException.requireNonNegative(timersCopied, "timersCopied");
        InvalidArgumentException.requireNonNegative(outboxRowsCopied, "outboxRowsCopied");
        InvalidArgumentException.requireNonNegative(rowsAlreadyThere, "rowsAlreadyThere");
        InvalidArgumentException.requireNonNegative(copyTime, "copyTime");
        InvalidArgumentException.requireNonNull(verification, "verification");
    }

    /** @return the rows this run inserted, of all three tables */
    public long rowsCopied() {
        return eventsCopied + timersCopied + outboxRowsCopied;
    }

    /** @return the rows this run inserted per second of its copy; 0 when it copied none */
    public double rowsPerSecond() {
        long nanos = copyTime.toNanos();
        return nanos == 0 || rowsCopied() == 0 ? 0 : rowsCopied() * 1e9 / nanos;
    }

    /** @return true when the verification found the copy equal to the source */
    public boolean verified() {
        return verification.verified();
    }
}
