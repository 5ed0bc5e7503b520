package dev.durablestore.cli;

import dev.durablestore.api.OutboxCounts;
import dev.durablestore.api.OutboxQuery;
import dev.durablestore.api.OutboxRouteCounts;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.UndecodableEvent;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code verify}: every stored event decodes; the workflows and outbox rows counted. */
@Command(
        name = "verify",
        mixinStandardHelpOptions = true,
        description = "Decodes every stored event and lists those that do not decode; counts the workflows and the"
                + " outbox rows by status. Reads only. Exit status 1 when an event does not decode.")
final class VerifyCommand implements Callable<Integer> {

    private static final Duration LIMIT = Duration.ofDays(1);

    @Mixin
    StoreOptions store;

    @Option(
            names = "--limit",
            paramLabel = "N",
            defaultValue = "100",
            description = "the most undecodable events listed (default ${DEFAULT-VALUE}); all are counted")
    int limit;

    @Override
    public Integer call() {
        PrintStream out = System.out;
        try (ReactiveStore s = store.open()) {
            System.err.println("verify: decoding every event of " + store.describe() + " …");
            List<UndecodableEvent> undecodable =
                    s.findUndecodableEvents().collectList().block(LIMIT);
            long workflows = s.listWorkflowIds().count().block(LIMIT);
            Instant now = Instant.now();
            OutboxCounts counts =
                    s.countByRoute(now, now, OutboxQuery.MAX_COUNT_CAP).block(LIMIT);
            long pending = 0, claimed = 0, done = 0, failed = 0, cancelled = 0;
            for (OutboxRouteCounts r : counts.routes()) {
                pending += r.pending();
                claimed += r.claimed();
                done += r.done();
                failed += r.failed();
                cancelled += r.cancelled();
            }
            out.printf(Locale.ROOT, "workflows: %,d%n", workflows);
            out.printf(
                    Locale.ROOT,
                    "outbox rows: %,d pending, %,d claimed, %,d done, %,d failed, %,d cancelled%s%n",
                    pending,
                    claimed,
                    done,
                    failed,
                    cancelled,
                    counts.capped().isEmpty() ? "" : " (at least: capped " + counts.capped() + ")");
            out.printf(Locale.ROOT, "undecodable events: %,d%n", undecodable.size());
            undecodable.stream()
                    .limit(limit)
                    .forEach(e -> out.println("  workflow " + e.workflowId() + " seq " + e.seq() + ": " + e.message()));
            out.println(undecodable.isEmpty() ? "VERIFIED" : "PROBLEMS FOUND");
            return undecodable.isEmpty() ? ExitCode.OK : ExitCode.PROBLEM;
        }
    }
}
