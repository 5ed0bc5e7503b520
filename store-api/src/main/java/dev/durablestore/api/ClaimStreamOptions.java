package dev.durablestore.api;

import java.time.Duration;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Options of {@link OutboxStore#claimStream(ClaimStreamOptions)}. Immutable and validated when
 * built: each {@code with*} method returns a checked copy and leaves this one unchanged, so its
 * result must be used (a {@code with*} call as a statement does nothing; Error Prone reports it).
 * The accessors have the plain names ({@link #maxBatch()}, {@link #scope()}, …).
 *
 * <pre>{@code
 * ClaimStreamOptions.defaults().withScope(ClaimScope.of("default", "email")).withMaxBatch(32)
 * }</pre>
 */
public final class ClaimStreamOptions {

    private static final ClaimStreamOptions DEFAULTS =
            new ClaimStreamOptions(null, Set::of, 64, Duration.ofSeconds(1), DispatchPolicy.none());

    private final ClaimScope scope;
    private final Supplier<Set<WorkflowId>> held;
    private final int maxBatch;
    private final Duration pollInterval;
    private final DispatchPolicy policy;

    private ClaimStreamOptions(
            ClaimScope scope,
            Supplier<Set<WorkflowId>> held,
            int maxBatch,
            Duration pollInterval,
            DispatchPolicy policy) {
        this.scope = scope;
        this.held = held;
        this.maxBatch = maxBatch;
        this.pollInterval = pollInterval;
        this.policy = policy;
    }

    /**
     * @return no scope (every route), nothing held, batches of at most 64, a 1 s poll interval, no
     *     dispatch policy
     */
    public static ClaimStreamOptions defaults() {
        return DEFAULTS;
    }

    /**
     * @param value the route to claim from, or {@code null} for every route
     * @return a copy with the scope set
     */
    public ClaimStreamOptions withScope(ClaimScope value) {
        return new ClaimStreamOptions(value, held, maxBatch, pollInterval, policy);
    }

    /**
     * @param value asked before every claim for the workflows whose rows must not be claimed
     * @return a copy with the supplier set
     * @throws InvalidArgumentException naming {@code heldWorkflows} when null
     */
    public ClaimStreamOptions withHeldWorkflows(Supplier<Set<WorkflowId>> value) {
        InvalidArgumentException.requireNonNull(value, "heldWorkflows");
        return new ClaimStreamOptions(scope, value, maxBatch, pollInterval, policy);
    }

    /**
     * @param value the most rows one claim takes, 1 to 10,000
     * @return a copy with the batch bound set
     * @throws InvalidArgumentException naming {@code maxBatch} when out of range
     */
    public ClaimStreamOptions withMaxBatch(int value) {
        if (value < 1 || value > 10_000) {
            throw new InvalidArgumentException("maxBatch", "must be between 1 and 10000, was " + value);
        }
        return new ClaimStreamOptions(scope, held, value, pollInterval, policy);
    }

    /**
     * @param value how long an idle stream waits before looking again for rows staged by other
     *     processes; positive
     * @return a copy with the interval set
     * @throws InvalidArgumentException naming {@code pollInterval} when null or not positive
     */
    public ClaimStreamOptions withPollInterval(Duration value) {
        InvalidArgumentException.requireNonNull(value, "pollInterval");
        if (value.isNegative() || value.isZero()) {
            throw new InvalidArgumentException("pollInterval", "must be positive, was " + value);
        }
        return new ClaimStreamOptions(scope, held, maxBatch, value, policy);
    }

    /**
     * @param value how every claim of the stream hands rows out ({@link DispatchPolicy}); a stream
     *     with a constraining policy also wakes when a settle through this store may have made rows
     *     claimable (a completed row frees its workflow), not only when rows are staged
     * @return a copy with the policy set
     * @throws InvalidArgumentException naming {@code policy} when null
     */
    public ClaimStreamOptions withPolicy(DispatchPolicy value) {
        InvalidArgumentException.requireNonNull(value, "policy");
        return new ClaimStreamOptions(scope, held, maxBatch, pollInterval, value);
    }

    /** @return the dispatch policy of every claim of the stream */
    public DispatchPolicy policy() {
        return policy;
    }

    /** @return the route, or {@code null} for every route */
    public ClaimScope scope() {
        return scope;
    }

    /** @return the supplier of held workflows */
    public Supplier<Set<WorkflowId>> heldWorkflows() {
        return held;
    }

    /** @return the most rows one claim takes */
    public int maxBatch() {
        return maxBatch;
    }

    /** @return the idle poll interval */
    public Duration pollInterval() {
        return pollInterval;
    }

    @Override
    public String toString() {
        return "ClaimStreamOptions[scope=" + scope + ", maxBatch=" + maxBatch + ", pollInterval=" + pollInterval
                + ", policy=" + policy + "]";
    }
}
