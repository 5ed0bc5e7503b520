package dev.durablestore.sqlite.reliability;

import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.PackageVersion;
import dev.durablestore.api.Payload;
import dev.durablestore.api.RetentionPolicy;
import dev.durablestore.api.RetentionSweeper;
import dev.durablestore.api.RunId;
import dev.durablestore.api.SequenceConflictException;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.TimerId;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.WorkflowStep;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.event.EventEnvelope;
import dev.durablestore.api.event.WorkflowCompleted;
import dev.durablestore.api.event.WorkflowStarted;
import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import dev.durablestore.sqlite.SqliteSynchronous;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The process the crash test kills: it appends with outbox rows on many workflows at once, claims
 * and completes under that load, and prints one line per <em>acknowledged</em> success, only after
 * the store's {@code Mono} succeeded:
 *
 * <ul>
 *   <li>{@code APPEND <workflow> <newHead> #} — an {@code appendWithOutbox} committed;
 *   <li>{@code CLAIM <key> #} — a claim returned the row;
 *   <li>{@code DONE <key> #} — {@code complete} of the row committed;
 *   <li>{@code STEP <workflow> <newHead> <key> #} — a {@code commitStep} committed: 1–2 events
 *       naming the row it completes ({@link Reliability#stepSignal}), 0–2 rows, the fenced complete
 *       of the claimed row and a timer ({@link Reliability#stepTimer});
 *   <li>{@code CLOSED <workflow> #} — a workflow closed long ago ({@link Reliability#CLOSED_PREFIX}:
 *       started and completed in 2000, with one settled row) was appended; a {@link RetentionSweeper}
 *       running all along deletes such workflows (D5), so it may be gone;
 *   <li>{@code ERROR <message> #} — something failed that should not have (the test fails).
 * </ul>
 *
 * <p>Every append writes 1–3 events plus 0–3 rows (sometimes 25, so some commits are large); each
 * event's payload describes its batch ({@link Reliability#batchEvents}), so the parent can check
 * after the crash that no batch is partial. About half of the claimed rows are settled by a step on
 * their own workflow at its current head; steps and appends of a workflow may then conflict, and
 * each goes on from the head the conflict reports. Nothing is ever re-armed. The process never exits on its own: the parent kills it.
 *
 * <p>Arguments: database path, synchronous mode ({@code FULL}/{@code NORMAL}), workflows, appenders.
 */
public final class CrashWorker {

    private static final PrintStream OUT =
            new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);

    private CrashWorker() {}

    public static void main(String[] args) throws InterruptedException {
        Path db = Path.of(args[0]);
        String synchronous = args[1];
        int workflows = Integer.parseInt(args[2]);
        int appenders = Integer.parseInt(args[3]);
        SqliteReactiveStore store = SqliteReactiveStore.open(
                SqliteStoreConfig.of(db).withSynchronous(SqliteSynchronous.valueOf(synchronous)));
        // never closed: the parent kills this process with SIGKILL

        for (int a = 0; a < appenders; a++) {
            List<WorkflowId> owned = new ArrayList<>();
            for (int i = a; i < workflows; i += appenders) {
                owned.add(WorkflowId.random());
            }
            long[] heads = new long[owned.size()];
            Mono.defer(() -> appendOnce(store, owned, heads))
                    .repeat()
                    .subscribe(
                            v -> {}, e -> print("ERROR append " + e.toString().replace('\n', ' ')));
        }

        // a claim stream, completing about 70% of what it claims (the rest stays claimed)
        store.claimStream(ClaimStreamOptions.defaults().withMaxBatch(16).withPollInterval(Duration.ofMillis(20)))
                .doOnNext(row -> print("CLAIM " + row.dispatchKey()))
                .flatMap(row -> completeSometimes(store, row), 16)
                .subscribe(
                        v -> {}, e -> print("ERROR claimStream " + e.toString().replace('\n', ' ')));

        // and plain batch claims beside it
        Mono.defer(() -> store.claim(ClaimRequest.of(8)))
                .flatMapMany(rows -> {
                    rows.forEach(row -> print("CLAIM " + row.dispatchKey()));
                    return Flux.fromIterable(rows).concatMap(row -> completeSometimes(store, row));
                })
                .then(Mono.delay(Duration.ofMillis(2)))
                .repeat()
                .subscribe(v -> {}, e -> print("ERROR claim " + e.toString().replace('\n', ' ')));

        // closed workflows, and a retention sweeper deleting them in small steps all along (D5, D7)
        AtomicLong closed = new AtomicLong();
        Mono.defer(() -> appendClosed(store, closed.incrementAndGet()))
                .then(Mono.delay(Duration.ofMillis(1)))
                .repeat()
                .subscribe(v -> {}, e -> print("ERROR closed " + e.toString().replace('\n', ' ')));
        RetentionSweeper sweeper = RetentionSweeper.of(store, RetentionPolicy.closedFor(Duration.ofDays(1)))
                .withBatchSize(4);
        sweeper.sweepOnce()
                .then(Mono.delay(Duration.ofMillis(5)))
                .repeat()
                .subscribe(v -> {}, e -> print("ERROR sweep " + e.toString().replace('\n', ' ')));

        new CountDownLatch(1).await(); // until killed
    }

    private static Mono<Void> appendOnce(SqliteReactiveStore store, List<WorkflowId> owned, long[] heads) {
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        int index = rnd.nextInt(owned.size());
        WorkflowId w = owned.get(index);
        long first = heads[index] + 1;
        int events = 1 + rnd.nextInt(3);
        int rows = rnd.nextInt(10) == 0 ? 25 : rnd.nextInt(4);
        Instant now = Instant.now();
        List<OutboxRow> staged = Reliability.batchRows(w, first, rows, now);
        return store.appendWithOutbox(w, Reliability.batchEvents(w, first, events, rows, now), first - 1, staged)
                .doOnSuccess(v -> {
                    heads[index] = first + events - 1;
                    print("APPEND " + w + " " + heads[index]);
                })
                // a step moved the head: go on from where it is
                .onErrorResume(SequenceConflictException.class, e -> {
                    heads[index] = e.found();
                    return Mono.empty();
                });
    }

    /** A workflow started and completed in 2000, with one settled row: due for retention at once. */
    private static Mono<Void> appendClosed(SqliteReactiveStore store, long n) {
        WorkflowId w = Reliability.closedWorkflow(n);
        Instant closedAt = Instant.parse("2000-01-01T00:00:00Z");
        RunId run = RunId.random();
        List<Event> events = List.of(
                new WorkflowStarted(
                        new EventEnvelope(1, closedAt, w),
                        "closed",
                        Payload.json("{}"),
                        run,
                        null,
                        new PackageVersion("v1")),
                new WorkflowCompleted(new EventEnvelope(2, closedAt, w), Payload.json("{}")));
        OutboxRow settled =
                OutboxRow.pending(w, 0, "closed", Payload.json("{}"), closedAt).withStatus(OutboxStatus.DONE, null);
        return store.appendWithOutbox(w, events, 0, List.of(settled)).doOnSuccess(v -> print("CLOSED " + w));
    }

    /** W1, W12: the row's outcome as one step of its workflow, at the head read just before. */
    private static Mono<Void> step(SqliteReactiveStore store, OutboxRow row) {
        WorkflowId w = row.workflowId();
        return store.readHead(w)
                .flatMap(head -> {
                    ThreadLocalRandom rnd = ThreadLocalRandom.current();
                    long first = head + 1;
                    int events = 1 + rnd.nextInt(2);
                    int rows = rnd.nextInt(3);
                    Instant now = Instant.now();
                    WorkflowStep step = WorkflowStep.builder(w, head)
                            .append(Reliability.batchEvents(
                                    w, first, events, rows, now, Reliability.stepSignal(row.dispatchKey())))
                            .stage(Reliability.batchRows(w, first, rows, now))
                            .complete(row)
                            .scheduleTimer(TimerId.named(Reliability.stepTimer(first)), now.plusSeconds(3600))
                            .build();
                    return store.commitStep(step)
                            .doOnSuccess(v -> print("STEP " + w + " " + (head + events) + " " + row.dispatchKey()));
                })
                .onErrorResume(SequenceConflictException.class, e -> Mono.empty()); // an append won: try no more
    }

    private static Mono<Void> completeSometimes(SqliteReactiveStore store, OutboxRow row) {
        int dice = ThreadLocalRandom.current().nextInt(10);
        if (dice >= 7) {
            return Mono.empty();
        }
        if (dice >= 3) {
            return step(store, row);
        }
        return store.settleKeys(List.of(row.dispatchKey()), Settlement.complete())
                .doOnSuccess(v -> print("DONE " + row.dispatchKey()));
    }

    /** One whole line per call; the trailing marker lets the parent drop a line cut by the kill. */
    private static void print(String line) {
        OUT.println(line + " #");
    }
}
