package dev.durablestore.core.storage;

import dev.durablestore.api.WorkflowId;
import java.util.List;
import java.util.Set;
import reactor.core.publisher.Mono;

/**
 * The storage side of retention and purge (D1–D11): a walk of the closed workflows and the guarded
 * deletes. Holds no policy: {@link dev.durablestore.core.AbstractReactiveStore} decides which
 * closed workflows are due and hands them back to {@link #deleteClosed}.
 */
public interface RetentionStorage {

    /**
     * D1, D2, D7: the closed workflows (last lifecycle event of a terminal kind) closed before
     * {@code closedBeforeNanos}, with an id after {@code afterWorkflowId}, in id order, read in one
     * snapshot on a reader. Workflows closed later cannot be due, so the walk skips them in SQL and
     * costs nothing for the (usually many) closed workflows still within their retention.
     *
     * @param afterWorkflowId the canonical id text to start after; {@code ""} for the first
     * @param closedBeforeNanos only workflows whose close time is strictly before this, epoch nanoseconds
     * @param limit the most workflows returned, at least one
     * @return at most {@code limit} closed workflows; fewer only when the walk reached the last one
     */
    Mono<List<ClosedWorkflow>> scanClosed(String afterWorkflowId, long closedBeforeNanos, int limit);

    /**
     * D5, D6, D11: deletes each workflow's events, timers and outbox rows in one transaction (on
     * SQLite one writer command), each only when the transaction still finds its head, its row
     * count and no live row as given; a workflow that changed is left alone.
     *
     * @param due closed workflows the walk returned and the policy found due, without live rows,
     *     at least one, about {@value dev.durablestore.core.internal.Retention#ROWS_PER_DELETE} rows
     * @return what was deleted
     */
    Mono<Deleted> deleteClosed(List<ClosedWorkflow> due);

    /**
     * D8: deletes every event, timer and outbox row of the workflow in one transaction.
     *
     * @param workflowId the workflow
     * @return what was deleted
     */
    Mono<Deleted> purge(WorkflowId workflowId);

    /**
     * A closed workflow as the walk found it.
     *
     * @param workflowId its canonical id text
     * @param head its head (E2)
     * @param closedAtNanos the recorded instant of its last lifecycle event, epoch nanoseconds
     * @param namespaces the namespaces of its stored outbox rows
     * @param outboxRows how many outbox rows it has
     * @param liveRows how many of them are pending or claimed
     */
    record ClosedWorkflow(
            String workflowId, long head, long closedAtNanos, Set<String> namespaces, long outboxRows, long liveRows) {

        /** Copies the namespaces. */
        public ClosedWorkflow {
            namespaces = Set.copyOf(namespaces);
        }

        /** @return how many rows deleting it costs, about: its events and outbox rows */
        public long rowEstimate() {
            return head + outboxRows;
        }
    }

    /**
     * What a delete removed.
     *
     * @param workflows workflows deleted
     * @param events events deleted
     * @param timers timers deleted
     * @param outboxRows outbox rows deleted
     * @param lateAppends workflows an append racing with the delete gave new events (D11)
     */
    record Deleted(long workflows, long events, long timers, long outboxRows, long lateAppends) {

        /** Nothing deleted. */
        public static final Deleted NONE = new Deleted(0, 0, 0, 0, 0);

        /**
         * @param other another delete
         * @return the sum of both
         */
        public Deleted plus(Deleted other) {
            return new Deleted(
                    workflows + other.workflows,
                    events + other.events,
                    timers + other.timers,
                    outboxRows + other.outboxRows,
                    lateAppends + other.lateAppends);
        }
    }
}
