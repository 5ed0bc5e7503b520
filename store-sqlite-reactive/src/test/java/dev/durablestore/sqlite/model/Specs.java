package dev.durablestore.sqlite.model;

import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.DispatchPolicy;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.Payload;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.internal.Rows;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Generated action parameters. They are relative ("the current head plus one", "now plus 1.5 s")
 * and resolved against the model when the action runs, so a shrunk sequence keeps its meaning
 * after {@link SequenceRunner} removes the steps before it. Their {@code toString} is what a failure
 * report lists. Each generator maps the draw 0 to its simplest value (see {@link Gen}), so shrinking
 * lowers an offset towards 0, a limit towards 1, a status towards pending, a list towards empty.
 */
final class Specs {

    private Specs() {}

    // ---------------------------------------------------------------- values

    static Gen<Integer> workflowIndex() {
        return Gen.between(0, Pools.WORKFLOWS.size() - 1);
    }

    static Gen<Integer> keyIndex() {
        return Gen.between(0, Pools.KEYS.size() - 1);
    }

    /** Mostly one key, sometimes a list of up to three (possibly empty or repeating one). */
    static Gen<List<Integer>> keyIndices() {
        Gen<Boolean> several = Gen.frequency(Gen.weight(3, false), Gen.weight(1, true));
        return c -> several.next(c)
                ? keyIndex().list(3).next(c)
                : List.of(keyIndex().next(c));
    }

    /** Half-second steps relative to now. */
    static Gen<Integer> steps(int min, int max) {
        return Gen.between(min, max, 0);
    }

    static Gen<Integer> limit() {
        return Gen.between(0, 4, 1);
    }

    static Gen<Set<Integer>> held() {
        return workflowIndex().set(2);
    }

    static Set<WorkflowId> workflows(Set<Integer> indices) {
        return indices.stream().map(Pools::workflow).collect(Collectors.toUnmodifiableSet());
    }

    static String names(Set<Integer> indices) {
        return new TreeSet<>(indices).stream().map(i -> "w" + i).collect(Collectors.joining(",", "{", "}"));
    }

    static String signed(int steps) {
        String s = Pools.offset(Pools.at(Pools.START, steps));
        return steps >= 0 ? "+" + s : s;
    }

    // ---------------------------------------------------------------- routes

    /** A row's route or a claim scope: indexes into {@link Pools}. */
    record Route(int namespace, int taskQueue, String node) {

        ClaimScope scope() {
            return new ClaimScope(Pools.NAMESPACES.get(namespace), Pools.TASK_QUEUES.get(taskQueue), node);
        }

        static Gen<Route> forRows() {
            return of(Pools.ROW_NODES);
        }

        static Gen<Route> forScopes() {
            return of(Pools.SCOPE_NODES);
        }

        private static Gen<Route> of(List<String> nodes) {
            // biased to the first namespace, queue and node so that scoped claims often match
            Gen<Integer> node = nodes.size() == 2
                    ? Gen.frequency(Gen.weight(3, 0), Gen.weight(1, 1))
                    : Gen.frequency(Gen.weight(2, 0), Gen.weight(2, 1), Gen.weight(1, 2));
            Gen<Integer> biased = Gen.frequency(Gen.weight(3, 0), Gen.weight(1, 1));
            return c -> new Route(biased.next(c), biased.next(c), nodes.get(node.next(c)));
        }

        @Override
        public String toString() {
            return Pools.scope(scope());
        }
    }

    // ---------------------------------------------------------------- claims and settles

    /**
     * A dispatch policy (O63–O65): serial per workflow or not, a route cap and a node cap (0 for
     * none). Caps of 1 to 3 meet the few claimed rows a sequence has. A cap without a scope, or a
     * node cap without a scope's node, is the claim's argument error: drawn, but seldom.
     */
    record PolicySpec(boolean serial, int cap, int nodeCap) {

        static final PolicySpec NONE = new PolicySpec(false, 0, 0);

        /** @param route the claim's scope, or {@code null} for none */
        static Gen<PolicySpec> forScope(Route route) {
            Gen<Boolean> serial = Gen.frequency(Gen.weight(3, false), Gen.weight(1, true));
            Gen<Integer> seldom = Gen.frequency(Gen.weight(19, 0), Gen.weight(1, 1));
            Gen<Integer> cap = route == null
                    ? seldom
                    : Gen.frequency(Gen.weight(4, 0), Gen.weight(1, 1), Gen.weight(1, 2), Gen.weight(1, 3));
            Gen<Integer> nodeCap = route == null || route.node() == null
                    ? seldom
                    : Gen.frequency(Gen.weight(3, 0), Gen.weight(1, 1), Gen.weight(1, 2));
            return c -> new PolicySpec(serial.next(c), cap.next(c), nodeCap.next(c));
        }

        DispatchPolicy build() {
            DispatchPolicy p = DispatchPolicy.none().withSerialPerWorkflow(serial);
            p = cap == 0 ? p : p.withConcurrencyCap(cap);
            return nodeCap == 0 ? p : p.withNodeConcurrencyCap(nodeCap);
        }

        @Override
        public String toString() {
            List<String> parts = new ArrayList<>();
            if (serial) {
                parts.add("serial");
            }
            if (cap != 0) {
                parts.add("cap " + cap);
            }
            if (nodeCap != 0) {
                parts.add("node cap " + nodeCap);
            }
            return parts.isEmpty() ? "none" : String.join(" + ", parts);
        }
    }

    /**
     * A claim request: the limit, the route or none (every route, O22), the held workflows (O23,
     * O24) and the dispatch policy; every combination is one {@link ClaimRequest}.
     */
    record ClaimSpec(int limit, Route route, Set<Integer> held, PolicySpec policy) {

        static Gen<ClaimSpec> any() {
            Gen<Boolean> scoped = Gen.of(false, true);
            Gen<Boolean> holding = Gen.frequency(Gen.weight(4, false), Gen.weight(3, true));
            return c -> {
                int limit = Specs.limit().next(c);
                Route route = scoped.next(c) ? Route.forScopes().next(c) : null;
                Set<Integer> held = holding.next(c) ? Specs.held().next(c) : Set.of();
                return new ClaimSpec(
                        limit, route, held, PolicySpec.forScope(route).next(c));
            };
        }

        /** @return a claim of every route, nothing held, no policy */
        static ClaimSpec plain(int limit) {
            return new ClaimSpec(limit, null, Set.of(), PolicySpec.NONE);
        }

        ClaimRequest build() {
            return ClaimRequest.of(limit)
                    .withScope(route == null ? null : route.scope())
                    .withHeldWorkflows(workflows(held))
                    .withPolicy(policy.build());
        }

        @Override
        public String toString() {
            return "claim(limit " + limit + (route == null ? "" : ", scope " + route)
                    + (held.isEmpty() ? "" : ", held " + names(held))
                    + (policy.equals(PolicySpec.NONE) ? "" : ", policy " + policy) + ")";
        }
    }

    /**
     * A settlement (O29–O32, O58), its instant relative to now and resolved when the step runs:
     * {@code steps} is the retry's visibility offset ({@code retryAt}) or its delay
     * ({@code retryAfter}, never negative) in half-second steps.
     */
    record SettlementSpec(Settlement.Kind kind, boolean afterDelay, int nextAttempt, int steps) {

        static Gen<SettlementSpec> any() {
            Gen<Settlement.Kind> kind = Gen.frequency(
                    Gen.weight(3, Settlement.Kind.COMPLETE),
                    Gen.weight(3, Settlement.Kind.RETRY),
                    Gen.weight(3, Settlement.Kind.FAIL),
                    Gen.weight(2, Settlement.Kind.CANCEL));
            Gen<Boolean> afterDelay = Gen.of(false, true);
            Gen<Integer> attempt = Gen.between(0, 3);
            return c -> {
                Settlement.Kind k = kind.next(c);
                if (k != Settlement.Kind.RETRY) {
                    return new SettlementSpec(k, false, 0, 0);
                }
                boolean delayed = afterDelay.next(c);
                return new SettlementSpec(
                        k, delayed, attempt.next(c), (delayed ? Specs.steps(0, 4) : Specs.steps(-2, 4)).next(c));
            };
        }

        Settlement resolve(Instant now) {
            return switch (kind) {
                case COMPLETE -> Settlement.complete();
                case FAIL -> Settlement.fail();
                case CANCEL -> Settlement.cancel();
                case RETRY ->
                    afterDelay
                            ? Settlement.retryAfter(nextAttempt, Pools.STEP.multipliedBy(steps))
                            : Settlement.retryAt(nextAttempt, Pools.at(now, steps));
            };
        }

        @Override
        public String toString() {
            return switch (kind) {
                case COMPLETE -> "complete";
                case FAIL -> "fail";
                case CANCEL -> "cancel";
                case RETRY ->
                    afterDelay
                            ? "retryAfter(" + nextAttempt + ", " + Pools.offset(Pools.at(Pools.START, steps)) + "s)"
                            : "retryAt(" + nextAttempt + ", now" + signed(steps) + ")";
            };
        }
    }

    // ---------------------------------------------------------------- rows

    /** The status a staged row is given; {@code breaksO6} stages an inconsistent claim instant on purpose. */
    record Staged(OutboxStatus status, int claimSteps, boolean breaksO6) {

        static Gen<Staged> any() {
            Gen<OutboxStatus> status = Gen.frequency(
                    Gen.weight(16, OutboxStatus.PENDING),
                    Gen.weight(2, OutboxStatus.CLAIMED),
                    Gen.weight(1, OutboxStatus.DONE),
                    Gen.weight(1, OutboxStatus.FAILED),
                    Gen.weight(1, OutboxStatus.CANCELLED));
            Gen<Integer> claimSteps = steps(-4, 0);
            Gen<Boolean> breaks = Gen.frequency(Gen.weight(40, false), Gen.weight(1, true));
            return c -> new Staged(status.next(c), claimSteps.next(c), breaks.next(c));
        }
    }

    /** A row to stage or re-arm. */
    record RowSpec(
            int workflow,
            int ordinal,
            Route route,
            boolean run,
            int attempt,
            int visibleSteps,
            Staged staged,
            int variant) {

        static Gen<RowSpec> any() {
            Gen<Integer> workflow = workflowIndex();
            Gen<Integer> ordinal = Gen.between(0, Pools.ORDINALS.size() - 1);
            Gen<Route> route = Route.forRows();
            Gen<Boolean> run = Gen.of(false, true);
            Gen<Integer> attempt = Gen.between(0, 2);
            Gen<Integer> visibleSteps = steps(-4, 6);
            Gen<Staged> staged = Staged.any();
            Gen<Integer> variant = Gen.between(0, 1);
            return c -> new RowSpec(
                    workflow.next(c),
                    ordinal.next(c),
                    route.next(c),
                    run.next(c),
                    attempt.next(c),
                    visibleSteps.next(c),
                    staged.next(c),
                    variant.next(c));
        }

        static Gen<List<RowSpec>> lists() {
            return any().list(3);
        }

        OutboxRow build(Instant now) {
            WorkflowId w = Pools.workflow(workflow);
            long ord = Pools.ORDINALS.get(ordinal);
            Instant claimedAt = staged.status() == OutboxStatus.CLAIMED ? Pools.at(now, staged.claimSteps()) : null;
            if (staged.breaksO6()) {
                claimedAt = claimedAt == null ? now : null;
            }
            ClaimScope r = route.scope();
            return Rows.stored(
                    OutboxRow.dispatchKey(w, ord),
                    w,
                    ord,
                    run ? Pools.runOf(w) : null,
                    r.namespace(),
                    r.taskQueue(),
                    r.node(),
                    "act-" + (char) ('a' + variant),
                    Payload.json("{\"v\":" + variant + "}"),
                    staged.status(),
                    attempt,
                    Pools.at(now, visibleSteps),
                    claimedAt,
                    0L,
                    null,
                    OutboxRow.MIN_PRIORITY,
                    List.of());
        }

        @Override
        public String toString() {
            return "w" + workflow + ":" + Pools.ORDINALS.get(ordinal) + "{"
                    + staged.status().token()
                    + (staged.status() == OutboxStatus.CLAIMED ? " c" + signed(staged.claimSteps()) : "")
                    + (staged.breaksO6() ? " BREAKS-O6" : "")
                    + " a" + attempt + " v" + signed(visibleSteps) + " " + route + " act-" + (char) ('a' + variant)
                    + (run ? " run" : "") + "}";
        }
    }

    // ---------------------------------------------------------------- appends

    /** The {@code expectedSeq} an append passes, relative to the model's head. */
    enum Guard {
        HEAD,
        BELOW,
        ABOVE,
        FAR_ABOVE,
        ZERO,
        NEGATIVE;

        long resolve(long head) {
            return switch (this) {
                case HEAD -> head;
                case BELOW -> head - 1; // -1 on an empty history: an invalid argument
                case ABOVE -> head + 1;
                case FAR_ABOVE -> head + 3;
                case ZERO -> 0;
                case NEGATIVE -> -1;
            };
        }

        static Gen<Guard> any() {
            return Gen.frequency(
                    Gen.weight(20, HEAD),
                    Gen.weight(2, BELOW),
                    Gen.weight(2, ABOVE),
                    Gen.weight(1, FAR_ABOVE),
                    Gen.weight(1, ZERO),
                    Gen.weight(1, NEGATIVE));
        }
    }

    /**
     * An append: the events' kinds, the guard, an optional break of contiguity (event
     * {@code breakAt} gets {@code seq + delta}), an optional foreign envelope on the last event
     * (E11), and for {@code appendWithOutbox} the rows.
     */
    record AppendSpec(
            boolean withOutbox,
            int workflow,
            List<Pools.Kind> kinds,
            Guard guard,
            int breakAt,
            int delta,
            boolean foreignEnvelope,
            List<RowSpec> rows) {

        static Gen<AppendSpec> any(boolean withOutbox) {
            Gen<Integer> workflow = workflowIndex();
            Gen<List<Pools.Kind>> kinds = Gen.of(Pools.Kind.class).list(3);
            Gen<Guard> guard = Guard.any();
            Gen<Integer> breakAt =
                    Gen.frequency(Gen.weight(12, -1), Gen.weight(1, 0), Gen.weight(1, 1), Gen.weight(1, 2));
            Gen<Integer> delta = Gen.of(-1, 1, 2);
            Gen<Boolean> foreign = Gen.frequency(Gen.weight(40, false), Gen.weight(1, true));
            Gen<List<RowSpec>> rows = withOutbox ? RowSpec.lists() : Gen.constant(List.of());
            return c -> new AppendSpec(
                    withOutbox,
                    workflow.next(c),
                    kinds.next(c),
                    guard.next(c),
                    breakAt.next(c),
                    delta.next(c),
                    foreign.next(c),
                    rows.next(c));
        }

        @Override
        public String toString() {
            return (withOutbox ? "appendWithOutbox(w" : "append(w") + workflow + ", " + kinds
                    + ", expected=" + guard
                    + (breakAt >= 0 && breakAt < kinds.size()
                            ? ", seq[" + breakAt + "]" + (delta > 0 ? "+" : "") + delta
                            : "")
                    + (foreignEnvelope && !kinds.isEmpty() ? ", foreign envelope" : "")
                    + (withOutbox ? ", rows=" + rows : "") + ")";
        }
    }
}
