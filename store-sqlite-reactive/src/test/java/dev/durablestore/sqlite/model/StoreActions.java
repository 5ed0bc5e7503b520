package dev.durablestore.sqlite.model;

import static dev.durablestore.sqlite.model.ModelledStore.await;

import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.TimerId;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.Event;
import dev.durablestore.sqlite.model.SequenceRunner.Action;
import dev.durablestore.sqlite.model.SequenceRunner.Step;
import dev.durablestore.sqlite.model.Specs.AppendSpec;
import dev.durablestore.sqlite.model.Specs.Route;
import dev.durablestore.sqlite.model.Specs.RowSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The actions of the generated sequences: the appends, history reads and listings of group E/R,
 * timers (T), and every outbox operation (O, plus heartbeat, redrive and pruneSettled), together
 * with reopening the file and moving the test clock. Not covered here: {@code query},
 * {@code readRunChain}, {@code validateStoredEvents} and the asynchronous {@code claimStream}.
 *
 * <p>Most actions are generated independently of the state and resolve their relative parameters
 * against the model when they run; two pick a row that is claimed or dead-lettered at that moment,
 * so the dispatcher's claim → settle/retry/heartbeat → redrive path is common. Each action calls
 * the store and the model and compares what they return ({@link ModelledStore#both}).
 */
final class StoreActions {

    private StoreActions() {}

    /**
     * Adds every action, with its weight, to a runner.
     *
     * @param runner the runner of the property
     * @return the same runner
     */
    static SequenceRunner<ModelledStore> addTo(SequenceRunner<ModelledStore> runner) {
        return runner
                // E: appends
                .withAction(5, independent(AppendSpec.any(false).map(a -> step(a.toString(), s -> append(s, a)))))
                .withAction(6, independent(AppendSpec.any(true).map(a -> step(a.toString(), s -> append(s, a)))))
                .withAction(
                        2,
                        independent(RowSpec.lists()
                                .map(rows -> step("appendOutboxBatch(" + rows + ")", s -> appendOutboxBatch(s, rows)))))
                // O: claims
                .withAction(
                        4,
                        independent(Specs.limit()
                                .map(n -> step("claim(" + n + ")", s -> claim(s, null, n, Set.of(), false)))))
                .withAction(3, independent(c -> {
                    int n = Specs.limit().next(c);
                    Set<Integer> held = Specs.held().next(c);
                    return step(
                            "claimExcluding(" + n + ", " + Specs.names(held) + ")", s -> claim(s, null, n, held, true));
                }))
                .withAction(4, independent(c -> {
                    Route r = Route.forScopes().next(c);
                    int n = Specs.limit().next(c);
                    return step("claimScoped(" + r + ", " + n + ")", s -> claim(s, r, n, Set.of(), false));
                }))
                .withAction(3, independent(c -> {
                    Route r = Route.forScopes().next(c);
                    int n = Specs.limit().next(c);
                    Set<Integer> held = Specs.held().next(c);
                    return step(
                            "claimScopedExcluding(" + r + ", " + n + ", " + Specs.names(held) + ")",
                            s -> claim(s, r, n, held, true));
                }))
                // O: single-row and workflow transitions
                .withAction(3, independent(Specs.keyIndex().map(k -> settle(Settle.COMPLETE, k))))
                .withAction(3, independent(Specs.keyIndex().map(k -> settle(Settle.FAIL, k))))
                .withAction(2, independent(Specs.keyIndex().map(k -> settle(Settle.CANCEL, k))))
                .withAction(
                        3,
                        independent(c -> retry(
                                Specs.keyIndex().next(c),
                                Gen.between(0, 3).next(c),
                                Specs.steps(-2, 4).next(c))))
                .withAction(
                        1,
                        independent(Specs.workflowIndex()
                                .map(w -> step(
                                        "cancelWorkflowRows(w" + w + ")",
                                        s -> s.both(
                                                "cancelWorkflowRows(w" + w + ")",
                                                () -> await(s.store.cancelWorkflowRows(Pools.workflow(w))),
                                                () -> s.model.cancelWorkflowRows(Pools.workflow(w)))))))
                .withAction(
                        3,
                        independent(c -> redrive(
                                Specs.keyIndex().next(c), Gen.of(false, true).next(c))))
                .withAction(
                        2,
                        independent(c -> redriveWorkflow(
                                Specs.workflowIndex().next(c),
                                Gen.of(false, true).next(c))))
                // the dispatcher's own flow: settle, retry or heartbeat a row it claimed; redrive a dead letter
                .withAction(4, onClaimedRow())
                .withAction(1, onFailedRow())
                // O: re-arms, stale claims, heartbeat, pruning
                .withAction(
                        2,
                        independent(RowSpec.lists()
                                .map(rows -> step("rearmPending(" + rows + ")", s -> rearmPending(s, rows)))))
                .withAction(
                        1,
                        independent(c -> listStaleClaimed(
                                Specs.steps(-4, 2).next(c), Specs.limit().next(c))))
                .withAction(
                        2,
                        independent(c -> rearmStaleClaimed(
                                Specs.steps(-4, 2).next(c),
                                Specs.steps(-2, 4).next(c),
                                Specs.limit().next(c))))
                .withAction(2, independent(Specs.keyIndex().list(3).map(StoreActions::heartbeat)))
                .withAction(
                        1,
                        independent(c -> pruneSettled(
                                Specs.steps(-4, 2).next(c), Gen.between(1, 3).next(c))))
                // T: timers
                .withAction(
                        3,
                        independent(c -> scheduleTimer(
                                Specs.workflowIndex().next(c),
                                Gen.between(0, Pools.TIMERS.size() - 1).next(c),
                                Specs.steps(-2, 2).next(c))))
                .withAction(1, independent(Specs.steps(-4, 4).map(StoreActions::expiredTimers)))
                // R and O: reads
                .withAction(
                        1,
                        independent(Specs.workflowIndex()
                                .map(w -> step(
                                        "readHistory(w" + w + ")",
                                        s -> s.both(
                                                "readHistory(w" + w + ")",
                                                () -> await(s.store.readHistory(Pools.workflow(w))),
                                                () -> s.model.readHistory(Pools.workflow(w)))))))
                .withAction(
                        1,
                        independent(c -> readHistoryFrom(
                                Specs.workflowIndex().next(c),
                                Gen.between(-4, 2, 0).next(c))))
                .withAction(2, independent(Gen.of(Listing.class).map(StoreActions::listing)))
                .withAction(
                        1,
                        independent(Gen.between(0, Pools.COUNTED_NAMESPACES.size() - 1)
                                .map(StoreActions::counts)))
                .withAction(
                        1,
                        independent(Gen.between(0, Pools.COUNTED_NAMESPACES.size() - 1)
                                .list(3)
                                .map(StoreActions::countClaimedByNamespace)))
                // S: closing and reopening the file changes nothing observable
                .withAction(1, independent(Gen.constant(step("reopen", ModelledStore::reopen))))
                // the clock
                .withAction(
                        5,
                        independent(Gen.between(0, 6)
                                .map(n -> step(
                                        "advance(" + Specs.signed(n) + "s)",
                                        s -> s.clock.advance(Pools.STEP.multipliedBy(n))))))
                .withAction(
                        1, independent(Gen.constant(step("advance(1ns)", s -> s.clock.advance(Duration.ofNanos(1))))));
    }

    /** What a dispatcher does with a row it holds. */
    enum Dispatch {
        COMPLETE,
        RETRY,
        FAIL,
        HEARTBEAT,
        CANCEL
    }

    /** Picks a row that is claimed right now (state-dependent), so the claim → settle path is common. */
    private static Action<ModelledStore> onClaimedRow() {
        return Action.dependent(
                s -> !s.model.keys(OutboxStatus.CLAIMED).isEmpty(),
                (s, c) -> dispatch(
                        Gen.of(s.model.keys(OutboxStatus.CLAIMED)).next(c),
                                Gen.of(Dispatch.class).next(c),
                        Gen.between(0, 3).next(c), Specs.steps(-2, 4).next(c)));
    }

    private static Step<ModelledStore> dispatch(String key, Dispatch d, int nextAttempt, int visibleSteps) {
        int k = Pools.KEYS.indexOf(key);
        return switch (d) {
            case COMPLETE -> settle(Settle.COMPLETE, k);
            case FAIL -> settle(Settle.FAIL, k);
            case CANCEL -> settle(Settle.CANCEL, k);
            case RETRY -> retry(k, nextAttempt, visibleSteps);
            case HEARTBEAT -> heartbeat(List.of(k));
        };
    }

    /** Picks a row that is dead-lettered right now (state-dependent), so redrive finds one. */
    private static Action<ModelledStore> onFailedRow() {
        return Action.dependent(
                s -> !s.model.keys(OutboxStatus.FAILED).isEmpty(),
                (s, c) -> redrive(
                        Pools.KEYS.indexOf(
                                Gen.of(s.model.keys(OutboxStatus.FAILED)).next(c)),
                        Gen.of(false, true).next(c)));
    }

    private static Action<ModelledStore> independent(Gen<Step<ModelledStore>> steps) {
        return Action.independent(steps);
    }

    private static Step<ModelledStore> step(String description, Consumer<ModelledStore> body) {
        return new Step<>(description, body);
    }

    /** The single-row settles: O29, O31, O32 (O33, O34). */
    enum Settle {
        COMPLETE,
        FAIL,
        CANCEL
    }

    private static Step<ModelledStore> settle(Settle verb, int keyIndex) {
        String key = Pools.KEYS.get(keyIndex);
        String what = switch (verb) {
                    case COMPLETE -> "complete";
                    case FAIL -> "fail";
                    case CANCEL -> "settleCancelled";
                }
                + "(" + Pools.shortKey(key) + ")";
        return step(what, s -> {
            switch (verb) {
                case COMPLETE -> s.perform(what, () -> s.store.complete(key), () -> s.model.complete(key));
                case FAIL -> s.perform(what, () -> s.store.fail(key), () -> s.model.fail(key));
                case CANCEL -> s.perform(what, () -> s.store.settleCancelled(key), () -> s.model.settleCancelled(key));
            }
        });
    }

    // ---------------------------------------------------------------- E

    private static void append(ModelledStore s, AppendSpec spec) {
        WorkflowId w = Pools.workflow(spec.workflow());
        long head = s.model.head(w);
        long expected = spec.guard().resolve(head);
        Instant now = s.clock.instant();
        List<Event> events = new ArrayList<>();
        List<Long> seqs = new ArrayList<>();
        for (int i = 0; i < spec.kinds().size(); i++) {
            long seq = Math.max(0, expected + 1 + i + (i == spec.breakAt() ? spec.delta() : 0));
            boolean foreign = spec.foreignEnvelope() && i == spec.kinds().size() - 1;
            WorkflowId envelope = foreign ? Pools.workflow((spec.workflow() + 1) % Pools.WORKFLOWS.size()) : w;
            events.add(spec.kinds().get(i).build(envelope, seq, now));
            seqs.add(seq);
        }
        List<OutboxRow> rows = spec.rows().stream().map(r -> r.build(now)).toList();
        String what = (spec.withOutbox() ? "appendWithOutbox" : "append") + " to w" + spec.workflow() + " (head " + head
                + ") with expectedSeq " + expected + ", seqs " + seqs;
        if (spec.withOutbox()) {
            s.perform(
                    what,
                    () -> s.store.appendWithOutbox(w, events, expected, rows),
                    () -> s.model.appendWithOutbox(w, events, expected, rows));
        } else {
            s.perform(
                    what,
                    () -> s.store.append(w, events, expected),
                    () -> s.model.appendWithOutbox(w, events, expected, List.of()));
        }
    }

    // ---------------------------------------------------------------- O

    private static void appendOutboxBatch(ModelledStore s, List<RowSpec> specs) {
        Instant now = s.clock.instant();
        List<OutboxRow> rows = specs.stream().map(r -> r.build(now)).toList();
        s.perform("appendOutboxBatch", () -> s.store.appendOutboxBatch(rows), () -> s.model.appendOutboxBatch(rows));
    }

    private static void claim(ModelledStore s, Route route, int limit, Set<Integer> heldIndices, boolean excluding) {
        ClaimScope scope = route == null ? null : route.scope();
        Set<WorkflowId> held = Specs.workflows(heldIndices);
        String what = (scope == null ? "claim" : "claimScoped") + (excluding ? "Excluding" : "") + "("
                + (scope == null ? "" : Pools.scope(scope) + ", ") + "limit " + limit
                + (excluding ? ", held " + Specs.names(heldIndices) : "") + ") at t=" + Pools.offset(s.clock.instant());
        Supplier<List<OutboxRow>> onStore;
        if (scope == null) {
            onStore = excluding ? () -> await(s.store.claimExcluding(limit, held)) : () -> await(s.store.claim(limit));
        } else {
            onStore = excluding
                    ? () -> await(s.store.claimScopedExcluding(scope, limit, held))
                    : () -> await(s.store.claimScoped(scope, limit));
        }
        s.both(what, onStore, () -> s.model.claim(scope, limit, held));
    }

    private static Step<ModelledStore> retry(int keyIndex, int nextAttempt, int visibleSteps) {
        String key = Pools.KEYS.get(keyIndex);
        String what = "retry(" + Pools.shortKey(key) + ", " + nextAttempt + ", now" + Specs.signed(visibleSteps) + ")";
        return step(what, s -> {
            Instant visibleAfter = Pools.at(s.clock.instant(), visibleSteps);
            s.perform(
                    what,
                    () -> s.store.retry(key, nextAttempt, visibleAfter),
                    () -> s.model.retry(key, nextAttempt, visibleAfter));
        });
    }

    private static Step<ModelledStore> redrive(int keyIndex, boolean reset) {
        String key = Pools.KEYS.get(keyIndex);
        String what = "redrive(" + Pools.shortKey(key) + ", reset=" + reset + ")";
        return step(
                what, s -> s.both(what, () -> await(s.store.redrive(key, reset)), () -> s.model.redrive(key, reset)));
    }

    private static Step<ModelledStore> redriveWorkflow(int w, boolean reset) {
        String what = "redriveWorkflow(w" + w + ", reset=" + reset + ")";
        return step(
                what,
                s -> s.both(
                        what,
                        () -> await(s.store.redriveWorkflow(Pools.workflow(w), reset)),
                        () -> s.model.redriveWorkflow(Pools.workflow(w), reset)));
    }

    private static void rearmPending(ModelledStore s, List<RowSpec> specs) {
        Instant now = s.clock.instant();
        List<OutboxRow> rows = specs.stream().map(r -> r.build(now)).toList();
        s.perform("rearmPending", () -> s.store.rearmPending(rows), () -> s.model.rearmPending(rows));
    }

    private static Step<ModelledStore> listStaleClaimed(int olderSteps, int limit) {
        String what = "listStaleClaimed(now" + Specs.signed(olderSteps) + ", " + limit + ")";
        return step(what, s -> {
            Instant olderThan = Pools.at(s.clock.instant(), olderSteps);
            s.both(
                    what,
                    () -> await(s.store.listStaleClaimed(olderThan, limit)),
                    () -> s.model.listStaleClaimed(olderThan, limit));
        });
    }

    private static Step<ModelledStore> rearmStaleClaimed(int olderSteps, int visibleSteps, int limit) {
        String what = "rearmStaleClaimed(now" + Specs.signed(olderSteps) + ", now" + Specs.signed(visibleSteps) + ", "
                + limit + ")";
        return step(what, s -> {
            Instant olderThan = Pools.at(s.clock.instant(), olderSteps);
            Instant visibleAfter = Pools.at(s.clock.instant(), visibleSteps);
            s.both(
                    what,
                    () -> await(s.store.rearmStaleClaimed(olderThan, visibleAfter, limit)),
                    () -> s.model.rearmStaleClaimed(olderThan, visibleAfter, limit));
        });
    }

    private static Step<ModelledStore> heartbeat(List<Integer> keyIndices) {
        List<String> keys = keyIndices.stream().map(Pools.KEYS::get).toList();
        String what = "heartbeat(" + keys.stream().map(Pools::shortKey).toList() + ")";
        return step(what, s -> s.both(what, () -> await(s.store.heartbeat(keys)), () -> s.model.heartbeat(keys)));
    }

    private static Step<ModelledStore> pruneSettled(int cutoffSteps, int batchSize) {
        String what = "pruneSettled(now" + Specs.signed(cutoffSteps) + ", " + batchSize + ")";
        return step(what, s -> {
            Instant cutoff = Pools.at(s.clock.instant(), cutoffSteps);
            s.both(
                    what,
                    () -> await(s.store.pruneSettled(cutoff, batchSize)),
                    () -> s.model.pruneSettled(cutoff, batchSize));
        });
    }

    // ---------------------------------------------------------------- T

    private static Step<ModelledStore> scheduleTimer(int w, int timer, int fireSteps) {
        TimerId t = Pools.TIMERS.get(timer);
        String what = "scheduleTimer(w" + w + ", " + t.canonicalText() + ", now" + Specs.signed(fireSteps) + ")";
        return step(what, s -> {
            Instant fireAt = Pools.at(s.clock.instant(), fireSteps);
            s.perform(
                    what,
                    () -> s.store.scheduleTimer(Pools.workflow(w), t, fireAt),
                    () -> s.model.scheduleTimer(Pools.workflow(w), t, fireAt));
        });
    }

    private static Step<ModelledStore> expiredTimers(int asOfSteps) {
        String what = "expiredTimers(now" + Specs.signed(asOfSteps) + ")";
        return step(what, s -> {
            Instant asOf = Pools.at(s.clock.instant(), asOfSteps);
            s.both(what, () -> await(s.store.expiredTimers(asOf)), () -> s.model.expiredTimers(asOf));
        });
    }

    // ---------------------------------------------------------------- reads

    private static Step<ModelledStore> readHistoryFrom(int w, int fromDelta) {
        String what = "readHistoryFrom(w" + w + ", head" + (fromDelta >= 0 ? "+" : "") + fromDelta + ")";
        return step(what, s -> {
            WorkflowId id = Pools.workflow(w);
            long from = Math.max(0, s.model.head(id) + fromDelta);
            s.both(
                    what + " = from " + from,
                    () -> await(s.store.readHistoryFrom(id, from)),
                    () -> s.model.readHistoryFrom(id, from));
        });
    }

    /** The argument-free listings. */
    enum Listing {
        WORKFLOW_IDS("listWorkflowIds"),
        ACTIVE("listActive"),
        PAUSED("listPaused"),
        UNSETTLED("listUnsettledWorkflowIds"),
        PENDING_ROUTES("pendingRoutes");

        private final String label;

        Listing(String label) {
            this.label = label;
        }
    }

    private static Step<ModelledStore> listing(Listing l) {
        return step(l.label + "()", s -> {
            switch (l) {
                case WORKFLOW_IDS ->
                    s.both("listWorkflowIds", () -> await(s.store.listWorkflowIds()), s.model::listWorkflowIds);
                case ACTIVE -> s.both("listActive", () -> await(s.store.listActive()), s.model::listActive);
                case PAUSED -> s.both("listPaused", () -> await(s.store.listPaused()), s.model::listPaused);
                case UNSETTLED ->
                    s.both(
                            "listUnsettledWorkflowIds",
                            () -> await(s.store.listUnsettledWorkflowIds()),
                            s.model::listUnsettledWorkflowIds);
                case PENDING_ROUTES ->
                    s.both(
                            "pendingRoutes at t=" + Pools.offset(s.clock.instant()),
                            () -> await(s.store.pendingRoutes()),
                            s.model::pendingRoutes);
            }
        });
    }

    private static Step<ModelledStore> counts(int ns) {
        String namespace = Pools.COUNTED_NAMESPACES.get(ns);
        return step("counts(" + namespace + ")", s -> {
            s.both(
                    "countInflight(" + namespace + ")",
                    () -> await(s.store.countInflight(namespace)),
                    () -> s.model.countInflight(namespace));
            s.both(
                    "countClaimed(" + namespace + ")",
                    () -> await(s.store.countClaimed(namespace)),
                    () -> s.model.countClaimed(namespace));
        });
    }

    private static Step<ModelledStore> countClaimedByNamespace(List<Integer> ns) {
        List<String> namespaces = ns.stream().map(Pools.COUNTED_NAMESPACES::get).toList();
        String what = "countClaimedByNamespace(" + namespaces + ")";
        return step(
                what,
                s -> s.both(
                        what,
                        () -> await(s.store.countClaimedByNamespace(namespaces)),
                        () -> s.model.countClaimedByNamespace(namespaces)));
    }
}
