package dev.durablestore.core.storage;

import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.DispatchPolicy;
import java.util.Set;
import java.util.function.IntSupplier;
import reactor.core.publisher.Mono;

/**
 * The claims of a backend (O16–O27, O62–O65): no row handed out twice, on any node. Arguments
 * arrive checked: the scope is one stored rows can be on ({@code StoredText.matchable}), the held
 * workflows are their stored ids, the policy fits the scope.
 */
public interface ClaimStorage {

    /**
     * Claims due rows; a row whose input does not decode is dead-lettered in the claim's
     * transaction and reported in the batch, not thrown.
     *
     * @param scope the route, or {@code null} for every route
     * @param limit the most rows, read once when the claim runs (a stream's demand may grow while
     *     its claim waits for its turn)
     * @param heldKeys the ids of workflows whose rows are not taken
     * @param policy how rows are handed out
     * @param withNextDue whether the batch also carries the next known due time (O52)
     * @return the batch
     */
    Mono<ClaimBatch> claim(
            ClaimScope scope, IntSupplier limit, Set<String> heldKeys, DispatchPolicy policy, boolean withNextDue);
}
