package dev.durablestore.api;

import java.util.Collections;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;

/**
 * One claim: how many rows, from which route, leaving which workflows alone, under which dispatch
 * policy ({@link ReactiveStore#claim(ClaimRequest)}). Immutable and checked when built: each
 * {@code with*} method returns a checked copy and leaves this one unchanged.
 *
 * <pre>{@code
 * store.claim(ClaimRequest.of(32).withScope(ClaimScope.of("orders", "payments")))
 * }</pre>
 *
 * <p>Checks that span the request and the store (a concurrency cap needs a scope, a node cap a
 * scope with a node, O64, O65) are made by the claim and arrive as its error signal.
 */
public final class ClaimRequest {

    private final int limit;
    private final ClaimScope scope;
    private final Set<WorkflowId> heldWorkflows;
    private final DispatchPolicy policy;

    private ClaimRequest(int limit, ClaimScope scope, Set<WorkflowId> heldWorkflows, DispatchPolicy policy) {
        this.limit = (int) InvalidArgumentException.requireNonNegative(limit, "limit");
        this.scope = scope;
        this.heldWorkflows = heldWorkflows;
        this.policy = InvalidArgumentException.requireNonNull(policy, "policy");
    }

    /**
     * A claim of at most {@code limit} rows from every route, nothing held, no dispatch policy.
     *
     * @param limit the most rows to claim; 0 claims none (O16)
     * @return the request
     * @throws InvalidArgumentException naming {@code limit} when it is negative
     */
    public static ClaimRequest of(int limit) {
        return new ClaimRequest(limit, null, Set.of(), DispatchPolicy.none());
    }

    /**
     * @param value the route to claim from (O23–O27), or {@code null} for every route (O22)
     * @return a copy with the scope set
     */
    public ClaimRequest withScope(ClaimScope value) {
        return new ClaimRequest(limit, value, heldWorkflows, policy);
    }

    /**
     * @param value the workflows whose rows this claim must not take (O24, O28); copied
     * @return a copy with the held workflows set
     * @throws InvalidArgumentException naming {@code heldWorkflows} when the set or an element is
     *     {@code null}
     */
    public ClaimRequest withHeldWorkflows(Set<WorkflowId> value) {
        InvalidArgumentException.requireNonNull(value, "heldWorkflows");
        Set<WorkflowId> copy = new HashSet<>();
        for (WorkflowId w : value) {
            copy.add(InvalidArgumentException.requireNonNull(w, "heldWorkflows[]"));
        }
        return new ClaimRequest(limit, scope, Collections.unmodifiableSet(copy), policy);
    }

    /**
     * @param value how the claim hands rows out (serial per workflow, concurrency caps: O63–O65)
     * @return a copy with the policy set
     * @throws InvalidArgumentException naming {@code policy} when {@code null}
     */
    public ClaimRequest withPolicy(DispatchPolicy value) {
        return new ClaimRequest(limit, scope, heldWorkflows, value);
    }

    /** @return the most rows the claim takes */
    public int limit() {
        return limit;
    }

    /** @return the route claimed from, or {@code null} for every route */
    public ClaimScope scope() {
        return scope;
    }

    /** @return the workflows whose rows the claim leaves alone; unmodifiable, never {@code null} */
    public Set<WorkflowId> heldWorkflows() {
        return heldWorkflows;
    }

    /** @return the dispatch policy; {@link DispatchPolicy#none()} unless set */
    public DispatchPolicy policy() {
        return policy;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ClaimRequest r
                && limit == r.limit
                && Objects.equals(scope, r.scope)
                && heldWorkflows.equals(r.heldWorkflows)
                && policy.equals(r.policy);
    }

    @Override
    public int hashCode() {
        return Objects.hash(limit, scope, heldWorkflows, policy);
    }

    @Override
    public String toString() {
        return "ClaimRequest[limit=" + limit + ", scope=" + scope + ", heldWorkflows=" + heldWorkflows + ", policy="
                + policy + "]";
    }
}
