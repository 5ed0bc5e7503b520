package dev.durablestore.sqlite.reliability;

import static dev.durablestore.sqlite.reliability.Reliability.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.durablestore.api.BackendException;
import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.Payload;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.StoreException;
import dev.durablestore.api.TransientBackendException;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.SignalReceived;
import dev.durablestore.sqlite.SqliteJournalMode;
import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import dev.durablestore.sqlite.internal.OnWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * Faults below the store (E7, E22, E25, X7, X8): a read-only database file, the file's directory
 * removed or unwritable, a full disk, and JDBC failures injected into a statement and into the
 * commit. For each, the test checks the four promises:
 *
 * <ol>
 *   <li>the affected callers get a clear error: a {@link StoreException} subtype whose message
 *       names the operation and carries SQLite's reason; no call hangs (every call is bounded);
 *   <li>nothing is acknowledged that is not durable: after the fault is gone the file is reopened
 *       and every acknowledged append is there, every failed one absent (events and rows alike);
 *   <li>the writer thread survives: the same store instance keeps working afterwards;
 *   <li>the store serves again once the fault is gone, without being reopened.
 * </ol>
 *
 * <p>How each fault is made, given that the tests run as root (root ignores file permissions, so
 * {@code chmod} cannot make a file read-only for it):
 *
 * <ul>
 *   <li>read-only file / unwritable directory: the immutable attribute ({@code chattr +i}), which
 *       binds root too (needs CAP_LINUX_IMMUTABLE; the test is skipped with a message without it).
 *       The {@code -shm} file is never made immutable: SQLite maps it into memory, and a write to
 *       an immutable mapping kills the JVM with SIGBUS;
 *   <li>directory removed: {@code rm -rf} of the directory while the store is open;
 *   <li>disk full: a 4 MiB tmpfs mounted for the test and filled with a filler file (needs
 *       CAP_SYS_ADMIN; skipped with a message without it), and, portable, {@code PRAGMA
 *       max_page_count} on the store's own write connection: the pragma is per connection and the
 *       store offers no hook, so the test runs it as a write command on the writer thread, reached
 *       by reflection;
 *   <li>a statement failure: a SQLite trigger, created from a raw JDBC connection on the same file,
 *       that RAISEs on insert of a marker value;
 *   <li>a commit failure: a store in rollback-journal mode ({@code journal_mode=DELETE}) with a
 *       200 ms busy timeout while a raw JDBC connection holds a read transaction: the store's
 *       {@code BEGIN IMMEDIATE} and inserts succeed, its {@code COMMIT} needs the exclusive lock
 *       and fails with {@code SQLITE_BUSY}.
 * </ul>
 */
class FaultInjectionTest {

    @TempDir
    Path tmp;

    /** One append attempted while a fault may be active: a fresh workflow, one event, one row. */
    record Outcome(WorkflowId workflowId, String tag, Throwable error) {
        boolean acknowledged() {
            return error == null;
        }
    }

    // ------------------------------------------------------------------ (a) read-only file

    @ParameterizedTest(name = "journal_mode={0}")
    @ValueSource(strings = {"WAL", "DELETE"})
    void X7_X8_a_database_file_made_read_only_while_open_fails_writes_clearly_and_recovers(String journalMode)
            throws Exception {
        assertTrue(
                Reliability.chattrWorks(),
                "this fault test needs chattr +i (root with CAP_LINUX_IMMUTABLE), which CI machines have");
        // given an open store with acknowledged data
        Path db = tmp.resolve("ro-" + journalMode + ".db");
        Path wal = Path.of(db + "-wal");
        SqliteStoreConfig config = SqliteStoreConfig.of(db).withJournalMode(SqliteJournalMode.valueOf(journalMode));
        List<Outcome> all = new ArrayList<>();
        try (SqliteReactiveStore store = SqliteReactiveStore.open(config)) {
            all.addAll(requireAcknowledged(attempt(store, 4, "before", 0)));
            WorkflowId continued = continued(store);
            assertThat(Files.exists(wal)).isEqualTo(journalMode.equals("WAL"));
            try {
                // when the database file (and its WAL) become read-only
                Reliability.immutable(true, db, wal);

                // then every write fails with a clear error, nothing hangs
                List<Outcome> during = attempt(store, 8, "during", 0);
                all.addAll(during);
                assertThat(during).allSatisfy(o -> assertSqliteFailure(o, "appendWithOutbox"));
                assertContinuationFails(store, continued, "during");
                assertClearFailure(store.settleKeys(List.of(key(all.get(0))), Settlement.complete()), "complete");
                assertClearFailure(store.claim(ClaimRequest.of(10)), "claim");
            } finally {
                Reliability.immutable(false, db, wal);
            }

            // and once writable again, the same store serves again, reads included
            all.addAll(assertServesAgain(store));
            assertContinuationWorks(store, continued);
            assertThat(history(store, all.get(0).workflowId())).containsExactly("before");
        }
        assertDurableExactlyAsAcknowledged(config, all);
    }

    @Test
    void S20_X7_opening_a_read_only_database_file_fails_clearly_and_succeeds_once_writable() throws Exception {
        assertTrue(
                Reliability.chattrWorks(),
                "this fault test needs chattr +i (root with CAP_LINUX_IMMUTABLE), which CI machines have");
        // given a closed store file with data, made read-only
        Path db = tmp.resolve("ro-open.db");
        SqliteStoreConfig config = SqliteStoreConfig.of(db);
        List<Outcome> all = new ArrayList<>();
        try (SqliteReactiveStore store = SqliteReactiveStore.open(config)) {
            all.addAll(requireAcknowledged(attempt(store, 3, "before", 0)));
        }
        try {
            Reliability.immutable(true, db);
            // when it is opened, then either the open fails with a Backend error naming the file, or
            // it succeeds (SQLite silently falls back to a read-only connection and the schema needs no
            // change) and then every write fails clearly: never a writer that acknowledges
            SqliteReactiveStore opened = null;
            try {
                opened = SqliteReactiveStore.open(config);
            } catch (BackendException e) {
                assertThat(e).hasMessageContaining(db.toString());
            }
            if (opened != null) {
                try (SqliteReactiveStore store = opened) {
                    List<Outcome> during = attempt(store, 3, "during", 0);
                    all.addAll(during);
                    assertThat(during).allSatisfy(o -> assertSqliteFailure(o, "appendWithOutbox"));
                    assertClearFailure(store.claim(ClaimRequest.of(10)), "claim");
                }
            }
        } finally {
            Reliability.immutable(false, db);
        }
        // then, writable again, it opens and serves
        try (SqliteReactiveStore store = SqliteReactiveStore.open(config)) {
            all.addAll(assertServesAgain(store));
        }
        assertDurableExactlyAsAcknowledged(config, all);
    }

    // ------------------------------------------------------------------ (b) directory removed / unwritable

    /**
     * The directory (with the database, its journal or WAL, and the shared-memory file) is deleted
     * while the store is open. The open descriptors still point at the deleted files, so anything
     * "committed" from then on is gone once the store closes: no such write may be acknowledged.
     * The fault cannot be undone, so instead of "serves again" the test checks that every call
     * still ends (no hang) and the store closes.
     */
    @ParameterizedTest(name = "journal_mode={0}")
    @ValueSource(strings = {"WAL", "DELETE"})
    void E25_X7_after_the_directory_is_removed_no_write_is_acknowledged(String journalMode) throws Exception {
        // given an open store with acknowledged data
        Path dir = Files.createDirectories(tmp.resolve("removed-" + journalMode));
        Path db = dir.resolve("store.db");
        try (SqliteReactiveStore store = SqliteReactiveStore.open(
                SqliteStoreConfig.of(db).withJournalMode(SqliteJournalMode.valueOf(journalMode)))) {
            Outcome before = requireAcknowledged(attempt(store, 1, "before", 0)).get(0);

            // when the directory is removed
            assertThat(Reliability.run("rm", "-rf", dir.toString()).ok()).isTrue();
            assertThat(dir).doesNotExist();

            // then no write is acknowledged: each fails with a clear error, and none hangs
            List<Outcome> during = attempt(store, 4, "after-removal", 0);
            assertThat(during)
                    .as("appends acknowledged although the database file was deleted (they vanish "
                            + "when the store closes)")
                    .allSatisfy(o -> assertClearFailure(o, "appendWithOutbox"));
            assertClearFailure(store.settleKeys(List.of(key(before)), Settlement.complete()), "complete");
            // and reads of what was committed before still end (with data or a clear error)
            StepVerifier.create(store.readHead(before.workflowId())
                            .onErrorResume(StoreException.class, e -> Mono.just(-1L)))
                    .expectNextCount(1)
                    .verifyComplete();
        }
    }

    /**
     * The directory becomes unwritable (immutable) while the store is open: no file can be created
     * in it. In WAL mode the WAL already exists, so writes may go on and must then be durable; in
     * rollback-journal mode the journal cannot be created, so writes must fail clearly.
     */
    @ParameterizedTest(name = "journal_mode={0}")
    @ValueSource(strings = {"WAL", "DELETE"})
    void X7_X8_an_unwritable_directory_gives_clear_errors_or_durable_acks_and_the_store_recovers(String journalMode)
            throws Exception {
        assertTrue(
                Reliability.chattrWorks(),
                "this fault test needs chattr +i (root with CAP_LINUX_IMMUTABLE), which CI machines have");
        // given an open store with acknowledged data
        Path dir = Files.createDirectories(tmp.resolve("unwritable-" + journalMode));
        Path db = dir.resolve("store.db");
        SqliteStoreConfig config = SqliteStoreConfig.of(db).withJournalMode(SqliteJournalMode.valueOf(journalMode));
        List<Outcome> all = new ArrayList<>();
        try (SqliteReactiveStore store = SqliteReactiveStore.open(config)) {
            all.addAll(requireAcknowledged(attempt(store, 3, "before", 0)));
            try {
                // when the directory becomes unwritable
                Reliability.immutable(true, dir);

                // then each write either fails clearly or is acknowledged (and proven durable below)
                List<Outcome> during = attempt(store, 8, "during", 0);
                all.addAll(during);
                for (Outcome o : during) {
                    if (!o.acknowledged()) {
                        assertSqliteFailure(o, "appendWithOutbox");
                    }
                }
                if (journalMode.equals("DELETE")) {
                    assertThat(during).as("no rollback journal can be created").noneMatch(Outcome::acknowledged);
                }
                assertThat(history(store, all.get(0).workflowId())).containsExactly("before");
            } finally {
                Reliability.immutable(false, dir);
            }
            all.addAll(assertServesAgain(store));
        }
        assertDurableExactlyAsAcknowledged(config, all);
    }

    // ------------------------------------------------------------------ (c) disk full

    @Test
    void X7_X8_a_full_disk_fails_writes_clearly_and_the_store_serves_again_once_space_is_freed() throws Exception {
        assertTrue(
                Reliability.tmpfsWorks(),
                "this fault test needs mount -t tmpfs (root with CAP_SYS_ADMIN), which CI machines have");
        // given a store on a 4 MiB file system
        Path mount = Files.createDirectories(tmp.resolve("tmpfs"));
        assertThat(Reliability.run("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", mount.toString())
                        .ok())
                .isTrue();
        try {
            Path db = mount.resolve("store.db");
            SqliteStoreConfig config = SqliteStoreConfig.of(db);
            List<Outcome> all = new ArrayList<>();
            try (SqliteReactiveStore store = SqliteReactiveStore.open(config)) {
                all.addAll(requireAcknowledged(attempt(store, 3, "before", 0)));
                WorkflowId continued = continued(store);

                // when the disk is full, and appends need more room than the WAL already holds
                Path filler = Reliability.fillDisk(mount);
                List<Outcome> during = attempt(store, 4, "during", 256 * 1024);
                all.addAll(during);
                assertClearFailure(
                        store.append(continued, List.of(Reliability.signal(continued, 2, "during", 256 * 1024)), 1),
                        "append");

                // then they fail clearly ("database or disk is full")
                assertThat(during).allSatisfy(o -> assertSqliteFailure(o, "appendWithOutbox"));
                assertThat(history(store, all.get(0).workflowId())).containsExactly("before");

                // and once space is freed the same store serves again
                Reliability.deleteQuietly(filler);
                all.addAll(assertServesAgain(store));
                assertContinuationWorks(store, continued);
                all.addAll(requireAcknowledged(attempt(store, 2, "big-after", 256 * 1024)));
            }
            assertDurableExactlyAsAcknowledged(config, all);
        } finally {
            Reliability.run("umount", "-l", mount.toString());
        }
    }

    @Test
    void X7_X8_a_page_limit_reached_mid_transaction_fails_the_writes_clearly_and_lifting_it_recovers() {
        // given an open store with acknowledged data
        Path db = tmp.resolve("max-pages.db");
        SqliteStoreConfig config = SqliteStoreConfig.of(db);
        List<Outcome> all = new ArrayList<>();
        try (SqliteReactiveStore store = SqliteReactiveStore.open(config)) {
            all.addAll(requireAcknowledged(attempt(store, 3, "before", 0)));
            WorkflowId continued = continued(store);

            // when the write connection may not grow the file any more (the portable "disk full")
            long pages = onWriter(store, "PRAGMA page_count");
            assertThat(onWriter(store, "PRAGMA max_page_count=" + pages)).isEqualTo(pages);
            List<Outcome> during = attempt(store, 6, "during", 64 * 1024);
            all.addAll(during);

            // then the appends that need new pages fail clearly
            assertThat(during).allSatisfy(o -> assertSqliteFailure(o, "appendWithOutbox"));
            assertThat(during).allSatisfy(o -> assertThat(o.error()).hasMessageContaining("full"));
            assertClearFailure(
                    store.append(continued, List.of(Reliability.signal(continued, 2, "during", 64 * 1024)), 1),
                    "append");

            // and with the limit lifted the same store serves again
            onWriter(store, "PRAGMA max_page_count=4294967294");
            all.addAll(assertServesAgain(store));
            assertContinuationWorks(store, continued);
            all.addAll(requireAcknowledged(attempt(store, 2, "big-after", 64 * 1024)));
        }
        assertDurableExactlyAsAcknowledged(config, all);
    }

    // ------------------------------------------------------------------ (d) JDBC failures

    @Test
    void X7_X8_a_statement_failing_inside_a_group_commit_fails_only_its_own_command() throws Exception {
        // given an open store and a trigger that makes inserting a "POISON" event fail
        Path db = tmp.resolve("trigger.db");
        SqliteStoreConfig config = SqliteStoreConfig.of(db);
        List<Outcome> all = new ArrayList<>();
        try (SqliteReactiveStore store = SqliteReactiveStore.open(config)) {
            all.addAll(requireAcknowledged(attempt(store, 2, "before", 0)));
            WorkflowId continued = continued(store);
            Reliability.rawExecute(
                    db,
                    "CREATE TRIGGER inject_fault BEFORE INSERT ON events "
                            + "WHEN instr(CAST(NEW.event AS TEXT), 'POISON') > 0 "
                            + "BEGIN SELECT RAISE(ABORT, 'injected fault: poisoned event'); END");

            // when 40 appends are submitted at once, three of them poisoned
            List<String> tags = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                tags.add(i % 13 == 6 ? "POISON-" + i : "good-" + i);
            }
            List<Outcome> during = attempt(store, tags, 0);
            all.addAll(during);

            // then exactly the poisoned ones fail, with the trigger's message; the rest commit
            for (Outcome o : during) {
                if (o.tag().startsWith("POISON")) {
                    assertClearFailure(o, "appendWithOutbox");
                    assertThat(o.error()).hasMessageContaining("injected fault");
                } else {
                    assertThat(o.error()).as(o.tag()).isNull();
                }
            }
            assertThat(during).filteredOn(o -> !o.acknowledged()).hasSize(3);
            assertContinuationFails(store, continued, "POISON-continued");

            // and once the fault is removed, a poisoned append goes through on the same store
            Reliability.rawExecute(db, "DROP TRIGGER inject_fault");
            all.addAll(requireAcknowledged(attempt(store, List.of("POISON-retry"), 0)));
            all.addAll(assertServesAgain(store));
            assertContinuationWorks(store, continued);
        }
        assertDurableExactlyAsAcknowledged(config, all);
    }

    @Test
    void E22_X8_an_outbox_row_failing_to_insert_rolls_back_its_whole_append_only() throws Exception {
        // given an open store and a trigger that makes inserting a row of activity type POISON fail
        Path db = tmp.resolve("row-trigger.db");
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(db))) {
            Reliability.rawExecute(
                    db,
                    "CREATE TRIGGER inject_row_fault BEFORE INSERT ON outbox "
                            + "WHEN NEW.activity_type = 'POISON' "
                            + "BEGIN SELECT RAISE(ABORT, 'injected fault: poisoned row'); END");
            WorkflowId bad = WorkflowId.random();
            WorkflowId good = WorkflowId.random();
            Instant now = Instant.now();

            // when an append with a poisoned row and a healthy append are submitted together
            Mono<Throwable> badAppend = store.appendWithOutbox(
                            bad,
                            List.of(Reliability.signal(bad, 1, "bad", 0)),
                            0,
                            List.of(
                                    OutboxRow.pending(bad, 1, "fine", Payload.json("{}"), now),
                                    OutboxRow.pending(bad, 2, "POISON", Payload.json("{}"), now)))
                    .then(Mono.<Throwable>empty())
                    .onErrorResume(Mono::just);
            Mono<Throwable> goodAppend = store.appendWithOutbox(
                            good,
                            List.of(Reliability.signal(good, 1, "good", 0)),
                            0,
                            List.of(OutboxRow.pending(good, 1, "fine", Payload.json("{}"), now)))
                    .then(Mono.<Throwable>empty())
                    .onErrorResume(Mono::just);
            List<Throwable> errors = Flux.merge(
                            badAppend.defaultIfEmpty(new NoError()), goodAppend.defaultIfEmpty(new NoError()))
                    .collectList()
                    .block(TIMEOUT);

            // then the poisoned append fails as a whole (E22: reported as is, events rolled back too)
            assertThat(errors).hasSize(2);
            assertThat(errors)
                    .filteredOn(e -> !(e instanceof NoError))
                    .singleElement()
                    .satisfies(e -> assertThat(e)
                            .isInstanceOf(BackendException.class)
                            .hasMessageContaining("appendWithOutbox")
                            .hasMessageContaining("injected fault"));
            assertThat(history(store, bad)).isEmpty();
            assertThat(store.rowState(OutboxRow.dispatchKey(bad, 1)).blockOptional(TIMEOUT))
                    .isEmpty();
            // and the healthy one committed
            assertThat(history(store, good)).containsExactly("good");
            assertThat(store.rowState(OutboxRow.dispatchKey(good, 1))
                            .block(TIMEOUT)
                            .status())
                    .isEqualTo(OutboxStatus.PENDING);
        }
    }

    @Test
    void X7_X8_a_settle_failing_inside_a_group_commit_fails_alone_and_succeeds_once_the_fault_is_gone()
            throws Exception {
        // given 10 claimed rows and a trigger that makes completing one of them fail
        Path db = tmp.resolve("settle-trigger.db");
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(db))) {
            WorkflowId w = WorkflowId.random();
            List<OutboxRow> rows = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                rows.add(OutboxRow.pending(
                        w, i, "work", Payload.json("{}"), Instant.now().minusSeconds(1)));
            }
            store.appendOutboxBatch(rows).block(TIMEOUT);
            assertThat(store.claim(ClaimRequest.of(10)).block(TIMEOUT)).hasSize(10);
            String victim = OutboxRow.dispatchKey(w, 4);
            Reliability.rawExecute(
                    db,
                    "CREATE TRIGGER inject_settle_fault BEFORE UPDATE OF status ON outbox "
                            + "WHEN NEW.status = 'done' AND OLD.dispatch_key = '" + victim + "' "
                            + "BEGIN SELECT RAISE(ABORT, 'injected fault: settle'); END");

            // when all ten are completed at once
            List<Throwable> errors = Flux.fromIterable(rows)
                    .flatMap(
                            r -> store.settleKeys(List.of(r.dispatchKey()), Settlement.complete())
                                    .then(Mono.<Throwable>just(new NoError()))
                                    .onErrorResume(Mono::just),
                            10)
                    .collectList()
                    .block(TIMEOUT);

            // then only the victim's completion fails, clearly, and its row stays claimed
            assertThat(errors)
                    .filteredOn(e -> !(e instanceof NoError))
                    .singleElement()
                    .satisfies(e -> assertThat(e)
                            .isInstanceOf(BackendException.class)
                            .hasMessageContaining("complete")
                            .hasMessageContaining("injected fault"));
            for (OutboxRow r : rows) {
                assertThat(store.rowState(r.dispatchKey()).block(TIMEOUT).status())
                        .as(r.dispatchKey())
                        .isEqualTo(r.dispatchKey().equals(victim) ? OutboxStatus.CLAIMED : OutboxStatus.DONE);
            }
            // and once the fault is gone, completing it works on the same store
            Reliability.rawExecute(db, "DROP TRIGGER inject_settle_fault");
            StepVerifier.create(store.settleKeys(List.of(victim), Settlement.complete()))
                    .verifyComplete();
            assertThat(store.rowState(victim).block(TIMEOUT).status()).isEqualTo(OutboxStatus.DONE);
        }
    }

    @Test
    void E15_X7_X8_a_commit_failing_with_busy_fails_the_batch_clearly_and_the_store_serves_again() throws Exception {
        // given a store in rollback-journal mode with a 200 ms busy timeout
        Path db = tmp.resolve("commit-busy.db");
        SqliteStoreConfig config = SqliteStoreConfig.of(db)
                .withJournalMode(SqliteJournalMode.DELETE)
                .withBusyTimeout(Duration.ofMillis(200));
        List<Outcome> all = new ArrayList<>();
        try (SqliteReactiveStore store = SqliteReactiveStore.open(config)) {
            all.addAll(requireAcknowledged(attempt(store, 3, "before", 0)));
            WorkflowId continued = continued(store);
            try (Connection reader = Reliability.raw(db);
                    Statement s = reader.createStatement()) {
                // and another connection inside a read transaction (it holds SHARED, so a COMMIT,
                // which needs EXCLUSIVE, cannot finish; BEGIN IMMEDIATE and the inserts can)
                s.execute("BEGIN");
                try (ResultSet rs = s.executeQuery("SELECT count(*) FROM events")) {
                    assertThat(rs.next()).isTrue();
                }

                // when appends are committed
                List<Outcome> during = attempt(store, 6, "during", 0);
                all.addAll(during);

                // then each fails clearly at COMMIT (E15: the head did not move, so Backend)
                assertThat(during).allSatisfy(o -> {
                    assertSqliteFailure(o, "appendWithOutbox");
                    assertThat(o.error())
                            .isInstanceOf(TransientBackendException.class)
                            .hasMessageContaining("locked");
                });
                assertContinuationFails(store, continued, "during");
                s.execute("COMMIT");
            }
            // and once the reader is gone, the same store serves again
            all.addAll(assertServesAgain(store));
            assertContinuationWorks(store, continued);
        }
        assertDurableExactlyAsAcknowledged(config, all);
    }

    // ------------------------------------------------------------------ helpers

    /** Marks "completed without error" in lists of outcomes. */
    private static final class NoError extends RuntimeException {
        NoError() {
            super(null, null, false, false);
        }
    }

    private static List<Outcome> attempt(SqliteReactiveStore store, int count, String tag, int pad) {
        List<String> tags = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            tags.add(tag);
        }
        return attempt(store, tags, pad);
    }

    /** Submits one append per tag, all at once (so they share group commits), each on a new workflow. */
    private static List<Outcome> attempt(SqliteReactiveStore store, List<String> tags, int pad) {
        Instant now = Instant.now().minusSeconds(1);
        return Flux.fromIterable(tags)
                .flatMap(
                        tag -> {
                            WorkflowId w = WorkflowId.random();
                            return store.appendWithOutbox(
                                            w,
                                            List.of(Reliability.signal(w, 1, tag, pad)),
                                            0,
                                            List.of(OutboxRow.pending(
                                                    w, 1, "work", Payload.json("{\"tag\":\"" + tag + "\"}"), now)))
                                    .then(Mono.fromSupplier(() -> new Outcome(w, tag, null)))
                                    .onErrorResume(e -> Mono.just(new Outcome(w, tag, e)))
                                    .timeout(
                                            Duration.ofSeconds(20),
                                            Mono.fromSupplier(() -> new Outcome(
                                                    w,
                                                    tag,
                                                    new AssertionError("append did not end within 20 s: a hang"))));
                        },
                        tags.size())
                .collectList()
                .block(TIMEOUT);
    }

    private static List<Outcome> requireAcknowledged(List<Outcome> outcomes) {
        assertThat(outcomes).allSatisfy(o -> assertThat(o.error()).as(o.tag()).isNull());
        return outcomes;
    }

    private static void assertClearFailure(Outcome o, String operation) {
        assertThat(o.error()).as("%s on %s", o.tag(), o.workflowId()).isNotNull();
        assertClearError(o.error(), operation);
    }

    /** A clear failure that also carries SQLite's own result code (e.g. {@code [SQLITE_FULL]}). */
    private static void assertSqliteFailure(Outcome o, String operation) {
        assertClearFailure(o, operation);
        assertThat(o.error()).as("%s carries SQLite's reason", o.tag()).hasMessageContaining("[SQLITE_");
    }

    private static void assertClearFailure(org.reactivestreams.Publisher<?> call, String operation) {
        StepVerifier.create(call)
                .expectErrorSatisfies(e -> assertClearError(e, operation))
                .verify(Duration.ofSeconds(20));
    }

    private static void assertClearError(Throwable e, String operation) {
        assertThat(e).isInstanceOf(StoreException.class).hasMessageContaining(operation);
        assertThat(e.getMessage().length())
                .as("message carries a reason: %s", e.getMessage())
                .isGreaterThan(operation.length() + 10);
    }

    /** The writer survived and the store serves: appends, a claim and a completion on the same instance. */
    private static List<Outcome> assertServesAgain(SqliteReactiveStore store) {
        List<Outcome> after = requireAcknowledged(attempt(store, 3, "after", 0));
        StepVerifier.create(store.claim(ClaimRequest.of(1000)))
                .assertNext(rows ->
                        assertThat(rows).extracting(OutboxRow::dispatchKey).contains(key(after.get(0))))
                .verifyComplete();
        StepVerifier.create(store.settleKeys(List.of(key(after.get(0))), Settlement.complete()))
                .verifyComplete();
        return after;
    }

    /** Reopens the file: acknowledged appends are there with their rows; failed ones left nothing. */
    private static void assertDurableExactlyAsAcknowledged(SqliteStoreConfig config, List<Outcome> all) {
        AtomicInteger acknowledged = new AtomicInteger();
        try (SqliteReactiveStore store = SqliteReactiveStore.open(config)) {
            StepVerifier.create(store.validateStoredEvents()).verifyComplete();
            for (Outcome o : all) {
                if (o.acknowledged()) {
                    acknowledged.incrementAndGet();
                    assertThat(history(store, o.workflowId()))
                            .as("E25 acknowledged %s", o.tag())
                            .containsExactly(o.tag());
                    assertThat(store.rowState(key(o)).blockOptional(TIMEOUT))
                            .as("row of acknowledged %s", o.tag())
                            .isPresent();
                } else {
                    assertThat(history(store, o.workflowId()))
                            .as("X8 failed %s left no event", o.tag())
                            .isEmpty();
                    assertThat(store.rowState(key(o)).blockOptional(TIMEOUT))
                            .as("X8 failed %s left no row", o.tag())
                            .isEmpty();
                }
            }
        }
        System.out.printf(
                "fault check: %d appends attempted, %d acknowledged and durable, %d failed and absent%n",
                all.size(), acknowledged.get(), all.size() - acknowledged.get());
    }

    /** A workflow at head 1 whose next append is tried during the fault (checks the append guard). */
    private static WorkflowId continued(SqliteReactiveStore store) {
        WorkflowId w = WorkflowId.random();
        StepVerifier.create(store.append(w, List.of(Reliability.signal(w, 1, "before", 0)), 0))
                .verifyComplete();
        return w;
    }

    /** During the fault: the next append of {@code w} fails clearly. */
    private static void assertContinuationFails(SqliteReactiveStore store, WorkflowId w, String tag) {
        assertClearFailure(store.append(w, List.of(Reliability.signal(w, 2, tag, 0)), 1), "append");
    }

    /**
     * After the fault: the same append goes through at the same expected head (X8: the failed one
     * left the guard where it was; no cached head may believe otherwise), and the file agrees later.
     */
    private static void assertContinuationWorks(SqliteReactiveStore store, WorkflowId w) {
        StepVerifier.create(store.append(w, List.of(Reliability.signal(w, 2, "after", 0)), 1))
                .verifyComplete();
        assertThat(history(store, w)).containsExactly("before", "after");
    }

    private static List<String> history(SqliteReactiveStore store, WorkflowId w) {
        return store.readHistory(w)
                .map(e -> ((SignalReceived) e).name())
                .collectList()
                .block(TIMEOUT);
    }

    private static String key(Outcome o) {
        return OutboxRow.dispatchKey(o.workflowId(), 1);
    }

    /** Runs a one-row query (a pragma) on the store's write connection, see {@link OnWriter}. */
    private static long onWriter(SqliteReactiveStore store, String sql) {
        return OnWriter.queryLong(store, sql, TIMEOUT);
    }
}
