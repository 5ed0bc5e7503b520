package dev.durablestore.cli;

import dev.durablestore.api.AttemptFailure;
import dev.durablestore.api.OutboxQuery;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.WorkflowId;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code dead-letters}: the failed rows with their failure reasons. */
@Command(
        name = "dead-letters",
        mixinStandardHelpOptions = true,
        description = "Lists the dead-lettered (failed) outbox rows in key order, each with its attempts' failure"
                + " reasons. Reads only; redrive them with the redrive command.")
final class DeadLettersCommand implements Callable<Integer> {

    private static final Duration LIMIT = Duration.ofMinutes(10);

    @Mixin
    StoreOptions store;

    @Option(names = "--workflow", paramLabel = "ID", description = "only this workflow's rows")
    String workflow;

    @Option(
            names = "--limit",
            paramLabel = "N",
            defaultValue = "100",
            description = "the most rows listed, 1.." + OutboxQuery.MAX_LIMIT + " (default ${DEFAULT-VALUE})")
    int limit;

    @Option(names = "--after", paramLabel = "KEY", description = "start after this dispatch key (the next page)")
    String after;

    @Override
    public Integer call() {
        PrintStream out = System.out;
        OutboxQuery query = OutboxQuery.all(limit).withStatus(OutboxStatus.FAILED);
        if (workflow != null) {
            query = query.withWorkflowId(WorkflowId.parse(workflow));
        }
        if (after != null) {
            query = query.withAfterKey(after);
        }
        try (ReactiveStore s = store.open()) {
            List<OutboxRow> rows = s.listOutbox(query).collectList().block(LIMIT);
            for (OutboxRow row : rows) {
                out.println(row.dispatchKey() + "  workflow " + row.workflowId() + "  " + row.activityType()
                        + "  route " + row.namespace() + "/" + row.taskQueue());
                if (row.failures().isEmpty()) {
                    out.println("    (no failure reason recorded)");
                }
                for (AttemptFailure f : row.failures()) {
                    out.println("    attempt " + f.attempt() + " at " + f.failedAt() + ": "
                            + (f.reason().type() == null ? "" : f.reason().type() + ": ")
                            + f.reason().message());
                }
            }
            out.println(rows.size() + " dead letter" + (rows.size() == 1 ? "" : "s")
                    + (rows.size() == limit
                            ? " (the limit: more may follow, --after "
                                    + rows.get(rows.size() - 1).dispatchKey() + ")"
                            : ""));
            return ExitCode.OK;
        }
    }
}
