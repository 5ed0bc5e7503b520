package dev.durablestore.sqlite.process;

import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.DispatchPolicy;
import dev.durablestore.api.OutboxQuery;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import dev.durablestore.sqlite.SqliteSynchronous;
import java.nio.file.Path;
import java.time.Duration;
import reactor.core.publisher.Mono;

/**
 * A dispatcher process claiming under a dispatch policy (O63, O64, O65) on route {@code ns/q}: for each
 * row it holds, it reads from the database what the policy promises and prints it, then completes
 * the row and prints {@code DONE <key>}; exits once no row of the namespace is pending or claimed and
 * its own completions are acknowledged.
 *
 * <p>Printed per row: {@code WORKFLOW <claimed rows of the row's workflow> <rows of lower ordinal not
 * done>} and {@code ROUTE <claimed rows of the namespace>}.
 *
 * <p>Arguments: database path, then any of {@code serial}, {@code cap=N}, {@code nodecap=N} and
 * {@code node=NAME} (the scope's node; none without it).
 */
public final class PolicyClaimWorker {

    private PolicyClaimWorker() {}

    public static void main(String[] args) throws java.io.IOException {
        Path db = Path.of(args[0]);
        DispatchPolicy policy = DispatchPolicy.none();
        String node = null;
        for (int i = 1; i < args.length; i++) {
            if (args[i].equals("serial")) {
                policy = policy.withSerialPerWorkflow(true);
            } else if (args[i].startsWith("cap=")) {
                policy = policy.withConcurrencyCap(Integer.parseInt(args[i].substring(4)));
            } else if (args[i].startsWith("nodecap=")) {
                policy = policy.withNodeConcurrencyCap(Integer.parseInt(args[i].substring(8)));
            } else if (args[i].startsWith("node=")) {
                node = args[i].substring(5);
            }
        }
        try (SqliteReactiveStore store =
                SqliteReactiveStore.open(SqliteStoreConfig.of(db).withSynchronous(SqliteSynchronous.NORMAL))) {
            System.out.println("READY");
            System.out.flush();
            new java.io.BufferedReader(new java.io.InputStreamReader(System.in)).readLine(); // wait for GO
            store.claimStream(ClaimStreamOptions.defaults()
                            .withScope(new ClaimScope("ns", "q", node))
                            .withPolicy(policy)
                            .withMaxBatch(8)
                            .withPollInterval(Duration.ofMillis(10)))
                    .takeUntilOther(TwoWorkers.drained(store, "ns"))
                    .flatMap(
                            row -> observe(store, row)
                                    .delayElement(Duration.ofMillis(1)) // the work: other claims overlap it
                                    .then(store.complete(row))
                                    .thenReturn(row.dispatchKey()),
                            16)
                    .doOnNext(key -> System.out.println("DONE " + key))
                    .blockLast(Duration.ofMinutes(5));
        }
        System.out.flush();
    }

    private static Mono<String> observe(SqliteReactiveStore store, OutboxRow row) {
        Mono<String> workflow = store.listOutbox(OutboxQuery.all(1_000).withWorkflowId(row.workflowId()))
                .collectList()
                .map(rows -> {
                    long claimed = rows.stream()
                            .filter(r -> r.status() == OutboxStatus.CLAIMED)
                            .count();
                    long earlierOpen = rows.stream()
                            .filter(r -> r.ordinal() < row.ordinal() && r.status() != OutboxStatus.DONE)
                            .count();
                    return "WORKFLOW " + claimed + " " + earlierOpen;
                });
        Mono<String> route = store.countClaimed("ns").map(n -> "ROUTE " + n);
        return Mono.zip(workflow, route).map(t -> {
            System.out.println(t.getT1());
            System.out.println(t.getT2());
            return t.getT1();
        });
    }
}
