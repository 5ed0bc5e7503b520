package dev.durablestore.api;

/**
 * The rows of one route by status, as {@link OperatorStore#countByRoute} counted them. Each count is
 * exact unless its status is in {@link OutboxCounts#capped()}; then it is a lower bound.
 *
 * @param route the route (namespace, task queue, node; the node is null for unpinned rows)
 * @param pending rows pending, due or not
 * @param due pending rows visible at the count's {@code dueBy}
 * @param claimed rows claimed
 * @param staleClaimed claimed rows claimed strictly before the count's {@code claimedBefore}
 * @param done rows done
 * @param failed rows failed (dead letters)
 * @param cancelled rows cancelled
 */
public record OutboxRouteCounts(
        ClaimScope route,
        long pending,
        long due,
        long claimed,
        long staleClaimed,
        long done,
        long failed,
        long cancelled) {

    /** Checks the route. */
    public OutboxRouteCounts {
        InvalidArgumentException.requireNonNull(route, "route");
    }
}
