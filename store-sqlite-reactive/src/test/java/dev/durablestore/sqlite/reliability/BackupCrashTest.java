package dev.durablestore.sqlite.reliability;

import static dev.durablestore.sqlite.reliability.Reliability.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.WorkflowId;
import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import dev.durablestore.sqlite.process.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;

/**
 * S30 under a crash: a child JVM ({@link BackupCrashWorker}) takes one backup after another of a
 * ~10 MB store while it appends and a claim stream completes rows, and the test kills it with
 * SIGKILL after a random number of lines once backups began, so mostly in the middle of one. Then
 *
 * <ul>
 *   <li>every file at a backup's target name is a whole copy: it passes {@code integrity_check},
 *       opens as a store, every event decodes, and it holds every append acknowledged before that
 *       backup began; each backup the child reported done is there;
 *   <li>the backup the kill interrupted left nothing at its target name: at most its partial copy
 *       ({@code <target>.<digits>.partial}, with SQLite's {@code -journal} beside it), and nothing
 *       else is in the backup directory;
 *   <li>the store's own file holds every acknowledged append.
 * </ul>
 *
 * Across the trials at least one kill must land in the middle of a backup. Each trial's seed is
 * printed; {@code -Ddurablestore.crashSeed=N} replays a trial sequence from that base seed.
 */
class BackupCrashTest {

    private static final int TRIALS = Reliability.LONG ? 10 : 3;
    private static final int MAX_LINES_AFTER_FIRST_BACKUP = 3_000;
    private static final int PRELOADED = 2_500;

    @TempDir
    Path dir;

    @Test
    void S30_E25_sigkill_during_backups_leaves_only_whole_copies_at_target_names() throws Exception {
        Path template = dir.resolve("template.db");
        preload(template);
        long baseSeed = Long.getLong("durablestore.crashSeed", System.nanoTime());
        int interrupted = 0;
        for (int trial = 0; trial < TRIALS; trial++) {
            long seed = baseSeed + trial;
            int killAfter = 1 + new Random(seed).nextInt(MAX_LINES_AFTER_FIRST_BACKUP);
            Path db = dir.resolve("store-" + trial + ".db");
            Path backups = Files.createDirectories(dir.resolve("backups-" + trial));
            Path log = dir.resolve("child-" + trial + ".log");
            Files.copy(template, db);

            // given a child taking backups one after another while it appends and settles
            CountDownLatch reached = new CountDownLatch(1);
            AtomicInteger afterFirstBackup = new AtomicInteger(-1);
            List<String> lines;
            try (ChildJvm child = ChildJvm.start(
                    BackupCrashWorker.class,
                    log,
                    line -> {
                        if (line.startsWith("BACKUP ")) {
                            afterFirstBackup.compareAndSet(-1, 0);
                        }
                        if ((afterFirstBackup.get() >= 0 && afterFirstBackup.incrementAndGet() >= killAfter)
                                || line.startsWith("ERROR")) {
                            reached.countDown();
                        }
                    },
                    db.toString(),
                    backups.toString())) {
                // when it is killed with SIGKILL `killAfter` lines after its first backup began
                boolean got = reached.await(120, TimeUnit.SECONDS);
                child.kill();
                assertThat(got)
                        .as(
                                "trial %d (seed %d): %d lines after the first backup in 120 s; stderr: %s",
                                trial, seed, afterFirstBackup.get(), Files.exists(log) ? Files.readString(log) : "")
                        .isTrue();
                lines = child.lines();
            }

            // then every file at a target name is a whole copy, and the interrupted backup left none
            String label =
                    "trial " + trial + " (seed " + seed + ", killed " + killAfter + " lines after the first backup)";
            Outcome outcome = verify(db, backups, lines, label);
            if (outcome.interruptedLeftNothing()) {
                interrupted++;
            }
            System.out.printf(
                    "backup-crash trial %d seed %d: killed %d lines after the first backup; %s%n",
                    trial, seed, killAfter, outcome);
        }
        assertThat(interrupted)
                .as("trials whose kill interrupted a backup before its rename")
                .isPositive();
    }

    /** What one trial found. */
    record Outcome(int completed, int wholeCopies, boolean interruptedLeftNothing, List<String> partials) {
        @Override
        public String toString() {
            return completed + " backups reported done, " + wholeCopies + " whole copies checked, "
                    + (interruptedLeftNothing
                            ? "the interrupted backup left nothing at its name"
                            : "killed after a rename")
                    + ", partial files left: " + partials;
        }
    }

    private static Outcome verify(Path db, Path backups, List<String> lines, String trial) throws Exception {
        assertThat(lines).as("%s: errors reported by the child", trial).noneMatch(l -> l.startsWith("ERROR"));
        // the appends acknowledged before each backup began, in line order
        Map<WorkflowId, Long> acked = new HashMap<>();
        Map<String, Map<WorkflowId, Long>> ackedBefore = new LinkedHashMap<>();
        List<String> done = new ArrayList<>();
        for (String line : lines) {
            if (!line.endsWith(" #")) {
                continue; // cut by the kill
            }
            String[] r = line.substring(0, line.length() - 2).split(" ");
            switch (r[0]) {
                case "APPEND" -> acked.merge(WorkflowId.parse(r[1]), Long.parseLong(r[2]), Math::max);
                case "BACKUP" -> ackedBefore.put(Path.of(r[1]).getFileName().toString(), Map.copyOf(acked));
                case "BACKED-UP" -> done.add(Path.of(r[1]).getFileName().toString());
                default -> {}
            }
        }
        assertThat(ackedBefore).as("%s: backups begun", trial).isNotEmpty();

        List<String> files;
        try (Stream<Path> list = Files.list(backups)) {
            files = list.map(p -> p.getFileName().toString()).sorted().toList();
        }
        // a backup's partial copy, and the rollback journal SQLite keeps beside it while it writes
        Pattern partial = Pattern.compile("(backup-\\d+\\.db)\\.\\d+\\.partial(-journal)?");
        String last = List.copyOf(ackedBefore.keySet()).get(ackedBefore.size() - 1);
        List<String> partials =
                files.stream().filter(f -> partial.matcher(f).matches()).toList();
        assertThat(partials)
                .as("%s: partial files are the interrupted backup's only", trial)
                .allSatisfy(f -> {
                    Matcher m = partial.matcher(f);
                    assertThat(m.matches()).isTrue();
                    assertThat(m.group(1)).isEqualTo(last);
                });
        List<String> atTargets =
                files.stream().filter(f -> !partials.contains(f)).toList();
        assertThat(ackedBefore.keySet())
                .as("%s: every other file in the backup directory is at a target name", trial)
                .containsAll(atTargets);
        assertThat(atTargets)
                .as("%s: every backup reported done is there", trial)
                .containsAll(done);
        for (String name : atTargets) {
            assertWholeCopy(backups.resolve(name), ackedBefore.get(name), trial + ", " + name);
        }
        boolean interruptedLeftNothing = !done.contains(last) && !atTargets.contains(last);

        // and the store's file holds every acknowledged append
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(db))) {
            assertHeads(store, acked, trial + ", the store's file");
        }
        return new Outcome(done.size(), atTargets.size(), interruptedLeftNothing, partials);
    }

    private static void assertWholeCopy(Path copy, Map<WorkflowId, Long> ackedBefore, String what) throws Exception {
        try (Connection c = Reliability.raw(copy);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("PRAGMA integrity_check")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).as("%s: integrity_check", what).isEqualTo("ok");
            assertThat(rs.next()).isFalse();
        }
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(copy))) {
            assertThat(store.validateStoredEvents().then().block(TIMEOUT)).isNull(); // S25: every event decodes
            assertHeads(store, ackedBefore, what);
        }
    }

    private static void assertHeads(SqliteReactiveStore store, Map<WorkflowId, Long> acked, String what) {
        for (Map.Entry<WorkflowId, Long> e : acked.entrySet()) {
            assertThat(store.readHead(e.getKey()).block(TIMEOUT))
                    .as("%s: E25 head of %s", what, e.getKey())
                    .isGreaterThanOrEqualTo(e.getValue());
        }
    }

    /** A store file of ~10 MB, so a backup of it takes a while. */
    private static void preload(Path db) {
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(db))) {
            Flux.fromIterable(
                            Stream.generate(WorkflowId::random).limit(PRELOADED).toList())
                    .flatMap(w -> store.append(w, List.of(Reliability.signal(w, 1, "preload", 4_000)), 0), 64)
                    .then()
                    .block(TIMEOUT);
        }
    }
}
