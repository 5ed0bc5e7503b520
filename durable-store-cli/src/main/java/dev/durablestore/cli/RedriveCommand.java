package dev.durablestore.cli;

import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.WorkflowId;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code redrive}: returns dead-lettered rows to pending. */
@Command(
        name = "redrive",
        mixinStandardHelpOptions = true,
        description = "Returns a dead-lettered (failed) row, or every one of a workflow, to pending, visible now."
                + " Exit status 1 when no failed row was found to redrive.")
final class RedriveCommand implements Callable<Integer> {

    private static final Duration LIMIT = Duration.ofMinutes(10);

    @Mixin
    StoreOptions store;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Which which;

    /** One row or one workflow. */
    static final class Which {
        @Option(names = "--key", paramLabel = "DISPATCH_KEY", description = "the row's dispatch key")
        String key;

        @Option(names = "--workflow", paramLabel = "ID", description = "every failed row of this workflow")
        String workflow;
    }

    @Option(names = "--reset-attempt", description = "set the attempt back to 0")
    boolean resetAttempt;

    @Override
    public Integer call() {
        try (ReactiveStore s = store.open()) {
            List<String> redriven;
            if (which.key != null) {
                redriven =
                        Boolean.TRUE.equals(s.redrive(which.key, resetAttempt).block(LIMIT))
                                ? List.of(which.key)
                                : List.of();
            } else {
                redriven = s.redriveWorkflow(WorkflowId.parse(which.workflow), resetAttempt)
                        .block(LIMIT);
            }
            redriven.forEach(k -> System.out.println("redriven " + k));
            if (redriven.isEmpty()) {
                System.out.println("nothing redriven: no failed row "
                        + (which.key != null ? "with key " + which.key : "in workflow " + which.workflow));
                return ExitCode.PROBLEM;
            }
            return ExitCode.OK;
        }
    }
}
