package dev.durablestore.sqlite.reliability;

import static dev.durablestore.sqlite.reliability.Reliability.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.BackendException;
import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.Payload;
import dev.durablestore.api.SequenceConflictException;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.TimerId;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.event.SignalReceived;
import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import dev.durablestore.sqlite.process.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.reactivestreams.Publisher;
import reactor.test.StepVerifier;

/**
 * Contention (E13, E14, E15, O21, S16, S22): two processes on one file append to the same
 * workflows on the same expected heads and claim from one outbox; and an expired busy timeout is a
 * clear error, never a hang.
 *
 * <p>The default suite races 100 workflows to head 10 with 20 rows per append (20,000 rows); the
 * long variant races 250 workflows to head 20 (100,000 rows):
 *
 * <pre>
 * mvn -B test -pl store-sqlite-reactive -Dtest='ContentionTest' -Ddurablestore.longTests=true
 * </pre>
 */
class ContentionTest {

    private static final int WORKFLOWS = Reliability.LONG ? 250 : 100;
    private static final long TARGET_HEAD = Reliability.LONG ? 20 : 10;
    private static final int ROWS_PER_APPEND = 20;

    @TempDir
    Path dir;

    @Test
    void E14_O21_S22_two_processes_racing_on_one_file_have_one_winner_per_head_and_no_double_or_lost_row()
            throws Exception {
        long started = System.nanoTime();
        Path db = dir.resolve("contended.db");
        long seed = System.nanoTime();
        List<WorkflowId> workflows = ContentionWorker.workflows(seed, WORKFLOWS);
        SqliteReactiveStore.open(SqliteStoreConfig.of(db)).close(); // schema in place before the race

        // given two processes on one file, both open and waiting
        CountDownLatch ready = new CountDownLatch(2);
        CountDownLatch appended = new CountDownLatch(2);
        Consumer<String> onLine = line -> {
            if (line.startsWith("READY")) {
                ready.countDown();
            } else if (line.startsWith("APPENDED") || line.startsWith("ERROR")) {
                appended.countDown();
            }
        };
        String[] args = {
            db.toString(),
            "",
            String.valueOf(seed),
            String.valueOf(WORKFLOWS),
            String.valueOf(TARGET_HEAD),
            String.valueOf(ROWS_PER_APPEND)
        };
        List<String> linesA;
        List<String> linesB;
        long appendMillis;
        long drainMillis;
        try (ChildJvm a = ChildJvm.start(ContentionWorker.class, dir.resolve("a.log"), onLine, with(args, "A"));
                ChildJvm b = ChildJvm.start(ContentionWorker.class, dir.resolve("b.log"), onLine, with(args, "B"))) {
            assertThat(ready.await(60, TimeUnit.SECONDS))
                    .as("both processes opened the store")
                    .isTrue();

            // when both race on the same workflows and heads while claiming and completing every row
            a.send("GO");
            b.send("GO");
            long go = System.nanoTime();
            assertThat(appended.await(300, TimeUnit.SECONDS))
                    .as("both processes finished appending; stderr: %s %s", log("a.log"), log("b.log"))
                    .isTrue();
            appendMillis = Duration.ofNanos(System.nanoTime() - go).toMillis();
            a.send("FINISH");
            b.send("FINISH");
            assertThat(a.await(300))
                    .as("process A exit code; stderr: %s", log("a.log"))
                    .isZero();
            assertThat(b.await(300))
                    .as("process B exit code; stderr: %s", log("b.log"))
                    .isZero();
            drainMillis = Duration.ofNanos(System.nanoTime() - go).toMillis() - appendMillis;
            linesA = a.lines();
            linesB = b.lines();
        }

        // then neither reported an unexpected error (S22: no lock error within the busy timeout)
        List<String> all = new ArrayList<>(linesA);
        all.addAll(linesB);
        assertThat(all).noneMatch(l -> l.startsWith("ERROR"));
        assertThat(linesA).contains("EXIT #");
        assertThat(linesB).contains("EXIT #");

        // and E13/E14: exactly one winner per (workflow, seq)
        Map<String, String> winner = new HashMap<>();
        for (String[] r : Reliability.records(linesA, "WIN")) {
            assertThat(winner.put(r[1] + "#" + r[2], "A"))
                    .as("second winner of %s#%s", r[1], r[2])
                    .isNull();
        }
        for (String[] r : Reliability.records(linesB, "WIN")) {
            assertThat(winner.put(r[1] + "#" + r[2], "B"))
                    .as("second winner of %s#%s", r[1], r[2])
                    .isNull();
        }
        assertThat(winner).hasSize((int) (WORKFLOWS * TARGET_HEAD));
        // both processes raced on the heads (SQLite's write lock is not fair, so one process may win
        // every head of a run; the contract asks for one winner, not for fairness)
        for (List<String> lines : List.of(linesA, linesB)) {
            assertThat(Reliability.records(lines, "WIN").size()
                            + Reliability.records(lines, "LOSE").size())
                    .as("each process attempted appends")
                    .isPositive();
        }
        List<String[]> losses = new ArrayList<>(Reliability.records(linesA, "LOSE"));
        losses.addAll(Reliability.records(linesB, "LOSE"));
        assertThat(losses).as("the processes really competed for heads").isNotEmpty();
        for (String[] r : losses) {
            assertThat(Long.parseLong(r[3]))
                    .as("E13 a loser's conflict reports a head past its guard")
                    .isGreaterThan(Long.parseLong(r[2]));
        }
        assertThat(losses).as("the processes did race on the same heads").isNotEmpty();

        // and O21: no row was claimed twice, across both processes
        Map<String, Integer> claims = new HashMap<>();
        Set<String> done = new HashSet<>();
        int claimedByA = Reliability.records(linesA, "CLAIM").size();
        for (String[] r : Reliability.records(all, "CLAIM")) {
            Reliability.increment(claims, r[1]);
        }
        for (String[] r : Reliability.records(all, "DONE")) {
            assertThat(done.add(r[1])).as("completed once: %s", r[1]).isTrue();
        }
        List<String> doubleClaims = claims.entrySet().stream()
                .filter(e -> e.getValue() > 1)
                .map(Map.Entry::getKey)
                .toList();
        assertThat(doubleClaims).as("O21 double claims").isEmpty();
        assertThat(claimedByA).as("both processes claimed").isPositive().isLessThan(claims.size());

        // and the file holds exactly the winners' batches: contiguous histories, every row done, none lost
        Set<String> expectedRows = new HashSet<>();
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(db))) {
            for (WorkflowId w : workflows) {
                List<Event> history = store.readHistory(w).collectList().block(TIMEOUT);
                assertThat(history).as("history of %s", w).hasSize((int) TARGET_HEAD);
                for (int i = 0; i < history.size(); i++) {
                    Event e = history.get(i);
                    assertThat(e.seq()).as("contiguous, no duplicates: %s", w).isEqualTo(i + 1L);
                    String by = ((SignalReceived) e).name();
                    assertThat(by)
                            .as("E13 the stored event is the winner's: %s#%d", w, e.seq())
                            .isEqualTo(winner.get(w + "#" + e.seq()));
                    for (int j = 0; j < ROWS_PER_APPEND; j++) {
                        expectedRows.add(OutboxRow.dispatchKey(w, ContentionWorker.ordinal(e.seq(), j)));
                    }
                }
            }
        }
        Map<String, String> rows = new HashMap<>();
        try (Connection c = Reliability.raw(db);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT dispatch_key, status, input FROM outbox")) {
            while (rs.next()) {
                String key = rs.getString(1);
                assertThat(rs.getString(2)).as("status of %s", key).isEqualTo("done");
                rows.put(key, storedInput(rs.getBytes(3)));
            }
        }
        assertThat(rows.keySet())
                .as("E17 outbox rows are the winners' rows")
                .containsExactlyInAnyOrderElementsOf(expectedRows);
        for (Map.Entry<String, String> row : rows.entrySet()) {
            String key = row.getKey();
            String seqText = key.substring(key.lastIndexOf(':') + 1);
            long seq = Long.parseLong(seqText) / 1000;
            String w = key.substring(0, key.lastIndexOf(':'));
            assertThat(row.getValue())
                    .as("row %s was staged by the winner of its append", key)
                    .contains("\"by\":\"" + winner.get(w + "#" + seq) + "\"");
        }
        assertThat(done)
                .as("O21 no lost row: every row completed by exactly one process")
                .containsExactlyInAnyOrderElementsOf(expectedRows);
        assertThat(claims.keySet()).containsExactlyInAnyOrderElementsOf(expectedRows);
        System.out.printf(
                "contention: %d workflows x %d heads raced by 2 processes (%d conflicts); %d rows claimed "
                        + "(%d by A, %d by B), 0 double claims, 0 lost; racing %d ms, draining %d ms, %d ms in all%n",
                WORKFLOWS,
                TARGET_HEAD,
                losses.size(),
                claims.size(),
                claimedByA,
                claims.size() - claimedByA,
                appendMillis,
                drainMillis,
                Duration.ofNanos(System.nanoTime() - started).toMillis());
    }

    @Test
    void E15_S16_an_expired_busy_timeout_is_a_clear_error_and_the_store_serves_again_once_the_lock_is_gone()
            throws Exception {
        // given a store with a 200 ms busy timeout and a workflow at head 1
        Path db = dir.resolve("busy.db");
        WorkflowId w = WorkflowId.random();
        try (SqliteReactiveStore store =
                SqliteReactiveStore.open(SqliteStoreConfig.of(db).withBusyTimeout(Duration.ofMillis(200)))) {
            StepVerifier.create(store.appendWithOutbox(
                            w,
                            List.of(Reliability.signal(w, 1, "first", 0)),
                            0,
                            List.of(OutboxRow.pending(
                                    w,
                                    1,
                                    "work",
                                    Payload.json("{}"),
                                    Instant.now().minusSeconds(1)))))
                    .verifyComplete();

            // and another connection holding the write lock
            try (Connection other = Reliability.raw(db);
                    Statement s = other.createStatement()) {
                s.execute("BEGIN IMMEDIATE");

                // when writes are attempted, then each fails within a bounded time with a clear error
                // (E15: Backend, or SequenceConflict had the head moved), and nothing hangs
                long before = System.nanoTime();
                StepVerifier.create(store.append(w, List.of(Reliability.signal(w, 2, "while-locked", 0)), 1))
                        .expectErrorSatisfies(e -> assertThat(e)
                                .isInstanceOfAny(BackendException.class, SequenceConflictException.class)
                                .hasMessageContaining("append")
                                .hasMessageContaining("locked"))
                        .verify(Duration.ofSeconds(10));
                assertThat(Duration.ofNanos(System.nanoTime() - before)).isLessThan(Duration.ofSeconds(10));
                Map<String, Publisher<?>> writes = new HashMap<>();
                writes.put("claim", store.claim(ClaimRequest.of(10)));
                writes.put("complete", store.settleKeys(List.of(OutboxRow.dispatchKey(w, 1)), Settlement.complete()));
                writes.put("scheduleTimer", store.scheduleTimer(w, TimerId.named("t"), Instant.now()));
                writes.put(
                        "appendOutboxBatch",
                        store.appendOutboxBatch(
                                List.of(OutboxRow.pending(w, 2, "work", Payload.json("{}"), Instant.now()))));
                for (Map.Entry<String, Publisher<?>> write : writes.entrySet()) {
                    StepVerifier.create(write.getValue())
                            .expectErrorSatisfies(e -> assertThat(e)
                                    .as(write.getKey())
                                    .isInstanceOf(BackendException.class)
                                    .hasMessageContaining(write.getKey())
                                    .hasMessageContaining("locked"))
                            .verify(Duration.ofSeconds(10));
                }
                // and reads are served meanwhile (WAL)
                StepVerifier.create(store.readHead(w)).expectNext(1L).verifyComplete();

                s.execute("ROLLBACK");
            }

            // then, the lock gone, the same writer serves again and nothing of the failed writes exists
            StepVerifier.create(store.append(w, List.of(Reliability.signal(w, 2, "after", 0)), 1))
                    .verifyComplete();
            assertThat(store.readHistory(w)
                            .map(e -> ((SignalReceived) e).name())
                            .collectList()
                            .block(TIMEOUT))
                    .containsExactly("first", "after");
            assertThat(store.rowState(OutboxRow.dispatchKey(w, 1))
                            .block(TIMEOUT)
                            .status())
                    .isEqualTo(OutboxStatus.PENDING);
            assertThat(store.rowState(OutboxRow.dispatchKey(w, 2)).blockOptional(TIMEOUT))
                    .isEmpty();
            assertThat(store.expiredTimers(Instant.now().plusSeconds(3600))
                            .collectList()
                            .block(TIMEOUT))
                    .isEmpty();
            StepVerifier.create(store.claim(ClaimRequest.of(10)))
                    .assertNext(rows -> assertThat(rows)
                            .extracting(OutboxRow::dispatchKey)
                            .containsExactly(OutboxRow.dispatchKey(w, 1)))
                    .verifyComplete();
        }
    }

    @Test
    void E15_a_claim_stream_rides_out_a_lock_held_past_its_busy_timeout_and_delivers_once_it_is_gone()
            throws Exception {
        // given a store with a 200 ms busy timeout, a due row, and another connection holding the lock
        Path db = dir.resolve("busy-stream.db");
        WorkflowId w = WorkflowId.random();
        try (SqliteReactiveStore store =
                SqliteReactiveStore.open(SqliteStoreConfig.of(db).withBusyTimeout(Duration.ofMillis(200)))) {
            store.appendOutboxBatch(List.of(OutboxRow.pending(
                            w, 1, "work", Payload.json("{}"), Instant.now().minusSeconds(1))))
                    .block(TIMEOUT);
            try (Connection other = Reliability.raw(db);
                    Statement s = other.createStatement()) {
                s.execute("BEGIN IMMEDIATE");
                // when a claim stream asks for one row while its claims time out (each after 200 ms)
                // then it neither fails nor claims, and once the lock is released it delivers the row
                StepVerifier.create(
                                store.claimStream(
                                        ClaimStreamOptions.defaults().withPollInterval(Duration.ofMillis(50))),
                                1)
                        .expectSubscription()
                        .expectNoEvent(Duration.ofMillis(700)) // several claims hit the busy timeout
                        .then(() -> {
                            try {
                                s.execute("ROLLBACK");
                            } catch (java.sql.SQLException e) {
                                throw new IllegalStateException(e);
                            }
                        })
                        .assertNext(row -> assertThat(row.dispatchKey()).isEqualTo(OutboxRow.dispatchKey(w, 1)))
                        .thenCancel()
                        .verify(Duration.ofSeconds(10));
            }
            assertThat(store.rowState(OutboxRow.dispatchKey(w, 1))
                            .block(TIMEOUT)
                            .status())
                    .isEqualTo(OutboxStatus.CLAIMED);
        }
    }

    /** The stored input column wraps the payload bytes in base64; returns them as text. */
    private static String storedInput(byte[] column) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"bytes\":\"([A-Za-z0-9+/=]*)\"")
                .matcher(new String(column, java.nio.charset.StandardCharsets.UTF_8));
        assertThat(m.find())
                .as("stored input %s", new String(column, java.nio.charset.StandardCharsets.UTF_8))
                .isTrue();
        return new String(java.util.Base64.getDecoder().decode(m.group(1)), java.nio.charset.StandardCharsets.UTF_8);
    }

    private static String[] with(String[] args, String name) {
        String[] copy = args.clone();
        copy[1] = name;
        return copy;
    }

    private String log(String name) throws java.io.IOException {
        Path p = dir.resolve(name);
        return Files.exists(p) ? Files.readString(p) : "";
    }
}
