package dev.durablestore.core.storage;

import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.OutboxCounts;
import dev.durablestore.api.OutboxQuery;
import dev.durablestore.api.OutboxRouteActivity;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxRowState;
import dev.durablestore.api.WorkflowId;
import java.util.Map;
import java.util.SortedSet;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The outbox reads of a backend: listings, counts and row states, none of which writes. Arguments
 * arrive checked, and texts storable: the store answers a text no row can hold without a read.
 */
public interface OutboxReadStorage {

    /**
     * @param olderThanNanos claimed before this instant, epoch nanoseconds
     * @param limit the most rows, at least 1
     * @return rows claimed longer than a lease (O39, O40)
     */
    Flux<OutboxRow> listStaleClaimed(long olderThanNanos, int limit);

    /** @return workflows with a pending or claimed row (O43) */
    Flux<WorkflowId> listUnsettledWorkflowIds();

    /**
     * @param operation the operation's name, for errors
     * @param namespace a storable namespace
     * @param claimedOnly count its claimed rows only (O45), not its pending and claimed rows (O44)
     * @return the count
     */
    Mono<Long> countInNamespace(String operation, String namespace, boolean claimedOnly);

    /**
     * @param namespaces storable namespaces, at least one
     * @return the claimed rows of those that have any (O47; the store adds the zeros)
     */
    Mono<Map<String, Long>> countClaimedByNamespace(SortedSet<String> namespaces);

    /** @return the routes with a due row (O48) */
    Flux<ClaimScope> pendingRoutes();

    /**
     * @param query the query, with a limit of at least 1 and able to match a row
     * @return the rows it selects (O60)
     */
    Flux<OutboxRow> listOutbox(OutboxQuery query);

    /**
     * @param dueByNanos pending rows visible by then count as due, epoch nanoseconds
     * @param claimedBeforeNanos claimed rows claimed before then count as stale, epoch nanoseconds
     * @param cap the most rows counted per status
     * @return the counts per route (O61)
     */
    Mono<OutboxCounts> countByRoute(long dueByNanos, long claimedBeforeNanos, int cap);

    /**
     * @param dueByNanos pending rows visible by then count as due, epoch nanoseconds
     * @param cap the most rows each of the three reads takes
     * @return the activity per route (O68)
     */
    Flux<OutboxRouteActivity> routeActivity(long dueByNanos, int cap);

    /**
     * @param dispatchKey the row
     * @return its state, or empty (O50)
     */
    Mono<OutboxRowState> rowState(String dispatchKey);
}
