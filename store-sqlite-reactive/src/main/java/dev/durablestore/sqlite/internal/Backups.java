package dev.durablestore.sqlite.internal;

import dev.durablestore.api.BackendException;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.StoreClosedException;
import dev.durablestore.api.StoreException;
import dev.durablestore.api.StoreMetrics;
import dev.durablestore.sqlite.SqliteJournalMode;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sqlite.ProgressHandler;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Online backups of the store's file (S30), one at a time on a backup thread the store creates,
 * names and owns ({@code durable-store-backup-<name>}, started when a backup runs).
 *
 * <p>A backup is {@code VACUUM INTO} a new file beside the target, run on a read-only connection of
 * its own: one read transaction, so the copy is the snapshot of the moment it began, while the
 * writer goes on committing. Only in WAL: in the rollback-journal modes that read transaction would
 * stop every write for the whole copy, so a backup there is refused naming {@code journalMode}. It never takes the write lock or a reader of the pool. The copy
 * is then checked ({@code PRAGMA integrity_check} on a connection of its own), synced, renamed to
 * the target (a hard link, refused atomically when a file is there) and its directory synced. Until the rename the target
 * name is untouched; a backup that fails, is cancelled or stopped by close deletes its partial copy.
 *
 * <p>Why {@code VACUUM INTO} rather than SQLite's backup API (BENCHMARKS.md, BACKUP): the backup
 * API copies in steps and starts again whenever another connection wrote between two steps, so
 * under steady appends it does not end (in steps of 100 pages: 91–132 restarts in 3 s, finished only
 * once the appends stopped). In one step it holds one read transaction, as {@code VACUUM INTO} does,
 * and slowed the appends somewhat less there (0.55× against 0.43× of their rate while copying), but
 * SQLite checks for no interrupt inside that step, so a close would wait for a copy of any size, and
 * its copy is a WAL-mode file that grows {@code -wal} and {@code -shm} files when opened.
 * {@code VACUUM INTO} writes a compact rollback-journal file and stops at SQLite's progress handler;
 * the whole backup, its integrity check included, kept appends at 0.65× of their rate. SQLite does
 * not sync what {@code VACUUM INTO} writes, so this class does.
 */
public final class Backups {

    private static final Logger log = LoggerFactory.getLogger(Backups.class);

    /** SQLite virtual-machine steps between two looks at whether the backup must stop. */
    private static final int STEPS_BETWEEN_CHECKS = 1_000;
    /** SQLite's result code of a statement its progress handler stopped. */
    private static final int SQLITE_INTERRUPT = 9;
    /** Windows cannot open a directory to sync it; NTFS journals the rename itself. */
    private static final boolean WINDOWS =
            System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows");

    private final SqliteJournalMode journalMode;
    private final Connections connections;
    private final Scheduler scheduler;
    private final Scheduler emit;
    private final StoreMetrics metrics;
    private final String storeName;
    private volatile boolean closed;

    /**
     * A copy that a backup completed.
     *
     * @param target the copy, at the target name (absolute)
     * @param sizeBytes its size
     * @param duration from the backup's start on the backup thread to the rename
     */
    public record Copy(Path target, long sizeBytes, Duration duration) {}

    /**
     * @param connections opens the read-only connections to the store's file and to the copies
     * @param journalMode the store's journal mode: a backup needs WAL, where a reader does not stop
     *     the writer
     * @param emit where subscribers are signalled
     * @param metrics receives each backup's time as the operation {@code backup}
     * @param storeName used in the thread name and in errors
     */
    Backups(
            Connections connections,
            SqliteJournalMode journalMode,
            Scheduler emit,
            StoreMetrics metrics,
            String storeName) {
        this.connections = connections;
        this.journalMode = journalMode;
        // one thread, started when a backup runs and stopped after a minute idle; later backups queue
        this.scheduler =
                Schedulers.newBoundedElastic(1, Integer.MAX_VALUE, "durable-store-backup-" + storeName, 60, true);
        this.emit = emit;
        this.metrics = metrics;
        this.storeName = storeName;
    }

    /**
     * @param target where the copy goes; must not exist, its directory must
     * @return a cold Mono running the backup on the backup thread, signalled on the emit threads
     */
    Mono<Copy> backup(Path target) {
        return Mono.defer(() -> {
            InvalidArgumentException.requireNonNull(target, "target");
            if (journalMode != SqliteJournalMode.WAL) {
                throw new InvalidArgumentException(
                        "journalMode",
                        "a backup needs WAL, was " + journalMode + ": in this mode its read transaction would stop"
                                + " every write for the whole copy");
            }
            if (closed) {
                return Mono.error(closed("backup refused"));
            }
            AtomicBoolean cancelled = new AtomicBoolean();
            return Mono.fromCallable(() -> timed(target.toAbsolutePath(), () -> cancelled.get() || closed))
                    .subscribeOn(scheduler)
                    .onErrorMap(RejectedExecutionException.class, e -> closed("backup refused"))
                    .doOnCancel(() -> cancelled.set(true))
                    .publishOn(emit);
        });
    }

    /**
     * Refuses new backups and stops the running one at its next check (it fails with
     * {@link StoreClosedException} and deletes its partial copy); the queued ones fail the same way.
     *
     * @return completes when the backup thread has stopped
     */
    Mono<Void> closeAsync() {
        return Mono.defer(() -> {
            closed = true;
            return scheduler.disposeGracefully().timeout(Duration.ofSeconds(30)).onErrorResume(e -> {
                scheduler.dispose(); // a backup that did not stop in 30 s: stop waiting for it
                return Mono.empty();
            });
        });
    }

    private Copy timed(Path target, BooleanSupplier stop) {
        long started = System.nanoTime();
        boolean ok = false;
        try {
            Copy copy = copy(target, stop, started);
            ok = true;
            return copy;
        } finally {
            metrics.operation("backup", System.nanoTime() - started, ok);
        }
    }

    private Copy copy(Path target, BooleanSupplier stop, long started) {
        if (closed) {
            throw closed("backup refused");
        }
        if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
            throw new InvalidArgumentException("target", "exists: " + target + " (a backup never replaces a file)");
        }
        Path dir = target.getParent();
        if (dir == null || !Files.isDirectory(dir)) {
            throw new InvalidArgumentException("target", "is in a directory that does not exist: " + dir);
        }
        Path partial;
        try {
            partial = Files.createTempFile(dir, target.getFileName() + ".", ".partial");
        } catch (IOException e) {
            throw new BackendException("backup to " + target + " failed: cannot create a file in " + dir + ": " + e, e);
        }
        long size;
        try {
            snapshot(partial, stop);
            verify(partial, target, stop);
            sync(partial);
            size = Files.size(partial);
            if (stop.getAsBoolean()) {
                throw stopped(target);
            }
            // a hard link fails atomically when a file is at the target (a move without
            // REPLACE_EXISTING checks, then renames over whatever appeared in between); in one
            // directory it gives the target name to the whole, checked copy in one step
            Files.createLink(target, partial);
            Files.delete(partial);
        } catch (IOException | SQLException | RuntimeException e) {
            StoreException failure = failure(target, e);
            discard(partial, failure);
            throw failure;
        }
        try {
            syncDirectory(dir);
        } catch (IOException e) {
            throw new BackendException(
                    "backup to " + target + ": the copy is complete and checked, but syncing its directory failed,"
                            + " so its name may not survive a power loss: " + e,
                    e);
        }
        return new Copy(target, size, Duration.ofNanos(System.nanoTime() - started));
    }

    /** One read transaction on a connection of its own: the copy is the snapshot of its start. */
    private void snapshot(Path partial, BooleanSupplier stop) throws SQLException {
        try (DbConnection source = connections.openReader()) {
            stopWhen(source, stop);
            PreparedStatement vacuum = source.prepare("VACUUM INTO ?");
            vacuum.setString(1, partial.toString());
            vacuum.execute();
        }
    }

    /** {@code PRAGMA integrity_check} on the copy, which answers one row {@code ok} or its problems. */
    private void verify(Path partial, Path target, BooleanSupplier stop) throws SQLException {
        List<String> problems = new ArrayList<>();
        try (DbConnection copy = connections.openReader(partial)) {
            stopWhen(copy, stop);
            try (ResultSet rs = copy.prepare("PRAGMA integrity_check").executeQuery()) {
                while (rs.next()) {
                    problems.add(rs.getString(1));
                }
            }
        }
        if (!problems.equals(List.of("ok"))) {
            throw new BackendException("backup to " + target + " failed: the copy failed PRAGMA integrity_check: "
                    + String.join("; ", problems.subList(0, Math.min(5, problems.size()))));
        }
    }

    private static void stopWhen(DbConnection c, BooleanSupplier stop) throws SQLException {
        ProgressHandler.setHandler(c.raw(), STEPS_BETWEEN_CHECKS, new ProgressHandler() {
            @Override
            protected int progress() {
                return stop.getAsBoolean() ? 1 : 0;
            }
        });
    }

    /** SQLite does not sync what {@code VACUUM INTO} writes. */
    private static void sync(Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.force(true);
        }
    }

    /** Makes the rename durable. */
    private static void syncDirectory(Path dir) throws IOException {
        if (WINDOWS) {
            return;
        }
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }

    private StoreException failure(Path target, Exception e) {
        if (e instanceof StoreException se) {
            return se;
        }
        if (e instanceof SQLException sql && (sql.getErrorCode() & 0xFF) == SQLITE_INTERRUPT) {
            return stopped(target);
        }
        if (e instanceof FileAlreadyExistsException) {
            return new InvalidArgumentException(
                    "target", "exists: " + target + " (created while the backup ran; a backup never replaces a file)");
        }
        return Failures.backend("backup to " + target, e);
    }

    /** @return the failure of a backup its progress handler stopped: the store closed, or its subscriber cancelled */
    private StoreException stopped(Path target) {
        return closed
                ? closed("backup to " + target + " stopped")
                : new BackendException("backup to " + target + " cancelled");
    }

    /**
     * Deletes the partial copy and the rollback journal SQLite may leave beside it (a copy that
     * failed on a full disk does); one that cannot be deleted is named in the failure and the log.
     */
    private static void discard(Path partial, StoreException failure) {
        for (Path p : List.of(partial, partial.resolveSibling(partial.getFileName() + "-journal"))) {
            try {
                Files.deleteIfExists(p);
            } catch (IOException e) {
                failure.addSuppressed(e);
                log.warn("could not delete the partial backup {}; delete it by hand", p, e);
            }
        }
    }

    private StoreClosedException closed(String what) {
        return new StoreClosedException(what + ": store " + storeName + " is closed");
    }
}
