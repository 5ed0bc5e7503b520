package dev.durablestore.sqlite.model;

import dev.durablestore.api.BackendException;
import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.DispatchPolicy;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxRowState;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.SequenceConflictException;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.StaleClaimException;
import dev.durablestore.api.TimerEntry;
import dev.durablestore.api.TimerId;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.WorkflowStatus;
import dev.durablestore.api.event.Event;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * An in-memory reference model of the store contract (groups E, R, T and O of STORE-CONTRACT.md,
 * with the Java resolutions) plus the Java-only outbox operations documented on
 * {@link dev.durablestore.api.OperatorStore} (heartbeat, redrive, pruneSettled).
 *
 * <p>Written from the rules, not from the SQLite code: every method names the rules it follows.
 * Deterministic given its clock, which it reads once per operation exactly as the store does.
 * Orders by canonical text everywhere (M3, O18, T4) using {@link String#compareTo}, which equals
 * code-point order for the ASCII identifiers the tests use. Failures are thrown as the exceptions
 * the store must signal.
 */
final class StoreModel {

    /** O18: {@code visibleAfter}, then dispatch key text. */
    static final Comparator<OutboxRow> CLAIM_ORDER =
            Comparator.comparing(OutboxRow::visibleAfter).thenComparing(Comparator.comparing(OutboxRow::dispatchKey));

    /** O39: {@code claimedAt}, then dispatch key text. */
    static final Comparator<OutboxRow> STALE_ORDER =
            Comparator.comparing(OutboxRow::claimedAt).thenComparing(Comparator.comparing(OutboxRow::dispatchKey));

    /** T4: fire time, workflow id text, canonical timer-id text. */
    static final Comparator<TimerEntry> TIMER_ORDER = Comparator.comparing(TimerEntry::fireAt)
            .thenComparing(t -> t.workflowId().toString())
            .thenComparing(t -> t.timerId().canonicalText());

    /** O48 [J]: namespace, task queue, then node with absent first. */
    static final Comparator<ClaimScope> ROUTE_ORDER = Comparator.comparing(ClaimScope::namespace)
            .thenComparing(ClaimScope::taskQueue)
            .thenComparing(ClaimScope::node, Comparator.nullsFirst(Comparator.naturalOrder()));

    private record TimerKey(String workflowId, String timerId) {}

    private final Clock clock;
    /** Histories by workflow id text (M3 order). */
    private final TreeMap<String, List<Event>> histories = new TreeMap<>();
    /** Outbox rows by dispatch key (O18 text order). */
    private final TreeMap<String, OutboxRow> rows = new TreeMap<>();
    /** When each terminal row was settled (the cutoff of pruneSettled). */
    private final Map<String, Instant> settledAt = new HashMap<>();
    /**
     * The claim that last took each row, numbered from 1: the model's stand-in for the store's
     * random claim tokens (W6). A row staged as claimed was taken by no claim.
     */
    private final Map<String, Long> claimOf = new HashMap<>();
    /** The node each row was last claimed as (O65); absent for none. */
    private final Map<String, String> claimedBy = new HashMap<>();
    /** The claims made so far. */
    private long claims;

    private final Map<TimerKey, TimerEntry> timers = new HashMap<>();

    StoreModel(Clock clock) {
        this.clock = clock;
    }

    // ---------------------------------------------------------------- E: appending

    /**
     * E3–E11, E17–E22. Argument validation (X10, E11, the O6 staging check) comes first, then the
     * guard (E3, E4), then contiguity (E6); all or nothing (E7).
     */
    void appendWithOutbox(WorkflowId w, List<Event> events, long expectedSeq, List<OutboxRow> staged) {
        if (expectedSeq < 0) {
            throw new InvalidArgumentException("expectedSeq", "must not be negative");
        }
        for (int i = 0; i < events.size(); i++) {
            if (!events.get(i).workflowId().equals(w)) {
                throw new InvalidArgumentException("events[" + i + "].envelope.workflowId", "E11");
            }
        }
        requireStagingInvariant(staged);
        long head = head(w);
        if (expectedSeq != head) {
            throw new SequenceConflictException(expectedSeq, head);
        }
        for (int i = 0; i < events.size(); i++) {
            long wanted = expectedSeq + 1 + i;
            if (events.get(i).seq() != wanted) {
                throw new BackendException("event sequence must be contiguous: expected seq " + wanted + " but event "
                        + i + " has seq " + events.get(i).seq());
            }
        }
        Instant now = clock.instant();
        if (!events.isEmpty()) {
            histories.computeIfAbsent(w.toString(), k -> new ArrayList<>()).addAll(events);
        }
        insertOrIgnore(staged, now);
    }

    /** O8–O11: insert-or-ignore by key, values as supplied, one transaction. */
    void appendOutboxBatch(List<OutboxRow> staged) {
        requireStagingInvariant(staged);
        insertOrIgnore(staged, clock.instant());
    }

    private static void requireStagingInvariant(List<OutboxRow> staged) {
        for (int i = 0; i < staged.size(); i++) {
            OutboxRow r = staged.get(i);
            if ((r.status() == OutboxStatus.CLAIMED) != (r.claimedAt() != null)) {
                throw new InvalidArgumentException("rows[" + i + "].claimedAt", "O6");
            }
        }
    }

    private void insertOrIgnore(List<OutboxRow> staged, Instant now) {
        for (OutboxRow r : staged) {
            if (!rows.containsKey(r.dispatchKey())) {
                insert(r);
                if (!r.isLive()) {
                    settledAt.put(r.dispatchKey(), now);
                }
            }
        }
    }

    /** A new row: no claim has taken it, whatever a pruned row of the same key had. */
    private void insert(OutboxRow r) {
        rows.put(r.dispatchKey(), r);
        claimOf.remove(r.dispatchKey());
        claimedBy.remove(r.dispatchKey());
    }

    // ---------------------------------------------------------------- R: reads

    /** E2. */
    long head(WorkflowId w) {
        List<Event> h = histories.get(w.toString());
        return h == null ? 0 : h.get(h.size() - 1).seq();
    }

    /** R1, R2. */
    List<Event> readHistory(WorkflowId w) {
        return List.copyOf(histories.getOrDefault(w.toString(), List.of()));
    }

    /** R3–R7. */
    List<Event> readHistoryFrom(WorkflowId w, long fromSeq) {
        if (fromSeq < 0) {
            throw new InvalidArgumentException("fromSeq", "must not be negative");
        }
        return readHistory(w).stream().filter(e -> e.seq() >= fromSeq).toList();
    }

    /** R9. */
    List<WorkflowId> listWorkflowIds() {
        return histories.keySet().stream().map(WorkflowId::parse).toList();
    }

    /** R19, R21, R23. */
    List<WorkflowId> listActive() {
        return withStatus(WorkflowStatus.RUNNING);
    }

    /** R20, R21, R23. */
    List<WorkflowId> listPaused() {
        return withStatus(WorkflowStatus.PAUSED);
    }

    private List<WorkflowId> withStatus(WorkflowStatus status) {
        List<WorkflowId> ids = new ArrayList<>();
        histories.forEach((w, events) -> {
            if (projectStatus(events) == status) {
                ids.add(WorkflowId.parse(w));
            }
        });
        return ids;
    }

    /** R10, R11: scan backwards to the last lifecycle event. */
    static WorkflowStatus projectStatus(List<Event> events) {
        for (int i = events.size() - 1; i >= 0; i--) {
            switch (events.get(i).kind()) {
                case WORKFLOW_STARTED, WORKFLOW_REOPENED, WORKFLOW_RESUMED:
                    return WorkflowStatus.RUNNING;
                case WORKFLOW_COMPLETED:
                    return WorkflowStatus.COMPLETED;
                case WORKFLOW_FAILED:
                    return WorkflowStatus.FAILED;
                case WORKFLOW_CANCELLED:
                    return WorkflowStatus.CANCELLED;
                case WORKFLOW_TIMED_OUT:
                    return WorkflowStatus.TIMED_OUT;
                case WORKFLOW_CONTINUED_AS_NEW:
                    return WorkflowStatus.CONTINUED_AS_NEW;
                case WORKFLOW_PAUSED:
                    return WorkflowStatus.PAUSED;
                default:
                    break;
            }
        }
        return WorkflowStatus.RUNNING;
    }

    // ---------------------------------------------------------------- T: timers

    /** T1, T2: upsert by (workflow, timer). */
    void scheduleTimer(WorkflowId w, TimerId t, Instant fireAt) {
        timers.put(new TimerKey(w.toString(), t.canonicalText()), new TimerEntry(w, t, fireAt));
    }

    /** T3–T5: due timers, inclusive, read-only. */
    List<TimerEntry> expiredTimers(Instant asOf) {
        return timers.values().stream()
                .filter(t -> !t.fireAt().isAfter(asOf))
                .sorted(TIMER_ORDER)
                .toList();
    }

    // ---------------------------------------------------------------- O: claiming

    /**
     * Every claim request (O16–O28, O63–O65). A route cap without a scope and a node cap without a
     * scope's node are refused (O64, O65), whatever the limit; a limit of 0 takes nothing (O16).
     * Otherwise: due (O17), admitted (O7; every route without a scope, O22) and not held (O23)
     * rows, in O18 order, the first {@code limit} of them (held rows never use up the limit, O24),
     * fewer when a cap leaves less room: the cap minus the claimed rows of the scope's route (O64),
     * the node cap minus those of them claimed as the scope's node (O65). Under serial dispatch a
     * row is a candidate only when no row of its workflow is claimed and no pending one comes
     * before it by ordinal, then key (O63). Each taken row becomes {@code claimed} with
     * {@code claimedAt = now} (O20), taken by a new claim and claimed as the scope's node.
     */
    List<OutboxRow> claim(ClaimRequest request) {
        ClaimScope scope = request.scope();
        DispatchPolicy policy = request.policy();
        if (scope == null && policy.concurrencyCap().isPresent()) {
            throw new InvalidArgumentException("policy.concurrencyCap", "needs a scope (O64)");
        }
        if (policy.nodeConcurrencyCap().isPresent() && (scope == null || scope.node() == null)) {
            throw new InvalidArgumentException("policy.nodeConcurrencyCap", "needs a scope with a node (O65)");
        }
        long room = request.limit();
        if (policy.concurrencyCap().isPresent()) {
            room = Math.min(room, policy.concurrencyCap().getAsInt() - count(r -> claimedOnRoute(scope, r)));
        }
        if (policy.nodeConcurrencyCap().isPresent()) {
            room = Math.min(
                    room,
                    policy.nodeConcurrencyCap().getAsInt()
                            - count(r ->
                                    claimedOnRoute(scope, r) && scope.node().equals(claimedBy.get(r.dispatchKey()))));
        }
        if (room <= 0) {
            return List.of();
        }
        Instant now = clock.instant();
        List<OutboxRow> taken = rows.values().stream()
                .filter(r ->
                        r.status() == OutboxStatus.PENDING && !r.visibleAfter().isAfter(now))
                .filter(r -> scope == null || admits(scope, r))
                .filter(r -> !request.heldWorkflows().contains(r.workflowId()))
                .filter(r -> !policy.serialPerWorkflow() || firstOfItsWorkflow(r))
                .sorted(CLAIM_ORDER)
                .limit(room)
                .map(r -> r.withStatus(OutboxStatus.CLAIMED, now))
                .toList();
        long claim = ++claims;
        for (OutboxRow r : taken) {
            rows.put(r.dispatchKey(), r);
            claimOf.put(r.dispatchKey(), claim);
            if (scope == null || scope.node() == null) {
                claimedBy.remove(r.dispatchKey());
            } else {
                claimedBy.put(r.dispatchKey(), scope.node());
            }
        }
        return taken;
    }

    /** O64: a claimed row of the scope's route (namespace and task queue), on any node. */
    private static boolean claimedOnRoute(ClaimScope scope, OutboxRow r) {
        return r.status() == OutboxStatus.CLAIMED
                && r.namespace().equals(scope.namespace())
                && r.taskQueue().equals(scope.taskQueue());
    }

    /** O63: no row of the workflow is claimed and no pending one comes before this one (ordinal, key). */
    private boolean firstOfItsWorkflow(OutboxRow candidate) {
        return rows.values().stream()
                .filter(r -> r.workflowId().equals(candidate.workflowId()))
                .noneMatch(r -> r.status() == OutboxStatus.CLAIMED
                        || (r.status() == OutboxStatus.PENDING
                                && (r.ordinal() < candidate.ordinal()
                                        || (r.ordinal() == candidate.ordinal()
                                                && r.dispatchKey().compareTo(candidate.dispatchKey()) < 0))));
    }

    /**
     * @param key a row's key
     * @return the claim that took the row, while it is still claimed under it; empty for a row that
     *     is not claimed or was staged as claimed
     */
    Optional<Long> currentClaim(String key) {
        OutboxRow r = rows.get(key);
        return r == null || r.status() != OutboxStatus.CLAIMED
                ? Optional.empty()
                : Optional.ofNullable(claimOf.get(key));
    }

    /** O7, written out rather than delegated to {@link ClaimScope#admits}. */
    static boolean admits(ClaimScope scope, OutboxRow r) {
        return scope.namespace().equals(r.namespace())
                && scope.taskQueue().equals(r.taskQueue())
                && (r.node() == null || (scope.node() != null && scope.node().equals(r.node())));
    }

    // ---------------------------------------------------------------- O: single-row transitions

    /**
     * The settles by key, unfenced (O29–O34, O53–O58): every distinct key, one settlement, the
     * clock read once. Live rows only (O34); an unknown key creates nothing (O33).
     */
    void settleKeys(Collection<String> keys, Settlement settlement) {
        Instant now = clock.instant();
        for (String key : new TreeSet<>(keys)) {
            OutboxRow r = rows.get(key);
            if (r != null && r.isLive()) {
                apply(r, settlement, now);
            }
        }
    }

    /**
     * The fenced settle (W6): applies only while the row is still claimed under {@code claim};
     * otherwise (re-armed, claimed again, settled) it fails with {@link StaleClaimException} and
     * changes nothing.
     *
     * @param key the row's key
     * @param claim the claim that returned the row being settled
     * @param settlement how
     */
    void settle(String key, long claim, Settlement settlement) {
        if (!currentClaim(key).equals(Optional.of(claim))) {
            throw new StaleClaimException("settle", key, claim);
        }
        apply(rows.get(key), settlement, clock.instant());
    }

    /**
     * O29–O32: done, failed or cancelled with the claim cleared and the settle time kept; a retry
     * is pending again with the new attempt and visibility, from now plus the delay for
     * {@link Settlement#retryAfter} (O58).
     */
    private void apply(OutboxRow r, Settlement settlement, Instant now) {
        String key = r.dispatchKey();
        if (settlement.kind() == Settlement.Kind.RETRY) {
            Instant visibleAfter =
                    settlement.delay() == null ? settlement.visibleAfter() : now.plus(settlement.delay());
            rows.put(
                    key,
                    r.withStatus(OutboxStatus.PENDING, null)
                            .withAttempt(settlement.nextAttempt())
                            .withVisibleAfter(visibleAfter));
        } else {
            rows.put(key, r.withStatus(settlement.kind().status(), null));
            settledAt.put(key, now);
        }
    }

    /** O35, O36: every live row of the workflow, keys in ascending order. */
    List<String> cancelWorkflowRows(WorkflowId w) {
        Instant now = clock.instant();
        List<String> changed = new ArrayList<>();
        for (OutboxRow r : List.copyOf(rows.values())) {
            if (r.workflowId().equals(w) && r.isLive()) {
                rows.put(r.dispatchKey(), r.withStatus(OutboxStatus.CANCELLED, null));
                settledAt.put(r.dispatchKey(), now);
                changed.add(r.dispatchKey());
            }
        }
        return changed; // TreeMap iteration: ascending key order
    }

    // ---------------------------------------------------------------- O: re-arms

    /**
     * O12–O15, applied row by row in list order: a stored key (in any status, including one
     * inserted earlier in the same list) becomes pending with the supplied {@code visibleAfter},
     * keeping every other stored column; an absent key is inserted as pending with the supplied
     * values.
     */
    void rearmPending(List<OutboxRow> supplied) {
        for (OutboxRow s : supplied) {
            OutboxRow stored = rows.get(s.dispatchKey());
            if (stored != null) {
                rows.put(
                        s.dispatchKey(),
                        stored.withStatus(OutboxStatus.PENDING, null).withVisibleAfter(s.visibleAfter()));
            } else {
                insert(s.withStatus(OutboxStatus.PENDING, null));
            }
            settledAt.remove(s.dispatchKey());
        }
    }

    /** O39, O40: claimed rows with {@code claimedAt < olderThan}, read-only. */
    List<OutboxRow> listStaleClaimed(Instant olderThan, int limit) {
        if (limit < 0) {
            throw new InvalidArgumentException("limit", "must not be negative");
        }
        return rows.values().stream()
                .filter(r -> r.status() == OutboxStatus.CLAIMED
                        && r.claimedAt() != null
                        && r.claimedAt().isBefore(olderThan))
                .sorted(STALE_ORDER)
                .limit(limit)
                .toList();
    }

    /** O41, O42: exactly the rows O39 lists, back to pending, attempt kept; returns the new values. */
    List<OutboxRow> rearmStaleClaimed(Instant olderThan, Instant visibleAfter, int limit) {
        List<OutboxRow> rearmed = listStaleClaimed(olderThan, limit).stream()
                .map(r -> r.withStatus(OutboxStatus.PENDING, null).withVisibleAfter(visibleAfter))
                .toList();
        rearmed.forEach(r -> rows.put(r.dispatchKey(), r));
        return rearmed;
    }

    /**
     * W13: each row still claimed under the claim given with its key gets {@code claimedAt = now};
     * their keys, ascending, each once. A row whose claim moved on is left out and unchanged.
     */
    List<String> heartbeat(List<Map.Entry<String, Long>> claims) {
        Instant now = clock.instant();
        TreeSet<String> refreshed = new TreeSet<>();
        for (Map.Entry<String, Long> c : claims) {
            String k = c.getKey();
            if (currentClaim(k).equals(Optional.of(c.getValue()))) {
                rows.put(k, rows.get(k).withStatus(OutboxStatus.CLAIMED, now));
                refreshed.add(k);
            }
        }
        return List.copyOf(refreshed);
    }

    /** OperatorStore#redrive: a FAILED row back to pending, visible now. */
    boolean redrive(String key, boolean resetAttempt) {
        OutboxRow r = rows.get(key);
        if (r == null || r.status() != OutboxStatus.FAILED) {
            return false;
        }
        redriveRow(r, resetAttempt, clock.instant());
        return true;
    }

    /** OperatorStore#redriveWorkflow: every FAILED row of the workflow; keys ascending. */
    List<String> redriveWorkflow(WorkflowId w, boolean resetAttempt) {
        Instant now = clock.instant();
        List<String> keys = new ArrayList<>();
        for (OutboxRow r : List.copyOf(rows.values())) {
            if (r.workflowId().equals(w) && r.status() == OutboxStatus.FAILED) {
                redriveRow(r, resetAttempt, now);
                keys.add(r.dispatchKey());
            }
        }
        return keys;
    }

    private void redriveRow(OutboxRow r, boolean resetAttempt, Instant now) {
        OutboxRow next = r.withStatus(OutboxStatus.PENDING, null).withVisibleAfter(now);
        rows.put(r.dispatchKey(), resetAttempt ? next.withAttempt(0) : next);
        settledAt.remove(r.dispatchKey());
    }

    /** OperatorStore#pruneSettled: deletes terminal rows settled strictly before the cutoff. */
    long pruneSettled(Instant settledBefore, int batchSize) {
        if (batchSize < 1) {
            throw new InvalidArgumentException("batchSize", "must be at least 1");
        }
        List<String> doomed = rows.values().stream()
                .filter(r -> !r.isLive())
                .map(OutboxRow::dispatchKey)
                .filter(k -> settledAt.containsKey(k) && settledAt.get(k).isBefore(settledBefore))
                .toList();
        doomed.forEach(k -> {
            rows.remove(k);
            settledAt.remove(k);
            claimOf.remove(k);
            claimedBy.remove(k);
        });
        return doomed.size();
    }

    // ---------------------------------------------------------------- O: enumerations and counts

    /** O43. */
    List<WorkflowId> listUnsettledWorkflowIds() {
        TreeSet<String> ids = new TreeSet<>();
        rows.values().stream()
                .filter(OutboxRow::isLive)
                .forEach(r -> ids.add(r.workflowId().toString()));
        return ids.stream().map(WorkflowId::parse).toList();
    }

    /** O44, O46. */
    long countInflight(String namespace) {
        return count(r -> r.namespace().equals(namespace) && r.isLive());
    }

    /** O45, O46. */
    long countClaimed(String namespace) {
        return count(r -> r.namespace().equals(namespace) && r.status() == OutboxStatus.CLAIMED);
    }

    /** O47. */
    Map<String, Long> countClaimedByNamespace(Collection<String> namespaces) {
        Map<String, Long> counts = new LinkedHashMap<>();
        for (String ns : namespaces) {
            counts.put(ns, countClaimed(ns));
        }
        return Map.copyOf(counts);
    }

    private long count(Predicate<OutboxRow> p) {
        return rows.values().stream().filter(p).count();
    }

    /** O48: distinct routes of due rows, sorted. */
    List<ClaimScope> pendingRoutes() {
        Instant now = clock.instant();
        TreeSet<ClaimScope> routes = new TreeSet<>(ROUTE_ORDER);
        rows.values().stream()
                .filter(r ->
                        r.status() == OutboxStatus.PENDING && !r.visibleAfter().isAfter(now))
                .forEach(r -> routes.add(new ClaimScope(r.namespace(), r.taskQueue(), r.node())));
        return List.copyOf(routes);
    }

    /** O50. */
    Optional<OutboxRowState> rowState(String key) {
        OutboxRow r = rows.get(key);
        return r == null
                ? Optional.empty()
                : Optional.of(new OutboxRowState(r.status(), r.attempt(), r.visibleAfter()));
    }

    /** @return the keys of the rows in a status, ascending (for state-dependent actions) */
    List<String> keys(OutboxStatus status) {
        return rows.values().stream()
                .filter(r -> r.status() == status)
                .map(OutboxRow::dispatchKey)
                .toList();
    }

    /** A one-line summary for failure reports. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("model{heads=");
        Map<String, Long> heads = new TreeMap<>();
        histories.forEach(
                (w, h) -> heads.put(Pools.shortName(w), h.get(h.size() - 1).seq()));
        sb.append(heads).append(", rows=[");
        String sep = "";
        for (OutboxRow r : rows.values()) {
            sb.append(sep)
                    .append(Pools.shortKey(r.dispatchKey()))
                    .append('=')
                    .append(r.status().token())
                    .append("/a")
                    .append(r.attempt())
                    .append("/v")
                    .append(Pools.offset(r.visibleAfter()));
            if (r.claimedAt() != null) {
                sb.append("/c").append(Pools.offset(r.claimedAt()));
            }
            sep = ", ";
        }
        sb.append("], timers=").append(timers.size()).append('}');
        return sb.toString();
    }
}
