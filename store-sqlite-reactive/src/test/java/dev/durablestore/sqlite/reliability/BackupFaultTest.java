package dev.durablestore.sqlite.reliability;

import static dev.durablestore.sqlite.reliability.Reliability.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.durablestore.api.BackendException;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

/**
 * S30 with faults at the backup's target (X7): a disk that fills up while the copy is written, and
 * a directory in which no file can be created. Each backup fails with a {@link BackendException}
 * naming the target and SQLite's or the file system's reason, leaves no file behind, and the store
 * goes on: the same store appends and backs up elsewhere afterwards. Made as in
 * {@link FaultInjectionTest}: a small tmpfs (needs CAP_SYS_ADMIN) and {@code chattr +i} (needs
 * CAP_LINUX_IMMUTABLE), since the tests run as root.
 */
class BackupFaultTest {

    /** Workflows of ~4 KB each: a file of ~4 MB, more than the 1 MiB tmpfs holds. */
    private static final int PRELOADED = 1_000;

    @TempDir
    Path tmp;

    @Test
    void X7_S30_a_disk_filling_up_during_the_backup_fails_it_clearly_and_leaves_no_partial_file() throws Exception {
        assertTrue(
                Reliability.tmpfsWorks(),
                "this fault test needs mount -t tmpfs (root with CAP_SYS_ADMIN), which CI machines have");
        // given a store of ~4 MB and a 1 MiB file system for its backup
        Path mount = Files.createDirectories(tmp.resolve("tmpfs"));
        assertThat(Reliability.run("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", mount.toString())
                        .ok())
                .isTrue();
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(tmp.resolve("store.db")))) {
            preload(store);
            Path target = mount.resolve("copy.db");

            // when a backup goes there, then it fails clearly once the disk is full
            StepVerifier.create(store.backup(target))
                    .expectErrorSatisfies(e -> assertThat(e)
                            .isExactlyInstanceOf(BackendException.class)
                            .hasMessageContaining("backup to " + target + " failed")
                            .hasMessageContaining("full"))
                    .verify(TIMEOUT);

            // and its partial copy is gone
            assertThat(filesIn(mount)).isEmpty();

            // and the store goes on: it appends, and backs up where there is room
            assertStoreGoesOn(store);
        } finally {
            Reliability.run("umount", "-l", mount.toString());
        }
    }

    @Test
    void X7_S30_a_directory_where_no_file_can_be_created_fails_the_backup_clearly_and_creates_nothing()
            throws Exception {
        assertTrue(
                Reliability.chattrWorks(),
                "this fault test needs chattr +i (root with CAP_LINUX_IMMUTABLE), which CI machines have");
        // given a store and an immutable directory for its backup
        Path locked = Files.createDirectories(tmp.resolve("locked"));
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(tmp.resolve("store.db")))) {
            preload(store);
            Path target = locked.resolve("copy.db");
            Reliability.immutable(true, locked);
            try {
                // when a backup goes there, then it fails clearly, naming the directory
                StepVerifier.create(store.backup(target))
                        .expectErrorSatisfies(e -> assertThat(e)
                                .isExactlyInstanceOf(BackendException.class)
                                .hasMessageContaining(
                                        "backup to " + target + " failed: cannot create a file in " + locked))
                        .verify(TIMEOUT);
            } finally {
                Reliability.immutable(false, locked);
            }

            // and nothing was created there
            assertThat(filesIn(locked)).isEmpty();

            // and the store goes on
            assertStoreGoesOn(store);
        }
    }

    private void assertStoreGoesOn(SqliteReactiveStore store) throws IOException {
        WorkflowId w = WorkflowId.random();
        StepVerifier.create(store.append(w, List.of(Reliability.signal(w, 1, "after", 0)), 0))
                .expectComplete()
                .verify(TIMEOUT);
        Path elsewhere = Files.createDirectories(tmp.resolve("elsewhere"));
        StepVerifier.create(store.backup(elsewhere.resolve("copy.db")))
                .assertNext(r -> assertThat(r.sizeBytes()).isPositive())
                .expectComplete()
                .verify(TIMEOUT);
    }

    private static void preload(SqliteReactiveStore store) {
        Flux.fromIterable(Stream.generate(WorkflowId::random).limit(PRELOADED).toList())
                .flatMap(w -> store.append(w, List.of(Reliability.signal(w, 1, "preload", 4_000)), 0), 64)
                .then()
                .block(TIMEOUT);
    }

    private static List<String> filesIn(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).toList();
        }
    }
}
