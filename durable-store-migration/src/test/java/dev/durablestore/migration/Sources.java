package dev.durablestore.migration;

import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.FailureReason;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.TimerId;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.examples.demo.Workload;
import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import reactor.core.publisher.Flux;

/** SQLite stores to migrate, written through the store's own API. */
final class Sources {

    static final Duration WAIT = Duration.ofSeconds(30);

    /** A W3C trace context, as a staged row carries it. */
    static final String TRACE = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    private Sources() {}

    /**
     * Workflows of the demo's shape (WorkflowStarted and ActivityScheduled events with one outbox
     * row each), with rows in every status: pending, pending again after a failed attempt (with its
     * failure), claimed (with claim token and time), done, failed (with its failure) and cancelled;
     * some rows with a priority, a trace context and their own route; and two timers.
     *
     * @param file the file to create
     * @param workflows how many workflows, at least 4
     * @param activities activities per workflow, at least 3
     */
    static void rich(Path file, int workflows, int activities) {
        Instant now = Instant.now().minusSeconds(60);
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(file))) {
            Flux.range(0, workflows)
                    .concatMap(i -> {
                        List<OutboxRow> rows = new ArrayList<>(Workload.rows(i, activities, now));
                        if (i % 2 == 1) {
                            rows.replaceAll(r ->
                                    r.withPriority(5).withTraceContext(TRACE).withRoute("billing", "invoices", null));
                        }
                        return store.appendWithOutbox(
                                Workload.workflowId(i), Workload.startEvents(i, activities, now), 0, rows);
                    })
                    .blockLast(WAIT);
            List<OutboxRow> claimed = store.claim(ClaimRequest.of(8)).block(WAIT);
            store.settle(claimed.get(0), Settlement.complete()).block(WAIT);
            store.settle(claimed.get(1), Settlement.fail().withReason(FailureReason.of("the card was declined")))
                    .block(WAIT);
            store.settle(
                            claimed.get(2),
                            Settlement.retryAfter(1, Duration.ofMinutes(5))
                                    .withReason(FailureReason.of(new IllegalStateException("the service is down"))))
                    .block(WAIT);
            store.settle(claimed.get(3), Settlement.cancel()).block(WAIT);
            // claimed.get(4 …) stay claimed, as a stopped application leaves them
            WorkflowId first = Workload.workflowId(0);
            store.scheduleTimer(first, TimerId.named("reminder"), now.plusSeconds(3600))
                    .block(WAIT);
            store.scheduleTimer(Workload.workflowId(2), TimerId.anonymous(7), now.plusSeconds(60))
                    .block(WAIT);
        }
    }
}
