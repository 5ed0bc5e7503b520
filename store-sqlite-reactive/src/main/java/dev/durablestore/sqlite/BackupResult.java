package dev.durablestore.sqlite;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * A backup that {@link SqliteReactiveStore#backup(Path)} completed: a verified copy of the store's
 * file at its target name (S30).
 */
public final class BackupResult {

    private final Path target;
    private final long sizeBytes;
    private final Duration duration;

    BackupResult(Path target, long sizeBytes, Duration duration) {
        this.target = Objects.requireNonNull(target, "target");
        this.sizeBytes = sizeBytes;
        this.duration = Objects.requireNonNull(duration, "duration");
    }

    /** @return the copy: the backup's target as an absolute path */
    public Path target() {
        return target;
    }

    /** @return the copy's size in bytes */
    public long sizeBytes() {
        return sizeBytes;
    }

    /** @return how long the backup took, from its start on the store's backup thread to the rename */
    public Duration duration() {
        return duration;
    }

    @Override
    public String toString() {
        return "BackupResult[target=" + target + ", sizeBytes=" + sizeBytes + ", duration=" + duration + "]";
    }
}
