package dev.durablestore.examples;

import dev.durablestore.api.*;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.event.*;
import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

/**
 * The smallest complete outbox dispatcher, meant to be copied: open a store, start a workflow
 * whose activities are staged as outbox rows, claim them with backpressure, run each, record its
 * outcome and settle its row in one step ({@code complete}, or {@code Settlement.retryAfter} with
 * exponential backoff), keep a lease reaper beside it, and stop cleanly. Run it with
 * {@code ./examples/run.sh MinimalDispatcher [database-file]}.
 *
 * <p>Each outcome is one {@link ReactiveStore#commitStep step}: the {@code ActivityCompleted} or
 * {@code ActivityFailed} event under the workflow's head and the settle of the claimed row, in one
 * transaction. The settle is fenced by the row's claim: if the lease reaper re-armed the row
 * meanwhile (this dispatcher looked dead) and another claim took it, the step fails with
 * {@link StaleClaimException} and writes nothing; the row is its new owner's, so it is dropped
 * here. Four activities of the one workflow run at once, so their steps race for the head: the
 * loser fails with {@link SequenceConflictException}, reads the head again and retries the step
 * (not the activity). That is enough for a few rows of a workflow at a time; the demo's
 * {@code WorkflowSteps} queues a workflow's outcomes and commits them together instead.
 */
public final class MinimalDispatcher {

    private MinimalDispatcher() {}

    /** @param args the database file, {@code minimal-dispatcher.db} when absent */
    public static void main(String[] args) {
        int activities = 5;
        try (SqliteReactiveStore store = SqliteReactiveStore.open(
                SqliteStoreConfig.of(Path.of(args.length > 0 ? args[0] : "minimal-dispatcher.db")))) {
            // 1. Start a workflow: its events and one outbox row per activity commit together.
            WorkflowId w = WorkflowId.random();
            Instant now = Instant.now();
            List<Event> events = new ArrayList<>(List.of(new WorkflowStarted(
                    new EventEnvelope(1, now, w),
                    "greeting",
                    Payload.json("{}"),
                    RunId.random(),
                    null,
                    new PackageVersion("v1"))));
            List<OutboxRow> rows = new ArrayList<>();
            for (int seq = 2; seq <= activities + 1; seq++) { // activity id = the seq that scheduled it
                Payload input = Payload.json("{\"n\":" + seq + "}");
                events.add(new ActivityScheduled(
                        new EventEnvelope(seq, now, w),
                        new ActivityId(seq),
                        "greet",
                        input,
                        OutboxRow.DEFAULT_ROUTE,
                        null));
                rows.add(OutboxRow.pending(w, seq, "greet", input, now));
            }
            store.appendWithOutbox(w, events, 0, rows).block();

            // 2. The lease reaper re-arms rows whose dispatcher died holding them.
            Disposable reaper =
                    OutboxLeaseReaper.of(store).withLease(Duration.ofMinutes(1)).start();

            // 3. Dispatch: at most 4 rows in flight (the stream claims only what flatMap requests).
            //    take(n) cancels the stream once n rows completed: claiming stops at once.
            try {
                store.claimStream(ClaimStreamOptions.defaults().withMaxBatch(4))
                        .flatMap(
                                row -> greet(row)
                                        .thenReturn(true)
                                        .onErrorReturn(false)
                                        .flatMap(ok ->
                                                recordOutcome(store, row, ok).thenReturn(ok)),
                                4)
                        .filter(completed -> completed)
                        .take(activities)
                        .blockLast(Duration.ofSeconds(30));
            } finally {
                reaper.dispose();
            }
            System.out.println("workflow " + w + ": all " + activities + " activities completed");
        } // 4. close() lets queued writes finish, then releases the file and the store's threads.
    }

    /** One step: the outcome event and the row's settle, fenced by its claim, in one transaction. */
    private static Mono<Void> recordOutcome(ReactiveStore store, OutboxRow row, boolean ok) {
        WorkflowId w = row.workflowId();
        ActivityId activity = new ActivityId(row.ordinal());
        int attempt = row.attempt() + 1; // row.attempt() counts earlier dispatches
        return store.readHead(w)
                .flatMap(head -> {
                    EventEnvelope env = new EventEnvelope(head + 1, Instant.now(), w);
                    WorkflowStep.Builder step = WorkflowStep.builder(w, head);
                    if (ok) {
                        step.append(new ActivityCompleted(env, activity, Payload.json("{}"), attempt))
                                .complete(row);
                    } else { // back to pending after an exponential backoff, on the store's clock
                        step.append(new ActivityFailed(
                                        env,
                                        activity,
                                        new ActivityError(ActivityError.Kind.RETRYABLE, "flaky", null),
                                        attempt))
                                .settle(
                                        row,
                                        Settlement.retryAfter(
                                                        attempt, Duration.ofMillis(100L << Math.min(row.attempt(), 10)))
                                                .withReason(FailureReason.of("flaky"))); // kept with the row
                    }
                    return store.commitStep(step.build());
                })
                .retryWhen(Retry.max(16).filter(SequenceConflictException.class::isInstance)) // head moved: re-read
                .onErrorResume(StaleClaimException.class, e -> Mono.empty()); // claimed again by another: not ours
    }

    /** The fake activity: 20 ms of non-blocking "work"; even rows fail their first attempt. */
    private static Mono<Void> greet(OutboxRow row) {
        boolean fails = row.ordinal() % 2 == 0 && row.attempt() == 0;
        return Mono.delay(Duration.ofMillis(20)).flatMap(tick -> {
            System.out.printf("%s attempt %d: %s%n", row.dispatchKey(), row.attempt() + 1, fails ? "failed" : "ok");
            return fails ? Mono.error(new IllegalStateException("flaky")) : Mono.empty();
        });
    }
}
