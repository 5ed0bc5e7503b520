package dev.durablestore.sqlite.model;

import static dev.durablestore.sqlite.model.ModelledStore.await;

import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.TimerId;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.Event;
import dev.durablestore.sqlite.model.SequenceRunner.Action;
import dev.durablestore.sqlite.model.SequenceRunner.Step;
import dev.durablestore.sqlite.model.Specs.AppendSpec;
import dev.durablestore.sqlite.model.Specs.ClaimSpec;
import dev.durablestore.sqlite.model.Specs.RowSpec;
import dev.durablestore.sqlite.model.Specs.SettlementSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The actions of the generated sequences: the appends, history reads and listings of group E/R,
 * timers (T), and every outbox operation (O, plus heartbeat, redrive and pruneSettled), together
 * with reopening the file and moving the test clock. Not covered here: {@code query},
 * {@code readRunChain}, {@code validateStoredEvents} and the asynchronous {@code claimStream}.
 *
 * <p>A claim is one action over every shape of {@link dev.durablestore.api.ClaimRequest} (limit,
 * route or none, held workflows, dispatch policy); a settle is a generated
 * {@link dev.durablestore.api.Settlement}, by key ({@code settleKeys}) or fenced by a claim
 * ({@code settle}).
 *
 * <p>Most actions are generated independently of the state and resolve their relative parameters
 * against the model when they run; four pick a row that is claimed, was returned by a claim, or
 * is dead-lettered at that moment, so the dispatcher's claim → settle/heartbeat → redrive path is
 * common and a fenced settle meets claims that have moved on (settled, re-armed, claimed again).
 * Each action calls the store and the model and compares what they return
 * ({@link ModelledStore#both}).
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
                // O: claims, one request of every shape: limit, route or none, held workflows, policy
                .withAction(14, independent(ClaimSpec.any().map(c -> step(c.toString(), s -> claim(s, c)))))
                // O: settles by key, unfenced: one key or several, any settlement
                .withAction(
                        11,
                        independent(c -> settleKeys(
                                Specs.keyIndices().next(c), SettlementSpec.any().next(c))))
                // O: workflow transitions
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
                // the dispatcher's own flow: settle or heartbeat a row it claimed; settle a claim that may
                // have moved on; lose a lease to the reaper and another claim; redrive a dead letter
                .withAction(4, onClaimedRow())
                .withAction(2, onEarlierClaim())
                .withAction(1, onLostLease())
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
                .withAction(2, onEarlierClaims())
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
        /** Settles it, fenced by its claim (W6); by key when it was staged as claimed. */
        SETTLE,
        /** Settles its key, unfenced. */
        SETTLE_KEY,
        /** Refreshes its claim time, as every claim that returned it (current or moved on) would (W13). */
        HEARTBEAT
    }

    /** Mostly a settle, as a dispatcher mostly settles what it claimed. */
    private static final Gen<Dispatch> DISPATCH = Gen.frequency(
            Gen.weight(3, Dispatch.SETTLE), Gen.weight(1, Dispatch.SETTLE_KEY), Gen.weight(1, Dispatch.HEARTBEAT));

    /** Picks a row that is claimed right now (state-dependent), so the claim → settle path is common. */
    private static Action<ModelledStore> onClaimedRow() {
        return Action.dependent(s -> !s.model.keys(OutboxStatus.CLAIMED).isEmpty(), (s, c) -> {
            String key = Gen.of(s.model.keys(OutboxStatus.CLAIMED)).next(c);
            Dispatch d = DISPATCH.next(c);
            SettlementSpec how = SettlementSpec.any().next(c);
            int k = Pools.KEYS.indexOf(key);
            return switch (d) {
                case SETTLE ->
                    s.heldClaim(key).map(claimed -> settle(claimed, how)).orElseGet(() -> settleKeys(List.of(k), how));
                case SETTLE_KEY -> settleKeys(List.of(k), how);
                case HEARTBEAT ->
                    heartbeat(s.claimedRows().stream()
                            .filter(c2 -> c2.row().dispatchKey().equals(key))
                            .toList());
            };
        });
    }

    /**
     * Heartbeats up to three rows claims returned (state-dependent), still held by those claims or
     * not: W13 refreshes the first and leaves the others out.
     */
    private static Action<ModelledStore> onEarlierClaims() {
        return Action.dependent(
                s -> !s.claimedRows().isEmpty(),
                (s, c) -> heartbeat(Gen.of(s.claimedRows()).list(3).next(c)));
    }

    /**
     * Picks a row some claim returned (state-dependent), still claimed under it or not: a fenced
     * settle applies to the first and fails as stale on the others (W6).
     */
    private static Action<ModelledStore> onEarlierClaim() {
        return Action.dependent(
                s -> !s.claimedRows().isEmpty(),
                (s, c) -> settle(
                        Gen.of(s.claimedRows()).next(c), SettlementSpec.any().next(c)));
    }

    /**
     * A dispatcher loses its lease (state-dependent: it holds a claimed row): the lease reaper
     * re-arms every claimed row, visible now, and a claim takes every due row again, this one
     * included; then the first dispatcher settles its row, fenced by the claim it holds, which is
     * no longer current (W6: another claim took it).
     */
    private static Action<ModelledStore> onLostLease() {
        return Action.dependent(s -> !s.heldClaims().isEmpty(), (s, c) -> {
            ModelledStore.Claimed lost = Gen.of(s.heldClaims()).next(c);
            SettlementSpec how = SettlementSpec.any().next(c);
            List<Step<ModelledStore>> steps = List.of(
                    rearmStaleClaimed(1, 0, Pools.KEYS.size()),
                    step("claim(limit " + Pools.KEYS.size() + ")", t -> claim(t, ClaimSpec.plain(Pools.KEYS.size()))),
                    settle(lost, how));
            return step(
                    "lease lost: " + steps.stream().map(Step::description).toList(),
                    t -> steps.forEach(one -> one.body().accept(t)));
        });
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

    /** Settles keys, unfenced (O29–O34, O53–O58); the settlement's instant is resolved when the step runs. */
    private static Step<ModelledStore> settleKeys(List<Integer> keyIndices, SettlementSpec how) {
        List<String> keys = keyIndices.stream().map(Pools.KEYS::get).toList();
        String what = "settleKeys(" + keys.stream().map(Pools::shortKey).toList() + ", " + how + ")";
        return step(what, s -> {
            Settlement settlement = how.resolve(s.clock.instant());
            s.perform(what, () -> s.store.settleKeys(keys, settlement), () -> s.model.settleKeys(keys, settlement));
        });
    }

    /** Settles a row as a claim returned it, fenced by that claim (W6). */
    private static Step<ModelledStore> settle(ModelledStore.Claimed claimed, SettlementSpec how) {
        String key = claimed.row().dispatchKey();
        String what = "settle(" + Pools.shortKey(key) + " of claim " + claimed.claim() + ", " + how + ")";
        return step(what, s -> {
            Settlement settlement = how.resolve(s.clock.instant());
            s.perform(
                    what,
                    () -> s.store.settle(claimed.row(), settlement),
                    () -> s.model.settle(key, claimed.claim(), settlement));
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

    private static void claim(ModelledStore s, ClaimSpec spec) {
        s.claim(spec + " at t=" + Pools.offset(s.clock.instant()), spec.build());
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

    /** W13: the rows as their claims returned them, some of them claims that moved on. */
    private static Step<ModelledStore> heartbeat(List<ModelledStore.Claimed> claims) {
        List<OutboxRow> rows = claims.stream().map(ModelledStore.Claimed::row).toList();
        List<Map.Entry<String, Long>> byClaim = claims.stream()
                .map(c -> Map.entry(c.row().dispatchKey(), c.claim()))
                .toList();
        String what = "heartbeat("
                + claims.stream()
                        .map(c -> Pools.shortKey(c.row().dispatchKey()) + " of claim " + c.claim())
                        .toList() + ")";
        return step(what, s -> s.both(what, () -> await(s.store.heartbeat(rows)), () -> s.model.heartbeat(byClaim)));
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
