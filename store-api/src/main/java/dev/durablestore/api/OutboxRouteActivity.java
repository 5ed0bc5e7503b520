package dev.durablestore.api;

import java.time.Instant;

/**
 * When one route last showed work waiting and work being done, as
 * {@link OperatorStore#routeActivity} found it (O68): the visibility of its oldest due row, the
 * latest claim of a row still claimed, and the latest done or failed settle. Each is null when the
 * read found no such row of the route.
 *
 * @param route the route (namespace, task queue, node; the node is null for unpinned rows)
 * @param oldestDue the earliest {@code visibleAfter} of its due pending rows, or null
 * @param lastClaimed the latest {@code claimedAt} of its claimed rows (a heartbeat renews it), or null
 * @param lastSettled the latest settle time of its done or failed rows, or null
 */
public record OutboxRouteActivity(ClaimScope route, Instant oldestDue, Instant lastClaimed, Instant lastSettled) {

    /** Checks the route. */
    public OutboxRouteActivity {
        InvalidArgumentException.requireNonNull(route, "route");
    }
}
