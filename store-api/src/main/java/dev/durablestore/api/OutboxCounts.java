package dev.durablestore.api;

import java.util.List;
import java.util.Set;

/**
 * The answer of {@link OperatorStore#countByRoute}: counts per route, and the statuses whose count
 * reached the cap (their per-route counts are lower bounds).
 *
 * @param routes one entry per route with at least one counted row, ordered by namespace, task
 *     queue, then node with unpinned first (code-point order)
 * @param capped the statuses of which at least {@code cap} rows were found, so not all were counted
 * @param cap the most rows counted per status
 */
public record OutboxCounts(List<OutboxRouteCounts> routes, Set<OutboxStatus> capped, int cap) {

    /** Copies the collections. */
    public OutboxCounts {
        routes = List.copyOf(routes);
        capped = Set.copyOf(capped);
    }
}
