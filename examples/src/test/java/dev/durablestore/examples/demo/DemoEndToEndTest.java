package dev.durablestore.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.ActivityId;
import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.Payload;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.ActivityCompleted;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.event.EventEnvelope;
import dev.durablestore.examples.demo.Verifier.Check;
import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import reactor.test.StepVerifier;

/** Small whole runs of the demo on a temporary SQLite file. */
@Timeout(60)
class DemoEndToEndTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir
    Path dir;

    @Test
    void aSmallRunVerifiesAndASecondRunResumesCleanly() {
        DemoOptions options = small(dir.resolve("demo.db"), 30, 3);

        String first = run(options, 0);
        assertThat(first)
                .contains("30 staged by this run (90 rows), 0 already there")
                .contains("[ ok ] every history is contiguous")
                .doesNotContain("[FAIL]")
                .endsWith("VERIFIED" + System.lineSeparator());

        String second = run(options, 0);
        assertThat(second)
                .contains("0 staged by this run (0 rows), 30 already there")
                .contains("0 completed, 0 retried, 0 dead-lettered")
                .endsWith("VERIFIED" + System.lineSeparator());

        String grown = run(small(dir.resolve("demo.db"), 36, 2), 0);
        assertThat(grown)
                .contains("36 in the file: 6 staged by this run (12 rows), 30 already there")
                .endsWith("VERIFIED" + System.lineSeparator());
    }

    @Test
    void aSerialRunDispatchesEveryWorkflowsActivitiesOneAtATimeAndVerifies() {
        DemoOptions o = small(dir.resolve("serial.db"), 20, 4);
        DemoOptions serial = new DemoOptions(
                o.db(),
                o.workflows(),
                o.activities(),
                o.workMs(),
                o.failureRate(),
                o.poisonRate(),
                o.maxAttempts(),
                o.backoffMs(),
                o.concurrency(),
                o.seed(),
                true,
                false);

        String out = run(serial, 0);

        assertThat(out)
                .contains("20 staged by this run (80 rows), 0 already there")
                .doesNotContain("[FAIL]")
                .endsWith("VERIFIED" + System.lineSeparator());
    }

    @Test
    void aRunFinishesWhatAKilledRunLeftBehind() {
        Path db = dir.resolve("killed.db");
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(db))) {
            StepVerifier.create(Workload.stage(store, 10, 3, 4, new DemoStats()))
                    .expectNext(new Workload.StageResult(10, 0))
                    .verifyComplete();
            // The dead run had claimed six rows, and for one of them had recorded the outcome
            // in the history but died before completing the row.
            List<OutboxRow> claimed = store.claim(ClaimRequest.of(6)).block(WAIT);
            assertThat(claimed).hasSize(6);
            OutboxRow row = claimed.get(0);
            ActivityId activity = Workload.activityId(row.ordinal());
            long head = store.readHead(row.workflowId()).block(WAIT);
            List<Event> outcome = List.of(new ActivityCompleted(
                    new EventEnvelope(head + 1, Instant.now(), row.workflowId()),
                    activity,
                    Payload.json("{\"ok\":true}"),
                    1));
            StepVerifier.create(store.append(row.workflowId(), outcome, head)).verifyComplete();
        }

        String out = run(small(db, 10, 3), 0);
        assertThat(out)
                .contains("6 rows left claimed by an earlier run were re-armed")
                .contains("0 staged by this run (0 rows), 10 already there")
                .containsPattern("[1-9]\\d* redelivered")
                .endsWith("VERIFIED" + System.lineSeparator());
    }

    @Test
    void verificationOfARealStoreSeesADuplicateCompletionAndAnUnsettledRow() {
        Path db = dir.resolve("broken.db");
        run(small(db, 5, 2), 0);
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(db))) {
            WorkflowId w = Workload.workflowId(3);
            ActivityId a = Workload.activityId(1);
            long head = store.readHead(w).block(WAIT);
            store.append(
                            w,
                            List.of(new ActivityCompleted(
                                    new EventEnvelope(head + 1, Instant.now(), w), a, Payload.json("{}"), 9)),
                            head)
                    .block(WAIT);
            WorkflowId v = Workload.workflowId(4);
            store.rearmPending(List.of(Workload.rows(4, 2, Instant.now()).get(1)))
                    .block(WAIT);

            Verifier.Result r = Verifier.check(Verifier.collect(store).block(WAIT));

            assertThat(r.verified()).isFalse();
            assertThat(r.problems().get(Check.COMPLETED_ONCE))
                    .singleElement()
                    .asString()
                    .contains(w.toString())
                    .contains(a.toString());
            assertThat(r.problems().get(Check.ROWS_SETTLED))
                    .anySatisfy(p ->
                            assertThat(p).contains(OutboxRow.dispatchKey(v, 2)).contains("pending"));
            assertThat(r.problems().get(Check.HISTORIES_CONTIGUOUS)).isEmpty();
        }
    }

    private static DemoOptions small(Path db, int workflows, int activities) {
        // 1 ms of work, many failures and some poison, so retries and dead letters happen.
        return new DemoOptions(db, workflows, activities, 1, 0.2, 0.05, 3, 1, 16, 7L, false);
    }

    private static String run(DemoOptions options, int expectedExit) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int code = DemoRun.run(options, new PrintStream(bytes, true, StandardCharsets.UTF_8), false);
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertThat(code).as(out).isEqualTo(expectedExit);
        return out;
    }
}
