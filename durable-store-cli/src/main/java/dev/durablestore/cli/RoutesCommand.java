package dev.durablestore.cli;

import dev.durablestore.api.OutboxCounts;
import dev.durablestore.api.OutboxQuery;
import dev.durablestore.api.OutboxRouteCounts;
import dev.durablestore.api.ReactiveStore;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code routes}: the outbox rows of each route by status. */
@Command(
        name = "routes",
        mixinStandardHelpOptions = true,
        description = "Counts the outbox rows of each route (namespace, task queue, node) by status: pending and"
                + " due, claimed and stale (claimed longer ago than --stale-after), done, failed, cancelled. Reads"
                + " only.")
final class RoutesCommand implements Callable<Integer> {

    private static final Duration LIMIT = Duration.ofHours(1);

    @Mixin
    StoreOptions store;

    @Option(
            names = "--stale-after",
            paramLabel = "DURATION",
            defaultValue = "PT5M",
            description = "a claim older than this counts as stale, ISO-8601 (default ${DEFAULT-VALUE})")
    Duration staleAfter;

    @Option(
            names = "--cap",
            paramLabel = "N",
            defaultValue = "1000000",
            description = "the most rows read per status, 1.." + OutboxQuery.MAX_COUNT_CAP
                    + " (default ${DEFAULT-VALUE}); a status that reaches it is marked as a lower bound")
    int cap;

    @Override
    public Integer call() {
        PrintStream out = System.out;
        try (ReactiveStore s = store.open()) {
            Instant now = Instant.now();
            OutboxCounts counts =
                    s.countByRoute(now, now.minus(staleAfter), cap).block(LIMIT);
            String format = "%-20s %-20s %-12s %10s %10s %10s %10s %10s %10s %10s%n";
            out.printf(
                    Locale.ROOT,
                    format,
                    "NAMESPACE",
                    "TASK QUEUE",
                    "NODE",
                    "PENDING",
                    "DUE",
                    "CLAIMED",
                    "STALE",
                    "DONE",
                    "FAILED",
                    "CANCELLED");
            for (OutboxRouteCounts r : counts.routes()) {
                out.printf(
                        Locale.ROOT,
                        format,
                        r.route().namespace(),
                        r.route().taskQueue(),
                        r.route().node() == null ? "-" : r.route().node(),
                        r.pending(),
                        r.due(),
                        r.claimed(),
                        r.staleClaimed(),
                        r.done(),
                        r.failed(),
                        r.cancelled());
            }
            if (!counts.capped().isEmpty()) {
                out.println("capped at " + counts.cap() + " rows (counts are lower bounds): " + counts.capped());
            }
            return ExitCode.OK;
        }
    }
}
