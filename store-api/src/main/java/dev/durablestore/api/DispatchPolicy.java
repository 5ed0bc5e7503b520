package dev.durablestore.api;

import java.util.Objects;
import java.util.OptionalInt;

/**
 * How a claim hands rows out beyond scope, held workflows and limit (issue 20): enforced by the
 * database in the claim's own transaction, so it holds across every process and node sharing it,
 * not only within one dispatcher's memory. Immutable and validated when built: each {@code with*}
 * method returns a checked copy and leaves this one unchanged, so its result must be used (a
 * {@code with*} call as a statement does nothing; Error Prone reports it). Accepted by
 * {@link ReactiveStore#claim(ClaimRequest)} and by
 * {@link ClaimStreamOptions#withPolicy(DispatchPolicy)}; claims without one are unconstrained.
 *
 * <pre>{@code
 * ClaimStreamOptions.defaults()
 *         .withScope(ClaimScope.of("default", "payments"))
 *         .withPolicy(DispatchPolicy.none().withSerialPerWorkflow(true))
 * }</pre>
 *
 * <p><b>Serial per workflow</b> (O63). A claim under this policy takes a row only when no row of
 * its workflow is {@code CLAIMED} (by any claimer, serial or not) and no {@code PENDING} row of its
 * workflow comes before it (lower ordinal, then lower dispatch key), due or not, on any route: so
 * the rows of one workflow are handed out one at a time, in ordinal order, and a batch holds at
 * most one row per workflow. A row that leaves {@code CLAIMED} (completed, retried, failed,
 * cancelled, released by a stream, re-armed by the lease reaper) frees its workflow; a step that
 * completes the claimed row and stages the next makes the next claimable. Claims without the
 * policy ignore it (they may take any due row). What it costs: each candidate row is checked
 * against the other stored rows of its workflow (an index seek by workflow, then each of its rows,
 * settled ones included until {@link OperatorStore#pruneSettled} removes them), and a claim walks
 * past the rows that wait behind the first of their workflow. A serial claim's rows carry a
 * negative {@linkplain OutboxRow#claimToken() claim token}; on PostgreSQL a unique index admits one
 * such claimed row per workflow, so two serial claims whose snapshots raced cannot both win (the
 * loser takes nothing and is tried again).
 * Nothing ages a waiting row: a workflow whose first pending row no claimer takes (held, pinned to
 * a node that is gone, on a route nobody serves) hands out nothing more until it is.
 *
 * <p><b>Concurrency cap</b> (O64). A claim with a cap of {@code n} on a scope takes at most
 * {@code n} minus the rows of the scope's route (namespace and task queue, on any node) that are
 * {@code CLAIMED} at that moment, counted in the claim's own transaction: so however many claimers
 * with that cap run on however many nodes, the route never has more than {@code n} rows claimed
 * by them. Claims without the cap are not held back by it (their rows still count). A cap needs a
 * scope: a claim of every route with one fails with {@link InvalidArgumentException} naming
 * {@code policy.concurrencyCap}. On PostgreSQL capped claims of one route are serialized by an
 * advisory lock keyed by the route; a settle through the store wakes its capped streams at once,
 * settles on other nodes reach them at their poll interval.
 *
 * <p><b>Concurrency cap per node</b> (O65). A claim with a node cap of {@code n} on a scope with
 * a {@linkplain ClaimScope#node() node} takes at most {@code n} minus the rows of the scope's route
 * that are {@code CLAIMED} at that moment by claims whose scope had that same node, counted in the
 * claim's own transaction: so the claimers of every process sharing the database that claim as
 * that node never hold more than {@code n} rows of the route at once, whatever the other nodes
 * hold. Who claimed a row is recorded by every claim (its scope's node, or none); it is not the
 * row's pin ({@link OutboxRow#node()}): unpinned rows and rows pinned to the node count alike. Rows
 * claimed without a node, or before the store recorded claimers, count for no node. A node cap needs
 * a scope with a node: a claim without one fails with {@link InvalidArgumentException} naming
 * {@code policy.nodeConcurrencyCap}. On PostgreSQL node-capped claims of one route and node are
 * serialized by an advisory lock keyed by both.
 *
 * <p>They all compose: a serial claim with both caps takes at most one row per workflow and no
 * more than the smaller room the two caps leave.
 */
public final class DispatchPolicy {

    /** The largest {@link #withConcurrencyCap(int)} and {@link #withNodeConcurrencyCap(int)}. */
    public static final int MAX_CONCURRENCY_CAP = 1_000_000;

    private static final DispatchPolicy NONE = new DispatchPolicy(false, 0, 0);

    private final boolean serialPerWorkflow;
    /** 0 for none. */
    private final int cap;
    /** 0 for none. */
    private final int nodeCap;

    private DispatchPolicy(boolean serialPerWorkflow, int cap, int nodeCap) {
        this.serialPerWorkflow = serialPerWorkflow;
        this.cap = cap;
        this.nodeCap = nodeCap;
    }

    /** @return no constraint: every due row the scope admits and the hold allows may be claimed */
    public static DispatchPolicy none() {
        return NONE;
    }

    /**
     * @param value true to hand out the rows of one workflow one at a time, in ordinal order (O63)
     * @return a copy with the setting
     */
    public DispatchPolicy withSerialPerWorkflow(boolean value) {
        return value == serialPerWorkflow ? this : new DispatchPolicy(value, cap, nodeCap);
    }

    /**
     * @param value the most rows of the claim's route that may be {@code CLAIMED} at once, 1 to
     *     {@value #MAX_CONCURRENCY_CAP} (O64)
     * @return a copy with the cap set
     * @throws InvalidArgumentException naming {@code concurrencyCap} when out of range
     */
    public DispatchPolicy withConcurrencyCap(int value) {
        if (value < 1 || value > MAX_CONCURRENCY_CAP) {
            throw new InvalidArgumentException(
                    "concurrencyCap", "must be between 1 and " + MAX_CONCURRENCY_CAP + ", was " + value);
        }
        return new DispatchPolicy(serialPerWorkflow, value, nodeCap);
    }

    /** @return a copy without a concurrency cap */
    public DispatchPolicy withoutConcurrencyCap() {
        return cap == 0 ? this : new DispatchPolicy(serialPerWorkflow, 0, nodeCap);
    }

    /**
     * @param value the most rows of the claim's route that may be {@code CLAIMED} at once by claims
     *     whose scope has the claim's node, 1 to {@value #MAX_CONCURRENCY_CAP} (O65)
     * @return a copy with the node cap set
     * @throws InvalidArgumentException naming {@code nodeConcurrencyCap} when out of range
     */
    public DispatchPolicy withNodeConcurrencyCap(int value) {
        if (value < 1 || value > MAX_CONCURRENCY_CAP) {
            throw new InvalidArgumentException(
                    "nodeConcurrencyCap", "must be between 1 and " + MAX_CONCURRENCY_CAP + ", was " + value);
        }
        return new DispatchPolicy(serialPerWorkflow, cap, value);
    }

    /** @return a copy without a concurrency cap per node */
    public DispatchPolicy withoutNodeConcurrencyCap() {
        return nodeCap == 0 ? this : new DispatchPolicy(serialPerWorkflow, cap, 0);
    }

    /** @return the concurrency cap, or empty for none */
    public OptionalInt concurrencyCap() {
        return cap == 0 ? OptionalInt.empty() : OptionalInt.of(cap);
    }

    /** @return the concurrency cap per node, or empty for none */
    public OptionalInt nodeConcurrencyCap() {
        return nodeCap == 0 ? OptionalInt.empty() : OptionalInt.of(nodeCap);
    }

    /** @return true when rows of one workflow are handed out one at a time, in ordinal order */
    public boolean serialPerWorkflow() {
        return serialPerWorkflow;
    }

    /** @return true when the policy constrains anything (a settle may then make rows claimable) */
    public boolean constrained() {
        return serialPerWorkflow || cap != 0 || nodeCap != 0;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DispatchPolicy p
                && p.serialPerWorkflow == serialPerWorkflow
                && p.cap == cap
                && p.nodeCap == nodeCap;
    }

    @Override
    public int hashCode() {
        return Objects.hash(serialPerWorkflow, cap, nodeCap);
    }

    @Override
    public String toString() {
        return "DispatchPolicy[serialPerWorkflow=" + serialPerWorkflow + (cap == 0 ? "" : ", concurrencyCap=" + cap)
                + (nodeCap == 0 ? "" : ", nodeConcurrencyCap=" + nodeCap) + "]";
    }
}
