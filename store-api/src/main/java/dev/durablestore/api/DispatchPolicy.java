package dev.durablestore.api;

import java.util.Objects;

/**
 * How a claim hands rows out beyond scope, held workflows and limit (issue 20): enforced by the
 * database in the claim's own transaction, so it holds across every process and node sharing it,
 * not only within one dispatcher's memory. Immutable: each setter returns a copy, validated when
 * called. Accepted by {@link OutboxStore#claim(ClaimScope, int, java.util.Set, DispatchPolicy)} and
 * by {@link ClaimStreamOptions#policy(DispatchPolicy)}; claims without one are unconstrained.
 *
 * <pre>{@code
 * ClaimStreamOptions.defaults()
 *         .scope(ClaimScope.of("default", "payments"))
 *         .policy(DispatchPolicy.none().serialPerWorkflow(true))
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
 * against the other rows of its workflow (an index seek by workflow); on PostgreSQL serial claims
 * are serialized with each other by an advisory lock, so they do not race on one workflow.
 */
public final class DispatchPolicy {

    private static final DispatchPolicy NONE = new DispatchPolicy(false);

    private final boolean serialPerWorkflow;

    private DispatchPolicy(boolean serialPerWorkflow) {
        this.serialPerWorkflow = serialPerWorkflow;
    }

    /** @return no constraint: every due row the scope admits and the hold allows may be claimed */
    public static DispatchPolicy none() {
        return NONE;
    }

    /**
     * @param value true to hand out the rows of one workflow one at a time, in ordinal order (O63)
     * @return a copy with the setting
     */
    public DispatchPolicy serialPerWorkflow(boolean value) {
        return value == serialPerWorkflow ? this : new DispatchPolicy(value);
    }

    /** @return true when rows of one workflow are handed out one at a time, in ordinal order */
    public boolean serialPerWorkflow() {
        return serialPerWorkflow;
    }

    /** @return true when the policy constrains anything (a settle may then make rows claimable) */
    public boolean constrained() {
        return serialPerWorkflow;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DispatchPolicy p && p.serialPerWorkflow == serialPerWorkflow;
    }

    @Override
    public int hashCode() {
        return Objects.hash(serialPerWorkflow);
    }

    @Override
    public String toString() {
        return "DispatchPolicy[serialPerWorkflow=" + serialPerWorkflow + "]";
    }
}
