package dev.durablestore.core.internal;

import com.google.errorprone.annotations.CanIgnoreReturnValue;
import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.DispatchPolicy;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.internal.StoredText;
import java.util.Comparator;
import java.util.Set;
import java.util.TreeSet;

/** What every backend's claims share: the claim order and the held-workflow argument. */
public final class Claims {

    /**
     * A new claim token ({@link OutboxRow#claimToken()}): random, non-zero, so claims of any
     * process or node sharing the database need no counter and no read to tell themselves apart; a
     * row re-claimed gets the same token as its previous claim with probability 2<sup>-63</sup>.
     *
     * @return the token a claim writes with the rows it takes
     */
    public static long newClaimToken() {
        return java.util.concurrent.ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
    }

    /**
     * A new claim token for a claim under {@code policy}: negative for a serial claim (O63), so a
     * backend can tell the rows claimed serially apart in the database (PostgreSQL keeps at most
     * one such row per workflow with a unique partial index), positive otherwise.
     *
     * @param policy the claim's policy
     * @return the token
     */
    public static long newClaimToken(DispatchPolicy policy) {
        long token = newClaimToken();
        return policy.serialPerWorkflow() ? -token : token;
    }

    /**
     * Text in Unicode code point order: the order of SQLite's {@code BINARY} collation and of
     * PostgreSQL's {@code "C"} collation on UTF-8. {@link String#compareTo} compares UTF-16 units
     * and disagrees once characters outside the Basic Multilingual Plane occur.
     */
    public static final Comparator<String> CODE_POINT_ORDER = (a, b) -> {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int ca = a.codePointAt(i);
            int cb = b.codePointAt(j);
            if (ca != cb) {
                return Integer.compare(ca, cb);
            }
            i += Character.charCount(ca);
            j += Character.charCount(cb);
        }
        return Integer.compare(a.length() - i, b.length() - j);
    };

    /**
     * The order claimed rows are returned in (O62, O19): highest priority, then oldest
     * {@code visibleAfter}, then dispatch key. Rows without a priority all have the default, so
     * among them this is exactly O19.
     */
    public static final Comparator<OutboxRow> CLAIM_ORDER = Comparator.comparingInt(OutboxRow::priority)
            .reversed()
            .thenComparing(OutboxRow::visibleAfter)
            .thenComparing(OutboxRow::dispatchKey, CODE_POINT_ORDER);

    private Claims() {}

    /**
     * The dispatch policy of a claim, checked against its scope (O63, O64, O65): a cap needs a
     * scope, a node cap a scope with a node the store can keep (the claim records it as the
     * claimer of every row it takes).
     *
     * @param scope the claim's route, or {@code null} for every route
     * @param policy the policy
     * @return the policy
     */
    @CanIgnoreReturnValue // a check; returns its argument
    public static DispatchPolicy policy(ClaimScope scope, DispatchPolicy policy) {
        InvalidArgumentException.requireNonNull(policy, "policy");
        if (scope == null && policy.concurrencyCap().isPresent()) {
            throw new InvalidArgumentException(
                    "policy.concurrencyCap", "needs a scope: a cap bounds the claimed rows of one route (O64)");
        }
        if (policy.nodeConcurrencyCap().isPresent()) {
            if (scope == null || scope.node() == null) {
                throw new InvalidArgumentException(
                        "policy.nodeConcurrencyCap",
                        "needs a scope with a node: a node cap bounds the rows of one route claimed as one node"
                                + " (O65)");
            }
            StoredText.require(scope.node(), "scope.node");
        }
        return policy;
    }

    /**
     * How many rows a capped claim may take (O64).
     *
     * @param limit the claim's limit
     * @param policy its policy
     * @param claimedOnRoute the rows of the route claimed now, counted in the claim's transaction
     * @return {@code limit}, lowered to what the cap leaves room for (0 when full)
     */
    public static int capped(int limit, DispatchPolicy policy, long claimedOnRoute) {
        if (policy.concurrencyCap().isEmpty()) {
            return limit;
        }
        long room = policy.concurrencyCap().getAsInt() - claimedOnRoute;
        return (int) Math.max(0, Math.min(limit, room));
    }

    /**
     * How many rows a node-capped claim may take (O65).
     *
     * @param limit the claim's limit, already lowered by {@link #capped} when the route is capped
     * @param policy its policy
     * @param claimedByNode the rows of the route claimed now by claims as the scope's node, counted
     *     in the claim's transaction
     * @return {@code limit}, lowered to what the node cap leaves room for (0 when full)
     */
    public static int nodeCapped(int limit, DispatchPolicy policy, long claimedByNode) {
        if (policy.nodeConcurrencyCap().isEmpty()) {
            return limit;
        }
        long room = policy.nodeConcurrencyCap().getAsInt() - claimedByNode;
        return (int) Math.max(0, Math.min(limit, room));
    }

    /**
     * The held workflows of a claim (O24) as their canonical texts, checked for null.
     *
     * @param held the held workflows
     * @return their texts, sorted
     */
    public static Set<String> heldKeys(Set<WorkflowId> held) {
        InvalidArgumentException.requireNonNull(held, "held");
        Set<String> keys = new TreeSet<>();
        for (WorkflowId w : held) {
            keys.add(InvalidArgumentException.requireNonNull(w, "held[]").toString());
        }
        return keys;
    }
}
