package dev.durablestore.sqlite.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.Payload;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The shape of the cross-process tests: rows staged in one file, then two worker JVMs started on
 * it, released together once both opened the store, and awaited; their output lines are read
 * afterwards ({@code DONE <key>} for each row a worker completed).
 */
final class TwoWorkers {

    private TwoWorkers() {}

    /**
     * Stages {@code workflows × rowsPerWorkflow} pending rows (ordinals 1 and up, due now).
     *
     * @param db the database file
     * @param workflows how many workflows
     * @param rowsPerWorkflow rows of each
     * @param shape applied to each row before it is staged (e.g. a route)
     * @return the rows' dispatch keys
     */
    static List<String> stage(Path db, int workflows, int rowsPerWorkflow, UnaryOperator<OutboxRow> shape) {
        List<String> keys = new ArrayList<>();
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(db))) {
            Instant now = Instant.now();
            List<OutboxRow> rows = new ArrayList<>();
            for (int w = 0; w < workflows; w++) {
                WorkflowId id = WorkflowId.random();
                for (int i = 1; i <= rowsPerWorkflow; i++) {
                    OutboxRow row =
                            shape.apply(OutboxRow.pending(id, i, "work", Payload.json("{\"n\":" + i + "}"), now));
                    rows.add(row);
                    keys.add(row.dispatchKey());
                }
            }
            store.appendOutboxBatch(rows).block(Duration.ofMinutes(1));
        }
        return keys;
    }

    /**
     * Runs two workers to their end: both start, and once both printed {@code READY} both get
     * {@code GO}; each must exit with 0, and the one that ends first is checked first.
     *
     * @param worker the worker's main class
     * @param dir where their logs go
     * @param args the workers' arguments
     * @return each worker's output lines, in start order
     * @throws Exception when a worker cannot start, or the wait is interrupted
     */
    static List<List<String>> run(Class<?> worker, Path dir, String... args) throws Exception {
        CountDownLatch ready = new CountDownLatch(2);
        Consumer<String> onLine = line -> {
            if (line.equals("READY")) {
                ready.countDown();
            }
        };
        try (ChildJvm a = ChildJvm.start(worker, dir.resolve("a.log"), onLine, args);
                ChildJvm b = ChildJvm.start(worker, dir.resolve("b.log"), onLine, args)) {
            assertThat(ready.await(60, TimeUnit.SECONDS))
                    .as("both workers opened the store")
                    .isTrue();
            a.send("GO");
            b.send("GO");
            // the worker that ends first is checked first: when it failed holding claimed rows,
            // the other waits for those rows until its own bound, and would hide the cause
            CompletableFuture.anyOf(a.exit(), b.exit()).get(300, TimeUnit.SECONDS);
            boolean aFirst = a.exit().isDone();
            ChildJvm first = aFirst ? a : b;
            ChildJvm second = aFirst ? b : a;
            assertThat(first.await(10))
                    .as(() -> exitReport(aFirst ? "a" : "b", dir))
                    .isZero();
            assertThat(second.await(300))
                    .as(() -> exitReport(aFirst ? "b" : "a", dir))
                    .isZero();
            return List.of(a.lines(), b.lines());
        }
    }

    private static String exitReport(String worker, Path dir) {
        try {
            return "worker " + worker + " exit code; its standard error:\n"
                    + Files.readString(dir.resolve(worker + ".log"));
        } catch (IOException e) {
            return "worker " + worker + " exit code (its standard error is unreadable: " + e + ")";
        }
    }

    /**
     * Signals once the namespace has no pending or claimed row (O44), polled every 20 ms: nothing is
     * left for a worker to claim, and any row it still holds is completed. A worker stops its claim
     * stream on this signal and exits once its own completions are acknowledged; it does not cancel
     * them, so each committed completion is printed.
     *
     * @param store the worker's store
     * @param namespace the namespace its rows are in
     * @return a signal when the namespace is drained
     */
    static Mono<Long> drained(SqliteReactiveStore store, String namespace) {
        return Flux.interval(Duration.ofMillis(20))
                .onBackpressureDrop() // a tick while a count is running is skipped
                .concatMap(tick -> store.countInflight(namespace))
                .filter(n -> n == 0)
                .next();
    }

    /**
     * @param outputs the workers' lines
     * @return how often each key was completed ({@code DONE <key>} lines)
     */
    static Map<String, Integer> completions(List<List<String>> outputs) {
        Map<String, Integer> completions = new HashMap<>();
        for (List<String> lines : outputs) {
            for (String line : lines) {
                if (line.startsWith("DONE ")) {
                    completions.merge(line.substring(5), 1, Integer::sum);
                }
            }
        }
        return completions;
    }
}
