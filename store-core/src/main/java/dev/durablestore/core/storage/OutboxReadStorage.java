package dev.durablestore.core.storage;

import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.OutboxCounts;
import dev.durablestore.api.OutboxQuery;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxRowState;
import dev.durablestore.api.WorkflowId;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** The outbox reads of a backend: listings, counts and row states, none of which writes. */
public interface OutboxReadStorage {

    /**
     * @param olderThan claimed before this instant
     * @param limit the most rows
     * @return rows claimed longer than a lease (O39, O40)
     */
    Flux<OutboxRow> listStaleClaimed(Instant olderThan, int limit);

    /** @return workflows with a pending or claimed row (O43) */
    Flux<WorkflowId> listUnsettledWorkflowIds();

    /**
     * @param namespace the namespace
     * @return its pending and claimed rows (O44)
     */
    Mono<Long> countInflight(String namespace);

    /**
     * @param namespace the namespace
     * @return its claimed rows (O45)
     */
    Mono<Long> countClaimed(String namespace);

    /**
     * @param namespaces the namespaces
     * @return the claimed rows of each (O47)
     */
    Mono<Map<String, Long>> countClaimedByNamespace(Collection<String> namespaces);

    /** @return the routes with a due row (O48) */
    Flux<ClaimScope> pendingRoutes();

    /**
     * @param query the query
     * @return the rows it selects (O60)
     */
    Flux<OutboxRow> listOutbox(OutboxQuery query);

    /**
     * @param dueBy pending rows visible by then count as due
     * @param claimedBefore claimed rows claimed before then count as stale
     * @param cap the most rows counted per status
     * @return the counts per route (O61)
     */
    Mono<OutboxCounts> countByRoute(Instant dueBy, Instant claimedBefore, int cap);

    /**
     * @param dispatchKey the row
     * @return its state, or empty (O50)
     */
    Mono<OutboxRowState> rowState(String dispatchKey);
}
