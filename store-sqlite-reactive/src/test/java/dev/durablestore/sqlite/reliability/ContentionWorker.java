package dev.durablestore.sqlite.reliability;

import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.Payload;
import dev.durablestore.api.SequenceConflictException;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.event.EventEnvelope;
import dev.durablestore.api.event.SignalReceived;
import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import dev.durablestore.sqlite.SqliteSynchronous;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * One of the two processes of the contention test. Both get the same workflows (derived from a
 * seed) and race on them: for each workflow, read the head, append one event on it with
 * {@code rows} outbox rows, repeat until the head reaches the target. At the same time a claim
 * stream claims and completes every row it gets. Lines printed (each after the acknowledgement):
 *
 * <ul>
 *   <li>{@code READY #} — the store is open; the process waits for {@code GO} on stdin;
 *   <li>{@code WIN <workflow> <seq> #} — this process's append of {@code seq} committed;
 *   <li>{@code LOSE <workflow> <expected> <found> #} — it got {@code SequenceConflictException};
 *   <li>{@code CLAIM <key> #} and {@code DONE <key> #} — claimed, then completed;
 *   <li>{@code APPENDED #} — every workflow reached the target; it then waits for {@code FINISH},
 *       claims until no live row is left in the file, prints {@code EXIT #} and exits;
 *   <li>{@code ERROR <message> #} — any other failure (the test fails).
 * </ul>
 *
 * <p>Each event and row names the process that wrote it ({@code "by"}), so the parent can check
 * that only the winner's batch was stored. Arguments: database path, process name, seed,
 * workflows, target head, rows per append.
 */
public final class ContentionWorker {

    private static final PrintStream OUT =
            new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);

    private ContentionWorker() {}

    /** The workflows both processes share. */
    static List<WorkflowId> workflows(long seed, int count) {
        List<WorkflowId> ids = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            ids.add(new WorkflowId(new UUID(seed, i)));
        }
        return ids;
    }

    /** Ordinal of row {@code j} staged by the append of {@code seq}. */
    static long ordinal(long seq, int j) {
        return seq * 1000 + j;
    }

    public static void main(String[] args) throws Exception {
        Path db = Path.of(args[0]);
        String name = args[1];
        List<WorkflowId> workflows = workflows(Long.parseLong(args[2]), Integer.parseInt(args[3]));
        long target = Long.parseLong(args[4]);
        int rows = Integer.parseInt(args[5]);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (SqliteReactiveStore store =
                SqliteReactiveStore.open(SqliteStoreConfig.of(db).withSynchronous(SqliteSynchronous.NORMAL))) {
            print("READY");
            if (!"GO".equals(in.readLine())) {
                return;
            }
            AtomicInteger unreported = new AtomicInteger(); // claimed here, DONE line not printed yet
            // large claim batches and many completions in flight: fewer, bigger transactions, so
            // fewer hand-overs of the file's write lock between the two processes
            Disposable claims = store.claimStream(
                            ClaimStreamOptions.defaults().withMaxBatch(512).withPollInterval(Duration.ofMillis(10)))
                    .doOnNext(row -> {
                        unreported.incrementAndGet();
                        print("CLAIM " + row.dispatchKey());
                    })
                    .flatMap(
                            row -> store.settleKeys(List.of(row.dispatchKey()), Settlement.complete())
                                    .thenReturn(row.dispatchKey()),
                            1024)
                    .subscribe(
                            key -> {
                                print("DONE " + key);
                                unreported.decrementAndGet();
                            },
                            e -> print("ERROR claimStream " + oneLine(e)));

            Flux.fromIterable(workflows)
                    .flatMap(w -> race(store, name, w, target, rows), workflows.size())
                    .then()
                    .doOnSuccess(v -> print("APPENDED"))
                    .onErrorResume(e -> {
                        print("ERROR append " + oneLine(e));
                        return Mono.empty();
                    })
                    .block(Duration.ofMinutes(10));

            if (!"FINISH".equals(in.readLine())) {
                return;
            }
            // drain: both processes keep claiming until no row of the file is live any more, and every
            // completion acknowledged here has been reported (a completion can commit before its
            // subscriber is signalled, so the count alone could cut the last DONE lines)
            Mono.defer(() -> store.countInflight(OutboxRow.DEFAULT_ROUTE))
                    .flatMap(n -> n == 0 && unreported.get() == 0
                            ? Mono.just(n)
                            : Mono.delay(Duration.ofMillis(20)).then(Mono.empty()))
                    .repeatWhenEmpty(Integer.MAX_VALUE, f -> f)
                    .block(Duration.ofMinutes(10));
            claims.dispose();
            print("EXIT");
        }
    }

    /** Appends on {@code w} until its head reaches {@code target}, racing the other process. */
    private static Mono<Void> race(SqliteReactiveStore store, String name, WorkflowId w, long target, int rows) {
        return Mono.defer(() -> store.readHead(w))
                .flatMap(head -> head >= target ? Mono.just(true) : attempt(store, name, w, head, rows))
                .repeat()
                .takeUntil(finished -> finished)
                .then();
    }

    private static Mono<Boolean> attempt(SqliteReactiveStore store, String name, WorkflowId w, long head, int rows) {
        long seq = head + 1;
        String by = "{\"by\":\"" + name + "\",\"seq\":" + seq + "}";
        Instant now = Instant.now();
        List<Event> events = List.of(new SignalReceived(new EventEnvelope(seq, now, w), name, Payload.json(by)));
        List<OutboxRow> staged = new ArrayList<>(rows);
        for (int j = 0; j < rows; j++) {
            staged.add(OutboxRow.pending(w, ordinal(seq, j), "race", Payload.json(by), now));
        }
        return store.appendWithOutbox(w, events, head, staged)
                .doOnSuccess(v -> print("WIN " + w + " " + seq))
                .thenReturn(false)
                .onErrorResume(SequenceConflictException.class, e -> {
                    print("LOSE " + w + " " + e.expected() + " " + e.found());
                    return Mono.just(false);
                });
    }

    private static String oneLine(Throwable e) {
        return String.valueOf(e).replace('\n', ' ');
    }

    private static void print(String line) {
        OUT.println(line + " #");
    }
}
