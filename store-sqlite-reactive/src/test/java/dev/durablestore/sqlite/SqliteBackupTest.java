package dev.durablestore.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.BackendException;
import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxRowState;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.PackageVersion;
import dev.durablestore.api.Payload;
import dev.durablestore.api.RunId;
import dev.durablestore.api.StoreClosedException;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.event.EventEnvelope;
import dev.durablestore.api.event.WorkflowStarted;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.nio.file.attribute.PosixFilePermission;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

/**
 * S30: {@link SqliteReactiveStore#backup(Path)} writes a consistent, checked copy of the store's
 * file while appends and claims go on, to a temporary name renamed only once the copy is complete;
 * bad targets, a closed store, a close during the backup and a cancelled backup leave nothing
 * behind. Faults at the target (a full disk, an unwritable directory) and a process killed during a
 * backup are in {@code reliability.BackupFaultTest} and {@code reliability.BackupCrashTest}.
 */
class SqliteBackupTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    /** Workflows written before the backups, each a start event of ~4 KB: a file of ~10 MB. */
    private static final int PRELOADED = 2_500;

    private static final String PADDING = "x".repeat(4_000);

    @TempDir
    Path dir;

    @Test
    void S30_a_backup_during_appends_and_claims_holds_every_write_acknowledged_before_it_began() throws Exception {
        // given a store of ~10 MB with appends (each staging two rows) and a claim stream settling
        // what it claims going on
        Path db = dir.resolve("store.db");
        Path target = dir.resolve("copy.db");
        Workload load = new Workload();
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(db))) {
            preload(store);
            Disposable running = load.start(store);
            try {
                assertThat(load.warm.await(30, TimeUnit.SECONDS))
                        .as("appends and settles under way")
                        .isTrue();

                // when a backup is taken; what was acknowledged before it was subscribed is noted first
                Acknowledged before = load.acknowledged();
                StepVerifier.create(store.backup(target))
                        .assertNext(result -> {
                            load.duringBackup = load.acknowledged();
                            assertThat(result.target()).isEqualTo(target.toAbsolutePath());
                            assertThat(result.sizeBytes()).isEqualTo(size(target));
                        })
                        .expectComplete()
                        .verify(TIMEOUT);

                // then appends and settles went on while it ran: the writer was never held for it
                assertThat(load.duringBackup.appended().size())
                        .as("appends acknowledged while the backup ran")
                        .isGreaterThan(before.appended().size());
                assertThat(load.duringBackup.settled().size())
                        .as("settles acknowledged while the backup ran")
                        .isGreaterThan(before.settled().size());
                assertThat(load.errors).isEmpty();

                // and the target directory holds the copy and no partial file
                assertThat(filesIn(dir))
                        .containsExactlyInAnyOrder("store.db", "store.db-wal", "store.db-shm", "copy.db");

                // and the copy is its owner's only
                if (target.getFileSystem().supportedFileAttributeViews().contains("posix")) {
                    assertThat(Files.getPosixFilePermissions(target))
                            .containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
                }

                // and the copy passes SQLite's integrity check and opens as a store holding every
                // write acknowledged before the backup began, every event decoding
                assertThat(integrityCheck(target)).containsExactly("ok");
                assertCopyHolds(target, before);
            } finally {
                running.dispose();
            }
        }
    }

    @Test
    void S30_a_file_at_the_target_is_refused_naming_target_and_left_as_it_was() throws Exception {
        // given an open store and a file where the backup should go
        Path target = Files.writeString(dir.resolve("taken.db"), "someone else's file");
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(dir.resolve("s.db")))) {
            // when a backup to it is asked for
            StepVerifier.create(store.backup(target))
                    // then it is refused naming the target
                    .expectErrorSatisfies(e -> assertThat(e)
                            .isInstanceOf(InvalidArgumentException.class)
                            .hasMessageContaining(target.toAbsolutePath().toString())
                            .extracting(x -> ((InvalidArgumentException) x).argument())
                            .isEqualTo("target"))
                    .verify(TIMEOUT);
        }
        // and the file is as it was, with no partial copy beside it
        assertThat(Files.readString(target)).isEqualTo("someone else's file");
        assertThat(filesIn(dir)).containsExactlyInAnyOrder("s.db", "taken.db");
    }

    @Test
    void S30_a_store_in_a_rollback_journal_mode_refuses_a_backup_naming_journalMode_and_creates_nothing()
            throws Exception {
        // given a store that runs in DELETE journal mode, where a reader stops the writer
        SqliteStoreConfig config = SqliteStoreConfig.of(dir.resolve("s.db")).withJournalMode(SqliteJournalMode.DELETE);
        try (SqliteReactiveStore store = SqliteReactiveStore.open(config)) {
            // when a backup is asked for, then it is refused naming the journal mode
            StepVerifier.create(store.backup(dir.resolve("copy.db")))
                    .expectErrorSatisfies(e -> assertThat(e)
                            .isInstanceOf(InvalidArgumentException.class)
                            .hasMessageContaining("DELETE")
                            .extracting(x -> ((InvalidArgumentException) x).argument())
                            .isEqualTo("journalMode"))
                    .verify(TIMEOUT);
        }
        // and nothing was created beside the store's file
        assertThat(filesIn(dir)).containsExactly("s.db");
    }

    @Test
    void S30_a_target_in_a_directory_that_does_not_exist_is_refused_naming_target_and_creates_nothing()
            throws Exception {
        // given an open store and a target whose directory is missing
        Path missing = dir.resolve("no-such-dir");
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(dir.resolve("s.db")))) {
            // when a backup to it is asked for, then it is refused naming the target and the directory
            StepVerifier.create(store.backup(missing.resolve("copy.db")))
                    .expectErrorSatisfies(e -> assertThat(e)
                            .isInstanceOf(InvalidArgumentException.class)
                            .hasMessageContaining("directory that does not exist: " + missing.toAbsolutePath())
                            .extracting(x -> ((InvalidArgumentException) x).argument())
                            .isEqualTo("target"))
                    .verify(TIMEOUT);
        }
        // and the directory was not created
        assertThat(missing).doesNotExist();
        assertThat(filesIn(dir)).containsExactly("s.db");
    }

    @Test
    void S30_X10_a_null_target_is_refused_naming_it_as_an_error_signal() {
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(dir.resolve("s.db")))) {
            StepVerifier.create(store.backup(null))
                    .expectErrorSatisfies(e -> assertThat(e)
                            .isInstanceOf(InvalidArgumentException.class)
                            .extracting(x -> ((InvalidArgumentException) x).argument())
                            .isEqualTo("target"))
                    .verify(TIMEOUT);
        }
    }

    @Test
    void X9_S30_a_backup_of_a_closed_store_signals_StoreClosedException_and_creates_nothing() throws Exception {
        // given a closed store
        SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(dir.resolve("s.db")));
        store.close();

        // when a backup is asked for, then it is refused as closed
        StepVerifier.create(store.backup(dir.resolve("copy.db")))
                .expectError(StoreClosedException.class)
                .verify(TIMEOUT);

        // and nothing was written
        assertThat(filesIn(dir)).containsExactly("s.db");
    }

    @Test
    void X9_S30_closing_the_store_stops_a_running_backup_with_StoreClosedException_and_leaves_nothing()
            throws Exception {
        // given a store of ~10 MB and a backup of it that has created its partial copy
        Path target = dir.resolve("copy.db");
        SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(dir.resolve("s.db")));
        preload(store);
        try (PartialCopies partials = new PartialCopies(dir)) {
            StepVerifier.create(store.backup(target))
                    .then(partials::awaitOne)
                    // when the store closes meanwhile
                    .then(() -> store.closeAsync().block(TIMEOUT))
                    // then the backup fails as closed
                    .expectErrorSatisfies(e -> assertThat(e)
                            .isInstanceOf(StoreClosedException.class)
                            .hasMessageContaining("backup to " + target.toAbsolutePath() + " stopped"))
                    .verify(TIMEOUT);
        }

        // and neither the copy nor its partial file is left (close waited for the backup to clean up)
        assertThat(target).doesNotExist();
        assertThat(filesIn(dir)).containsExactly("s.db");
    }

    @Test
    void S30_a_cancelled_backup_leaves_nothing_and_the_next_one_succeeds() throws Exception {
        // given a store of ~10 MB
        Path cancelled = dir.resolve("cancelled.db");
        Path next = dir.resolve("next.db");
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(dir.resolve("s.db")));
                PartialCopies partials = new PartialCopies(dir)) {
            preload(store);

            // when a backup is cancelled once it has created its partial copy
            StepVerifier.create(store.backup(cancelled))
                    .then(partials::awaitOne)
                    .thenCancel()
                    .verify(TIMEOUT);

            // then the next backup, which runs once the cancelled one has stopped (one at a time),
            // succeeds, and the cancelled one left neither its copy nor its partial file
            StepVerifier.create(store.backup(next))
                    .expectNextCount(1)
                    .expectComplete()
                    .verify(TIMEOUT);
            assertThat(cancelled).doesNotExist();
            assertThat(filesIn(dir)).containsExactlyInAnyOrder("s.db", "s.db-wal", "s.db-shm", "next.db");
            assertThat(integrityCheck(next)).containsExactly("ok");
        }
    }

    @Test
    void X7_S30_a_target_directory_removed_during_the_backup_fails_it_clearly_and_leaves_nothing() throws Exception {
        // given a store of ~10 MB and a backup into a directory of its own that has created its partial copy
        Path doomed = Files.createDirectories(dir.resolve("doomed"));
        Path target = doomed.resolve("copy.db");
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(dir.resolve("s.db")))) {
            preload(store);
            try (PartialCopies partials = new PartialCopies(doomed)) {
                StepVerifier.create(store.backup(target))
                        // when the directory is removed with everything in it
                        .then(partials::awaitOne)
                        .then(() -> removeTree(doomed))
                        // then the backup fails clearly, naming its target
                        .expectErrorSatisfies(e -> assertThat(e)
                                .isInstanceOf(BackendException.class)
                                .isNotInstanceOf(StoreClosedException.class)
                                .hasMessageContaining("backup to " + target.toAbsolutePath() + " failed"))
                        .verify(TIMEOUT);
            }

            // and nothing is left of it, while the store goes on backing up elsewhere
            assertThat(doomed).doesNotExist();
            StepVerifier.create(store.backup(dir.resolve("copy.db")))
                    .expectNextCount(1)
                    .expectComplete()
                    .verify(TIMEOUT);
            assertThat(filesIn(dir)).containsExactlyInAnyOrder("s.db", "s.db-wal", "s.db-shm", "copy.db");
        }
    }

    /** Watches a directory for the partial copy a backup creates before it starts copying. */
    static final class PartialCopies implements AutoCloseable {
        private final WatchService watcher;

        PartialCopies(Path dir) throws IOException {
            this.watcher = dir.getFileSystem().newWatchService();
            dir.register(watcher, StandardWatchEventKinds.ENTRY_CREATE);
        }

        /** Waits (up to 30 s) until a file named {@code *.partial} is created. */
        void awaitOne() {
            try {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (System.nanoTime() < deadline) {
                    WatchKey key = watcher.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
                    if (key == null) {
                        break;
                    }
                    for (WatchEvent<?> event : key.pollEvents()) {
                        if (event.context() instanceof Path p && p.toString().endsWith(".partial")) {
                            return;
                        }
                    }
                    key.reset();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            throw new AssertionError("no partial copy was created within 30 s");
        }

        @Override
        public void close() throws IOException {
            watcher.close();
        }
    }

    // ------------------------------------------------------------------ the workload and the checks

    /** What the workload had acknowledged at one moment. */
    private record Acknowledged(List<WorkflowId> appended, List<String> claimed, List<String> settled) {}

    /**
     * Appends (a start event and two rows, 16 in flight) and a claim stream completing each row it
     * claims, both recording each acknowledgement once its Mono succeeded.
     */
    private static final class Workload {
        final Queue<WorkflowId> appended = new ConcurrentLinkedQueue<>();
        final Queue<String> claimed = new ConcurrentLinkedQueue<>();
        final Queue<String> settled = new ConcurrentLinkedQueue<>();
        final Queue<Throwable> errors = new ConcurrentLinkedQueue<>();
        final CountDownLatch warm = new CountDownLatch(2);
        final AtomicInteger settles = new AtomicInteger();
        volatile Acknowledged duringBackup;

        Disposable start(SqliteReactiveStore store) {
            Instant now = Instant.now();
            Disposable appends = Flux.range(0, Integer.MAX_VALUE)
                    .flatMap(
                            i -> {
                                WorkflowId w = WorkflowId.random();
                                return store.appendWithOutbox(w, List.of(started(w, "")), 0, rows(w, now))
                                        .doOnSuccess(v -> {
                                            appended.add(w);
                                            if (appended.size() == 200) {
                                                warm.countDown();
                                            }
                                        });
                            },
                            16)
                    .subscribe(v -> {}, errors::add);
            Disposable claims = store.claimStream(ClaimStreamOptions.defaults().withMaxBatch(16))
                    .doOnNext(row -> claimed.add(row.dispatchKey()))
                    .flatMap(row -> store.complete(row).doOnSuccess(v -> {
                        settled.add(row.dispatchKey());
                        if (settles.incrementAndGet() == 100) {
                            warm.countDown();
                        }
                    }))
                    .subscribe(v -> {}, errors::add);
            return Disposables.composite(appends, claims);
        }

        /** Settled keys first: a key settled is also claimed, whichever list it is read from. */
        Acknowledged acknowledged() {
            List<String> s = List.copyOf(settled);
            return new Acknowledged(List.copyOf(appended), List.copyOf(claimed), s);
        }
    }

    private static void assertCopyHolds(Path copy, Acknowledged before) {
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(copy))) {
            StepVerifier.create(store.validateStoredEvents()).expectComplete().verify(TIMEOUT);
            List<WorkflowId> ids = store.listWorkflowIds().collectList().block(TIMEOUT);
            assertThat(ids)
                    .hasSizeGreaterThanOrEqualTo(PRELOADED + before.appended().size());
            assertThat(ids).containsAll(before.appended());
            Map<String, OutboxStatus> status = new ConcurrentHashMap<>();
            Flux.fromIterable(before.claimed())
                    .flatMap(key -> store.rowState(key).doOnNext(s -> status.put(key, s.status())), 16)
                    .blockLast(TIMEOUT);
            assertThat(status).as("every acknowledged claim is in the copy").hasSameSizeAs(before.claimed());
            assertThat(status.values()).allMatch(s -> s == OutboxStatus.CLAIMED || s == OutboxStatus.DONE);
            for (String key : before.settled()) {
                OutboxRowState state = store.rowState(key).block(TIMEOUT);
                assertThat(state).isNotNull();
                assertThat(state.status()).as("settled %s", key).isEqualTo(OutboxStatus.DONE);
            }
        }
    }

    private static void preload(SqliteReactiveStore store) {
        Flux.fromIterable(Stream.generate(WorkflowId::random).limit(PRELOADED).toList())
                .flatMap(w -> store.append(w, List.of(started(w, PADDING)), 0), 64)
                .then()
                .block(TIMEOUT);
    }

    private static Event started(WorkflowId w, String padding) {
        return new WorkflowStarted(
                new EventEnvelope(1, Instant.parse("2026-01-01T00:00:00Z"), w),
                "backup-test",
                Payload.json("{\"pad\":\"" + padding + "\"}"),
                RunId.random(),
                null,
                new PackageVersion("v1"));
    }

    private static List<OutboxRow> rows(WorkflowId w, Instant now) {
        List<OutboxRow> rows = new ArrayList<>();
        for (int ordinal = 1; ordinal <= 2; ordinal++) {
            rows.add(OutboxRow.pending(w, ordinal, "backup-activity", Payload.json("{}"), now));
        }
        return rows;
    }

    static List<String> integrityCheck(Path file) throws SQLException {
        List<String> answer = new ArrayList<>();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file.toAbsolutePath());
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("PRAGMA integrity_check")) {
            while (rs.next()) {
                answer.add(rs.getString(1));
            }
        }
        return answer;
    }

    private static long size(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static void removeTree(Path root) {
        try (Stream<Path> tree = Files.walk(root)) {
            for (Path p : tree.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new AssertionError("cannot remove " + root, e);
        }
    }

    private static List<String> filesIn(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).toList();
        }
    }
}
