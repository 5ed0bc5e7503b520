package dev.durablestore.sqlite.reliability;

import static dev.durablestore.sqlite.reliability.Reliability.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.TimerId;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.Event;
import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import dev.durablestore.sqlite.process.ChildJvm;
import dev.durablestore.sqlite.reliability.Reliability.Batch;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Crash safety (E7, E17, E25, S24, O21, O51): a child JVM ({@link CrashWorker}) appends with outbox
 * rows on 64 workflows at once, claims and completes under that load, and reports each
 * acknowledged success on stdout. The test kills it with SIGKILL after a random number of lines
 * (so at a random point of its work, often mid-commit), reopens the file and checks that
 *
 * <ul>
 *   <li>every acknowledged append is present (head ≥ the acknowledged head);
 *   <li>no append is partial: each stored batch has all its events and all its outbox rows;
 *   <li>every history is contiguous from 1 to its head, and every event decodes;
 *   <li>every outbox row belongs to a stored batch (none without its events);
 *   <li>every acknowledged claim is persisted ({@code claimed}, or {@code done}; the child never
 *       re-arms) and no row was claimed twice;
 *   <li>every acknowledged completion is {@code done};
 *   <li>W12: every stored step is whole (its events, its rows, the completion of the row it names
 *       and its timer), every acknowledged step is stored, and no timer exists without its step;
 *   <li>D5, D7: a retention sweeper ran all along, deleting the workflows the child closed long ago:
 *       each of them is either whole (both events and its row) or gone whole, and the sweeper
 *       deleted nothing else (every check above still holds).
 * </ul>
 *
 * It runs with {@code synchronous=FULL} and {@code NORMAL}: a process crash (as opposed to a power
 * loss) must lose nothing in either, because a commit that returned is in the OS page cache.
 *
 * <p>Trials: 3 per mode in the default suite; 20 per mode in the long variant:
 *
 * <pre>
 * mvn -B test -pl store-sqlite-reactive -Dtest='CrashSafetyTest' -Ddurablestore.longTests=true
 * </pre>
 *
 * Each trial's seed (which decides the kill point) is printed; {@code -Ddurablestore.crashSeed=N}
 * replays a trial sequence from that base seed.
 */
class CrashSafetyTest {

    private static final int TRIALS = Reliability.LONG ? 20 : 3;
    private static final int MAX_LINES_BEFORE_KILL = Reliability.LONG ? 6000 : 2500;
    private static final int WORKFLOWS = 64;
    private static final int APPENDERS = 16;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "synchronous={0}")
    @ValueSource(strings = {"FULL", "NORMAL"})
    void E25_S24_O51_W12_sigkill_at_a_random_moment_loses_no_acknowledged_write(String synchronous) throws Exception {
        long baseSeed = Long.getLong("durablestore.crashSeed", System.nanoTime());
        Totals totals = new Totals();
        for (int trial = 0; trial < TRIALS; trial++) {
            long seed = baseSeed + trial;
            int killAfter = 1 + new Random(seed).nextInt(MAX_LINES_BEFORE_KILL);
            Path db = dir.resolve(synchronous + "-" + trial + ".db");
            Path log = dir.resolve(synchronous + "-" + trial + ".log");

            // given a child appending, claiming and completing under load on a fresh file
            CountDownLatch reached = new CountDownLatch(1);
            AtomicInteger seen = new AtomicInteger();
            List<String> lines;
            try (ChildJvm child = ChildJvm.start(
                    CrashWorker.class,
                    log,
                    line -> {
                        if (seen.incrementAndGet() >= killAfter || line.startsWith("ERROR")) {
                            reached.countDown();
                        }
                    },
                    db.toString(),
                    synchronous,
                    String.valueOf(WORKFLOWS),
                    String.valueOf(APPENDERS))) {
                // when it has acknowledged `killAfter` operations, it is killed with SIGKILL
                boolean got = reached.await(120, TimeUnit.SECONDS);
                child.kill();
                assertThat(got)
                        .as(
                                "trial %d (seed %d): child printed %d lines in 120 s; stderr: %s",
                                trial, seed, seen.get(), Files.exists(log) ? Files.readString(log) : "")
                        .isTrue();
                lines = child.lines();
            }

            // then the reopened file holds every acknowledged write and no partial batch
            Trial t =
                    verify(db, lines, "trial " + trial + " (seed " + seed + ", killed after " + killAfter + " lines)");
            totals.add(t);
            System.out.printf(
                    "crash-safety synchronous=%s trial %d seed %d: killed after %d lines; checked %s%n",
                    synchronous, trial, seed, killAfter, t);
        }
        System.out.printf("crash-safety synchronous=%s: %d trials, total %s, lost 0%n", synchronous, TRIALS, totals);
    }

    /** What one trial checked. */
    record Trial(
            int ackAppends, int workflows, int events, int rows, int ackClaims, int ackDone, int ackSteps, int steps) {
        @Override
        public String toString() {
            return ackAppends + " acknowledged appends, " + workflows + " workflows, " + events + " events, " + rows
                    + " outbox rows, " + ackClaims + " acknowledged claims, " + ackDone + " acknowledged completions, "
                    + ackSteps + " acknowledged steps, " + steps + " stored steps";
        }
    }

    private static final class Totals {
        int appends;
        int events;
        int rows;
        int claims;
        int done;
        int steps;

        void add(Trial t) {
            steps += t.ackSteps();
            appends += t.ackAppends();
            events += t.events();
            rows += t.rows();
            claims += t.ackClaims();
            done += t.ackDone();
        }

        @Override
        public String toString() {
            return appends + " acknowledged appends, " + events + " events, " + rows + " outbox rows, " + claims
                    + " acknowledged claims, " + done + " acknowledged completions, " + steps + " acknowledged steps";
        }
    }

    private static Trial verify(Path db, List<String> lines, String trial) throws Exception {
        assertThat(lines).as("%s: errors reported by the child", trial).noneMatch(l -> l.startsWith("ERROR"));
        Map<WorkflowId, Long> ackHeads = new HashMap<>();
        int ackAppends = 0;
        for (String[] r : Reliability.records(lines, "APPEND")) {
            ackHeads.merge(WorkflowId.parse(r[1]), Long.parseLong(r[2]), Math::max);
            ackAppends++;
        }
        Map<String, Integer> claims = new HashMap<>();
        for (String[] r : Reliability.records(lines, "CLAIM")) {
            Reliability.increment(claims, r[1]);
        }
        Set<String> done = new HashSet<>();
        for (String[] r : Reliability.records(lines, "DONE")) {
            done.add(r[1]);
        }
        int ackSteps = 0;
        for (String[] r : Reliability.records(lines, "STEP")) {
            ackHeads.merge(WorkflowId.parse(r[1]), Long.parseLong(r[2]), Math::max);
            done.add(r[3]);
            ackSteps++;
        }
        Map<WorkflowId, Set<String>> stepTimers = new HashMap<>(); // the timer each stored step must have set
        Set<String> settledBySteps = new HashSet<>();
        assertThat(claims)
                .as("%s: O21 rows claimed more than once", trial)
                .allSatisfy((k, n) -> assertThat(n).isOne());

        Set<String> expectedRows = new HashSet<>();
        Set<WorkflowId> closedKept = new HashSet<>();
        int events = 0;
        int workflows;
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(db))) {
            assertThat(store.validateStoredEvents().then().block(TIMEOUT)).isNull(); // S25: every event decodes
            List<WorkflowId> all = store.listWorkflowIds().collectList().block(TIMEOUT);
            List<WorkflowId> ids = new ArrayList<>();
            for (WorkflowId w : all) {
                if (w.toString().startsWith(Reliability.CLOSED_PREFIX)) {
                    closedKept.add(w);
                    assertThat(store.readHistory(w).collectList().block(TIMEOUT))
                            .as("%s: D5 closed workflow %s is whole or gone, never half-deleted", trial, w)
                            .hasSize(2);
                } else {
                    ids.add(w);
                }
            }
            workflows = ids.size();
            assertThat(ids)
                    .as("%s: workflows with an acknowledged append", trial)
                    .containsAll(ackHeads.keySet());
            for (WorkflowId w : ids) {
                List<Event> history = store.readHistory(w).collectList().block(TIMEOUT);
                long head = history.size();
                assertThat(store.readHead(w).block(TIMEOUT))
                        .as("%s: head of %s", trial, w)
                        .isEqualTo(head);
                assertThat(head)
                        .as("%s: E25 acknowledged head of %s", trial, w)
                        .isGreaterThanOrEqualTo(ackHeads.getOrDefault(w, 0L));
                for (int i = 0; i < history.size(); i++) {
                    Event e = history.get(i);
                    assertThat(e.seq())
                            .as("%s: history of %s is contiguous", trial, w)
                            .isEqualTo(i + 1L);
                    Batch b = Reliability.batchOf(e);
                    assertThat(e.seq())
                            .as("%s: %s#%d lies inside its batch %s", trial, w, e.seq(), b)
                            .isBetween(b.first(), b.first() + b.events() - 1);
                    assertThat(b.first() + b.events() - 1)
                            .as("%s: E7 batch %s of %s is whole", trial, b, w)
                            .isLessThanOrEqualTo(head);
                    assertThat(Reliability.batchOf(history.get((int) b.first() - 1)))
                            .as("%s: every event of a batch describes the same batch", trial)
                            .isEqualTo(b);
                    if (e.seq() == b.first() && Reliability.settledBy(e) != null) {
                        settledBySteps.add(Reliability.settledBy(e));
                        stepTimers
                                .computeIfAbsent(w, k -> new HashSet<>())
                                .add(TimerId.named(Reliability.stepTimer(b.first()))
                                        .canonicalText());
                    }
                    if (e.seq() == b.first()) {
                        for (int j = 0; j < b.rows(); j++) {
                            expectedRows.add(w + ":" + Reliability.rowOrdinal(b.first(), j));
                        }
                    }
                }
                events += history.size();
            }
        }

        Map<String, String> status = new HashMap<>();
        try (Connection c = Reliability.raw(db);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT dispatch_key, status FROM outbox")) {
            while (rs.next()) {
                status.put(rs.getString(1), rs.getString(2));
            }
        }
        // D5: a closed workflow's row is there exactly when its events are
        Set<String> closedRows = new HashSet<>();
        status.keySet().removeIf(key -> key.startsWith(Reliability.CLOSED_PREFIX) && closedRows.add(key));
        Set<String> keptRows = new HashSet<>();
        for (WorkflowId w : closedKept) {
            keptRows.add(OutboxRow.dispatchKey(w, 0));
        }
        assertThat(closedRows)
                .as("%s: D5 rows of the closed workflows = rows of those still stored", trial)
                .isEqualTo(keptRows);
        int closedAcknowledged = Reliability.records(lines, "CLOSED").size();
        // E17: a batch's rows are there exactly when its events are
        assertThat(status.keySet())
                .as("%s: outbox rows = rows of the stored batches", trial)
                .containsExactlyInAnyOrderElementsOf(expectedRows);
        assertThat(status.values())
                .as("%s: no row left the pending/claimed/done path", trial)
                .allMatch(v -> v.equals("pending") || v.equals("claimed") || v.equals("done"));
        for (String key : claims.keySet()) {
            assertThat(status.get(key))
                    .as("%s: acknowledged claim of %s", trial, key)
                    .isIn("claimed", "done");
        }
        for (String key : done) {
            assertThat(status.get(key))
                    .as("%s: acknowledged completion of %s", trial, key)
                    .isEqualTo("done");
            assertThat(claims)
                    .as("%s: completed %s was claimed first", trial, key)
                    .containsKey(key);
        }
        // W1, W12: a stored step completed the row it names and set its timer; no timer without its step
        for (String key : settledBySteps) {
            assertThat(status.get(key))
                    .as("%s: W12 the row completed by a stored step, %s", trial, key)
                    .isEqualTo("done");
        }
        Map<WorkflowId, Set<String>> timers = new HashMap<>();
        try (Connection c = Reliability.raw(db);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT workflow_id, timer_id FROM timers")) {
            while (rs.next()) {
                timers.computeIfAbsent(WorkflowId.parse(rs.getString(1)), k -> new HashSet<>())
                        .add(rs.getString(2));
            }
        }
        assertThat(timers)
                .as("%s: W12 timers = the timers of the stored steps", trial)
                .isEqualTo(stepTimers);
        System.out.printf(
                "%s: %d closed workflows acknowledged, %d still stored, the rest deleted by retention%n",
                trial, closedAcknowledged, closedKept.size());
        return new Trial(
                ackAppends,
                workflows,
                events,
                status.size(),
                claims.size(),
                done.size(),
                ackSteps,
                settledBySteps.size());
    }
}
