package dev.durablestore.api;

import java.time.Duration;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Options of {@link ReactiveStore#claimStream(ClaimStreamOptions)}. Immutable and validated when
 * built: each {@code with*} method returns a checked copy and leaves this one unchanged, so its
 * result must be used (a {@code with*} call as a statement does nothing; Error Prone reports it).
 * The accessors have the plain names ({@link #maxBatch()}, {@link #scope()}, …).
 *
 * <pre>{@code
 * ClaimStreamOptions.defaults().withScope(ClaimScope.of("default", "email")).withMaxBatch(32)
 * }</pre>
 */
public final class ClaimStreamOptions {

    /** The largest {@link #maxBatch()}. */
    public static final int MAX_BATCH_LIMIT = 10_000;

    private static final ClaimStreamOptions DEFAULTS = new Draft().build();

    private final Settings settings;

    private ClaimStreamOptions(Settings settings) {
        this.settings = settings;
    }

    /** Every option, checked whenever options are built. */
    private record Settings(
            ClaimScope scope,
            Supplier<Set<WorkflowId>> held,
            int maxBatch,
            Duration pollInterval,
            DispatchPolicy policy) {

        Settings {
            InvalidArgumentException.requireNonNull(held, "heldWorkflows");
            InvalidArgumentException.requireBetween(maxBatch, 1, MAX_BATCH_LIMIT, "maxBatch");
            InvalidArgumentException.requirePositive(pollInterval, "pollInterval");
            InvalidArgumentException.requireNonNull(policy, "policy");
        }
    }

    /**
     * The options being changed: the one way options are copied. Starts from the defaults or from
     * options; {@link #build()} checks the whole.
     */
    private static final class Draft {
        private ClaimScope scope;
        private Supplier<Set<WorkflowId>> held = Set::of;
        private int maxBatch = 64;
        private Duration pollInterval = Duration.ofSeconds(1);
        private DispatchPolicy policy = DispatchPolicy.none();

        private Draft() {}

        private Draft(Settings s) {
            scope = s.scope();
            held = s.held();
            maxBatch = s.maxBatch();
            pollInterval = s.pollInterval();
            policy = s.policy();
        }

        private ClaimStreamOptions build() {
            return new ClaimStreamOptions(new Settings(scope, held, maxBatch, pollInterval, policy));
        }
    }

    /** @return a checked copy of these options with {@code change} made to them */
    private ClaimStreamOptions with(Consumer<Draft> change) {
        Draft draft = new Draft(settings);
        change.accept(draft);
        return draft.build();
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
        return with(d -> d.scope = value);
    }

    /**
     * @param value asked before every claim for the workflows whose rows must not be claimed
     * @return a copy with the supplier set
     * @throws InvalidArgumentException naming {@code heldWorkflows} when null
     */
    public ClaimStreamOptions withHeldWorkflows(Supplier<Set<WorkflowId>> value) {
        return with(d -> d.held = value);
    }

    /**
     * @param value the most rows one claim takes, 1 to {@value #MAX_BATCH_LIMIT}
     * @return a copy with the batch bound set
     * @throws InvalidArgumentException naming {@code maxBatch} when out of range
     */
    public ClaimStreamOptions withMaxBatch(int value) {
        return with(d -> d.maxBatch = value);
    }

    /**
     * @param value how long an idle stream waits before looking again for rows staged by other
     *     processes; positive
     * @return a copy with the interval set
     * @throws InvalidArgumentException naming {@code pollInterval} when null or not positive
     */
    public ClaimStreamOptions withPollInterval(Duration value) {
        return with(d -> d.pollInterval = value);
    }

    /**
     * @param value how every claim of the stream hands rows out ({@link DispatchPolicy}); a stream
     *     with a constraining policy also wakes when a settle through this store may have made rows
     *     claimable (a completed row frees its workflow), not only when rows are staged
     * @return a copy with the policy set
     * @throws InvalidArgumentException naming {@code policy} when null
     */
    public ClaimStreamOptions withPolicy(DispatchPolicy value) {
        return with(d -> d.policy = value);
    }

    /** @return the dispatch policy of every claim of the stream */
    public DispatchPolicy policy() {
        return settings.policy();
    }

    /** @return the route, or {@code null} for every route */
    public ClaimScope scope() {
        return settings.scope();
    }

    /** @return the supplier of held workflows */
    public Supplier<Set<WorkflowId>> heldWorkflows() {
        return settings.held();
    }

    /** @return the most rows one claim takes */
    public int maxBatch() {
        return settings.maxBatch();
    }

    /** @return the idle poll interval */
    public Duration pollInterval() {
        return settings.pollInterval();
    }

    @Override
    public String toString() {
        return "ClaimStreamOptions[scope=" + settings.scope() + ", maxBatch=" + settings.maxBatch() + ", pollInterval="
                + settings.pollInterval() + ", policy=" + settings.policy() + "]";
    }
}
