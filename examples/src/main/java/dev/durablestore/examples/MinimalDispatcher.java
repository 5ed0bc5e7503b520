package dev.durablestore.examples;

import dev.durablestore.api.*;
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

/**
 * The smallest complete outbox dispatcher, meant to be copied: open a store, start a workflow
 * whose activities are staged as outbox rows, claim them with backpressure, run each, settle it
 * ({@code complete}, or {@code retry} with exponential backoff), keep a lease reaper beside it,
 * and stop cleanly. Run it with {@code ./examples/run.sh MinimalDispatcher [database-file]}.
 *
 * <p>The settles are fenced: {@code complete(row)} and {@code retry(row, …)} take the row as its
 * claim returned it and change it only while that claim is current. If the lease reaper re-armed
 * the row meanwhile (this dispatcher looked dead) and another claim took it, they fail with
 * {@link StaleClaimException} and change nothing: the row is its new owner's, so it is dropped
 * here. To record an activity's outcome in the history and settle its row in one transaction, use
 * {@link ReactiveStore#commitStep} (the demo's {@code Dispatcher} does, one step per claimed row).
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
            List<Event> events = new ArrayList<>(List.of(new WorkflowStarted(new EventEnvelope(1, now, w),
                    "greeting", Payload.json("{}"), RunId.random(), null, new PackageVersion("v1"))));
            List<OutboxRow> rows = new ArrayList<>();
            for (int seq = 2; seq <= activities + 1; seq++) { // activity id = the seq that scheduled it
                Payload input = Payload.json("{\"n\":" + seq + "}");
                events.add(new ActivityScheduled(new EventEnvelope(seq, now, w), new ActivityId(seq), "greet",
                        input, OutboxRow.DEFAULT_ROUTE, null));
                rows.add(OutboxRow.pending(w, seq, "greet", input, now));
            }
            store.appendWithOutbox(w, events, 0, rows).block();

            // 2. The lease reaper re-arms rows whose dispatcher died holding them.
            Disposable reaper = OutboxLeaseReaper.of(store).lease(Duration.ofMinutes(1)).start();

            // 3. Dispatch: at most 4 rows in flight (the stream claims only what flatMap requests).
            //    take(n) cancels the stream once n rows completed: claiming stops at once.
            try {
                store.claimStream(ClaimStreamOptions.defaults().maxBatch(4))
                        .flatMap(row -> greet(row)
                                .then(store.complete(row)).thenReturn(true) // fenced by the row's claim
                                .onErrorResume(StaleClaimException.class, e -> Mono.just(false)) // not ours now
                                .onErrorResume(e -> store.retry(row, row.attempt() + 1, // backoff
                                        Instant.now().plusMillis(100L << Math.min(row.attempt(), 10)))
                                        .onErrorResume(StaleClaimException.class, stale -> Mono.empty())
                                        .thenReturn(false)), 4)
                        .filter(completed -> completed)
                        .take(activities)
                        .blockLast(Duration.ofSeconds(30));
            } finally {
                reaper.dispose();
            }
            System.out.println("workflow " + w + ": all " + activities + " activities completed");
        } // 4. close() lets queued writes finish, then releases the file and the store's threads.
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
