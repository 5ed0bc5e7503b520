package dev.durablestore.core.internal;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.PurgeResult;
import dev.durablestore.api.RetentionBacklog;
import dev.durablestore.api.RetentionPolicy;
import dev.durablestore.api.RetentionSweep;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.core.storage.OutboxWriteStorage;
import dev.durablestore.core.storage.RetentionStorage;
import dev.durablestore.core.storage.RetentionStorage.ClosedWorkflow;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The behaviour of retention and purge (D1–D11), written once over a backend's
 * {@link RetentionStorage}: the argument checks, which closed workflows are due under a policy, the
 * walk in bounded steps, the backlog. The backend only walks and deletes.
 */
public final class Retention {

    /**
     * The rows (events and outbox rows) one call of {@link RetentionStorage#deleteClosed} covers,
     * about: a call takes workflows until the next would pass it, and at least one. On SQLite a call
     * is one writer command, so this bounds how long appends and claims wait behind it.
     */
    public static final int ROWS_PER_DELETE = 2_000;

    /** Closed workflows read per walk page of {@link #backlog}. */
    private static final int BACKLOG_PAGE = 1_000;

    private final RetentionStorage storage;
    private final OutboxWriteStorage writes;

    /**
     * @param storage the backend's walk and deletes
     * @param writes the backend's outbox writes, for the pruning of settled rows
     */
    public Retention(RetentionStorage storage, OutboxWriteStorage writes) {
        this.storage = storage;
        this.writes = writes;
    }

    /**
     * D5–D7, D10: one step, checked at subscription.
     *
     * @param policy the policy
     * @param now the instant retentions are measured back from
     * @param batchSize the most closed workflows read
     * @param after where the previous step ended, or {@code null}
     * @return the step's result
     */
    public Mono<RetentionSweep> sweep(RetentionPolicy policy, Instant now, int batchSize, WorkflowId after) {
        return Mono.defer(() -> {
            InvalidArgumentException.requireNonNull(policy, "policy");
            long nowNanos = EpochNanos.of(now, "now");
            InvalidArgumentException.requirePositive(batchSize, "batchSize");
            Mono<Long> pruned = after == null && policy.settledRows() != null
                    ? prune(nowNanos, policy.settledRows(), batchSize)
                    : Mono.just(0L);
            String start = after == null ? "" : after.toString();
            long closedBefore = before(nowNanos, shortest(policy));
            Mono<RetentionSweep> step = storage.scanClosed(start, closedBefore, batchSize)
                    .flatMap(closed -> {
                        List<ClosedWorkflow> due = new ArrayList<>();
                        for (ClosedWorkflow w : closed) {
                            if (w.liveRows() == 0 && due(w, policy, nowNanos)) {
                                due.add(w);
                            }
                        }
                        WorkflowId resumeAfter = closed.size() < batchSize
                                ? null
                                : StoredRows.workflowId(
                                        closed.get(closed.size() - 1).workflowId());
                        Mono<RetentionStorage.Deleted> deleted = Flux.fromIterable(byRows(due))
                                .concatMap(storage::deleteClosed)
                                .reduce(RetentionStorage.Deleted.NONE, RetentionStorage.Deleted::plus);
                        return deleted.map(d -> new RetentionSweep(
                                d.workflows(),
                                d.events(),
                                d.timers(),
                                d.outboxRows(),
                                0,
                                d.lateAppends(),
                                resumeAfter));
                    });
            return pruned.flatMap(rows -> step.map(s -> rows == 0
                    ? s
                    : new RetentionSweep(
                            s.workflowsDeleted(),
                            s.eventsDeleted(),
                            s.timersDeleted(),
                            s.outboxRowsDeleted(),
                            rows,
                            s.lateAppends(),
                            s.resumeAfter())));
        });
    }

    /** @return {@code due} cut into parts of about {@value #ROWS_PER_DELETE} rows, each at least one workflow */
    private static List<List<ClosedWorkflow>> byRows(List<ClosedWorkflow> due) {
        List<List<ClosedWorkflow>> parts = new ArrayList<>();
        List<ClosedWorkflow> part = new ArrayList<>();
        long rows = 0;
        for (ClosedWorkflow w : due) {
            if (!part.isEmpty() && rows + w.rowEstimate() > ROWS_PER_DELETE) {
                parts.add(part);
                part = new ArrayList<>();
                rows = 0;
            }
            part.add(w);
            rows += w.rowEstimate();
        }
        if (!part.isEmpty()) {
            parts.add(part);
        }
        return parts;
    }

    private Mono<Long> prune(long nowNanos, Duration settledRows, int batchSize) {
        long cutoff = before(nowNanos, settledRows);
        return cutoff == Long.MIN_VALUE ? Mono.just(0L) : writes.pruneSettled(cutoff, batchSize);
    }

    /**
     * D8, checked at subscription.
     *
     * @param workflowId the workflow
     * @return what was deleted
     */
    public Mono<PurgeResult> purge(WorkflowId workflowId) {
        return Mono.defer(() -> {
            InvalidArgumentException.requireNonNull(workflowId, "workflowId");
            return storage.purge(workflowId)
                    .map(d -> new PurgeResult(workflowId, d.events(), d.timers(), d.outboxRows()));
        });
    }

    /**
     * D9, checked at subscription: the whole walk, page by page.
     *
     * @param policy the policy
     * @param now the instant retentions are measured back from
     * @return the backlog
     */
    public Mono<RetentionBacklog> backlog(RetentionPolicy policy, Instant now) {
        return Mono.defer(() -> {
            InvalidArgumentException.requireNonNull(policy, "policy");
            long nowNanos = EpochNanos.of(now, "now");
            long[] totals = {0, 0, Long.MAX_VALUE}; // overdue, held by live rows, oldest close
            long closedBefore = before(nowNanos, shortest(policy));
            return storage.scanClosed("", closedBefore, BACKLOG_PAGE)
                    .expand(page -> page.size() < BACKLOG_PAGE
                            ? Mono.empty()
                            : storage.scanClosed(page.get(page.size() - 1).workflowId(), closedBefore, BACKLOG_PAGE))
                    .doOnNext(page -> {
                        for (ClosedWorkflow w : page) {
                            if (due(w, policy, nowNanos)) {
                                totals[0]++;
                                totals[1] += w.liveRows() > 0 ? 1 : 0;
                                totals[2] = Math.min(totals[2], w.closedAtNanos());
                            }
                        }
                    })
                    .then(Mono.fromSupplier(() -> new RetentionBacklog(
                            now, totals[0], totals[1], totals[0] == 0 ? null : EpochNanos.toInstant(totals[2]))));
        });
    }

    /** @return the shortest retention the policy gives any workflow (D3): none closed later can be due */
    private static Duration shortest(RetentionPolicy policy) {
        Duration shortest = policy.closedFor();
        for (Duration d : policy.namespaces().values()) {
            if (d.compareTo(shortest) < 0) {
                shortest = d;
            }
        }
        return shortest;
    }

    /** D3, D5: closed strictly before {@code now} minus the workflow's retention. */
    private static boolean due(ClosedWorkflow w, RetentionPolicy policy, long nowNanos) {
        return w.closedAtNanos() < before(nowNanos, policy.retentionFor(w.namespaces()));
    }

    /** @return {@code nowNanos - retention}, or {@link Long#MIN_VALUE} when that is before every storable instant */
    private static long before(long nowNanos, Duration retention) {
        try {
            return Math.subtractExact(nowNanos, retention.toNanos());
        } catch (ArithmeticException e) {
            return Long.MIN_VALUE;
        }
    }
}
