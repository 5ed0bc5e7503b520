package dev.durablestore.examples.demo;

import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.Payload;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.SequenceConflictException;
import dev.durablestore.api.StaleClaimException;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.WorkflowStep;
import dev.durablestore.api.WorkflowStep.Settlement;
import dev.durablestore.api.event.ActivityCompleted;
import dev.durablestore.api.event.ActivityError;
import dev.durablestore.api.event.ActivityFailed;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.event.EventEnvelope;
import dev.durablestore.api.event.WorkflowCompleted;
import dev.durablestore.api.event.WorkflowError;
import dev.durablestore.api.event.WorkflowFailed;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

/**
 * Commits each activity outcome as one workflow step ({@link ReactiveStore#commitStep}): the
 * outcome event ({@code ActivityCompleted} or {@code ActivityFailed}), the settle of the claimed
 * row that carried the activity, fenced by its claim ({@code complete}, {@code retryAfter} a
 * backoff, or {@code fail} to dead-letter it), and, when the step settles the workflow's last open
 * activity, {@code WorkflowCompleted} (or {@code WorkflowFailed} if an activity was dead-lettered).
 * One transaction: there is no moment at which the history holds an outcome whose row is still
 * claimed, or a settled row whose outcome is missing.
 *
 * <p><b>One step at a time per workflow.</b> A step names the head it extends and fails with
 * {@link SequenceConflictException} when the head moved (W3). The activities of one workflow are
 * staged together, claimed together and finish at about the same time, so steps built for them
 * independently would meet at one head: one commits, the others re-read the head and try again,
 * and k outcomes cost up to k(k+1)/2 steps. So each workflow has a <em>lane</em>: while a step of
 * the workflow is in flight, its later outcomes wait, and then go together as the next step (a step
 * may settle several rows of its workflow, W8). Two steps per burst instead of k(k+1)/2. The lane
 * keeps the workflow's {@link HistoryState}, read from the history once, so a step needs no read;
 * it is forgotten when the lane is idle and the workflow has ended. The lane's state is guarded by
 * the lane map itself: every change happens inside {@link ConcurrentHashMap#compute} on the
 * workflow's key, and a lane with a step in flight is never removed.
 *
 * <p><b>When a step fails.</b> {@link SequenceConflictException} (another writer moved the head):
 * re-read the history and plan the outcomes again. {@link StaleClaimException} (the lease reaper
 * re-armed a row, so another claim owns it now): nothing was written; that outcome is dropped,
 * failing its caller with the exception, and the rest are committed without it. Any other error
 * fails every outcome of the step; the dispatcher returns their rows to pending.
 *
 * <p><b>Redelivery.</b> Planning consults the history, so a row delivered again whose outcome the
 * history already holds (an activity already completed or dead-lettered, a failed attempt already
 * recorded) appends nothing and is only settled; its result is not {@link Settled#fresh() fresh}.
 * A store written by this class never needs it (the step settles the row with its outcome), but a
 * file written by a dispatcher that recorded outcomes and settled rows separately may.
 *
 * <p>Nothing here blocks; everything is driven by store signals.
 */
public final class WorkflowSteps {

    private static final int MAX_CONFLICT_RETRIES = 16;
    private static final long MAX_BACKOFF_MS = 60_000;

    /** How the workflow ended, if the step that settled a row also ended it. */
    public enum Ended {
        /** Not ended by this step. */
        NO,
        /** {@code WorkflowCompleted} appended. */
        COMPLETED,
        /** {@code WorkflowFailed} appended. */
        FAILED
    }

    /**
     * What the committed step did with one outcome.
     *
     * @param settlement how the row was settled: {@code COMPLETE}, {@code RETRY} or {@code FAIL}
     * @param fresh true when the step recorded the outcome; false when the history already held it
     * @param ended whether the step also ended the workflow (told to one outcome of the step)
     */
    public record Settled(Settlement settlement, boolean fresh, Ended ended) {}

    private final ReactiveStore store;
    private final DemoStats stats;
    private final long backoffMs;
    private final ConcurrentHashMap<WorkflowId, Lane> lanes = new ConcurrentHashMap<>();

    /**
     * @param store the store holding the histories and the outbox
     * @param stats counts sequence conflicts
     * @param backoffMs the first retry delay; doubled on each further dispatch, at most a minute
     */
    public WorkflowSteps(ReactiveStore store, DemoStats stats, long backoffMs) {
        this.store = store;
        this.stats = stats;
        this.backoffMs = backoffMs;
    }

    /**
     * Commits an outcome, in a step of its own or together with other outcomes of its workflow.
     *
     * @param claimed the row as its claim returned it
     * @param outcome what the attempt did
     * @return what the step did, once it is durable; fails with {@link StaleClaimException} when the
     *     row's claim is no longer current (nothing was written for it), with
     *     {@link IllegalStateException} when the workflow never scheduled the activity, and with the
     *     store's error when the step could not be committed
     */
    public Mono<Settled> commit(OutboxRow claimed, Outcome outcome) {
        return Mono.create(sink -> enqueue(new Pending(claimed, outcome, sink)));
    }

    private record Pending(OutboxRow row, Outcome outcome, MonoSink<Settled> sink) {}

    /** One workflow's queue of outcomes; {@link #busy} and {@link #waiting} change only inside {@code compute}. */
    private static final class Lane {
        final WorkflowId id;
        final List<Pending> waiting = new ArrayList<>();
        boolean busy;
        /** Read and written only by the lane's step in flight. */
        volatile HistoryState state;

        Lane(WorkflowId id) {
            this.id = id;
        }
    }

    private void enqueue(Pending p) {
        Lane[] start = new Lane[1];
        lanes.compute(p.row().workflowId(), (id, lane) -> {
            Lane l = lane != null ? lane : new Lane(id);
            l.waiting.add(p);
            if (!l.busy) {
                l.busy = true;
                start[0] = l;
            }
            return l;
        });
        if (start[0] != null) {
            next(start[0]);
        }
    }

    /**
     * Starts the lane's next step with every waiting outcome (one per row: a row delivered again
     * while its earlier delivery waits goes in the step after), or marks the lane idle, and forgets
     * it when its workflow has ended or its state is unknown.
     */
    private void next(Lane lane) {
        List<Pending> batch = new ArrayList<>();
        lanes.compute(lane.id, (id, same) -> {
            Set<String> keys = new HashSet<>();
            for (Iterator<Pending> it = lane.waiting.iterator(); it.hasNext(); ) {
                Pending p = it.next();
                if (keys.add(p.row().dispatchKey())) {
                    batch.add(p);
                    it.remove();
                }
            }
            if (!batch.isEmpty()) {
                return lane;
            }
            lane.busy = false;
            HistoryState s = lane.state;
            return s == null || s.ended ? null : lane;
        });
        if (!batch.isEmpty()) {
            step(lane, batch, 0).subscribe(null, e -> next(lane), () -> next(lane));
        }
    }

    /** Plans and commits one step; signals every outcome of the batch and never fails. */
    private Mono<Void> step(Lane lane, List<Pending> batch, int conflicts) {
        HistoryState cached = lane.state;
        Mono<HistoryState> load = cached != null ? Mono.just(cached)
                : store.readHistory(lane.id).collectList().map(HistoryState::of).doOnNext(s -> lane.state = s);
        return load.<Void>flatMap(state -> {
            Plan plan = plan(lane.id, state, batch);
            Mono<Void> write = plan.step() == null ? Mono.empty() : store.commitStep(plan.step());
            return write.then(Mono.<Void>fromRunnable(() -> {
                if (plan.step() != null) {
                    plan.step().events().forEach(state::accept);
                }
                plan.signal();
            }));
        }).onErrorResume(e -> recover(lane, batch, conflicts, e));
    }

    private Mono<Void> recover(Lane lane, List<Pending> batch, int conflicts, Throwable e) {
        if (e instanceof StaleClaimException stale) {
            // nothing was written and the cached state still holds; the row is its new owner's
            List<Pending> rest = new ArrayList<>();
            for (Pending p : batch) {
                if (p.row().dispatchKey().equals(stale.dispatchKey()) && p.row().claimToken() == stale.claimToken()) {
                    p.sink().error(e);
                } else {
                    rest.add(p);
                }
            }
            if (rest.size() < batch.size()) {
                return rest.isEmpty() ? Mono.empty() : step(lane, rest, conflicts);
            }
        }
        lane.state = null;
        if (e instanceof SequenceConflictException && conflicts < MAX_CONFLICT_RETRIES) {
            stats.onConflict();
            return step(lane, batch, conflicts + 1);
        }
        batch.forEach(p -> p.sink().error(e));
        return Mono.empty();
    }

    /**
     * A planned step and what to tell each outcome once it commits.
     *
     * @param step the step, or null when no outcome of the batch can be recorded
     * @param batch the outcomes
     * @param results for each outcome, its {@link Settled} or the error to fail it with
     */
    private record Plan(WorkflowStep step, List<Pending> batch, List<Object> results) {
        void signal() {
            for (int i = 0; i < batch.size(); i++) {
                if (results.get(i) instanceof Settled s) {
                    batch.get(i).sink().success(s);
                } else {
                    batch.get(i).sink().error((Throwable) results.get(i));
                }
            }
        }
    }

    /** Decides each outcome against the history and builds the step. Changes nothing. */
    private Plan plan(WorkflowId id, HistoryState s, List<Pending> batch) {
        Instant now = Instant.now();
        WorkflowStep.Builder step = WorkflowStep.builder(id, s.head);
        List<Event> events = new ArrayList<>();
        Set<Long> completed = new HashSet<>(s.completed);
        Set<Long> dead = new HashSet<>(s.deadLettered);
        Set<Long> failedAttempts = new HashSet<>(s.failedAttempts);
        List<Object> results = new ArrayList<>(batch.size());
        int last = -1;
        for (Pending p : batch) {
            Outcome o = p.outcome();
            OutboxRow row = p.row();
            long a = o.activity().position();
            EventEnvelope env = new EventEnvelope(s.head + events.size() + 1, now, id);
            Settlement settlement;
            boolean fresh = false;
            if (!s.scheduled.contains(a)) {
                results.add(new IllegalStateException("workflow " + id + " never scheduled " + o.activity()));
                continue;
            } else if (completed.contains(a)) {
                settlement = Settlement.COMPLETE;
            } else if (dead.contains(a)) {
                settlement = Settlement.FAIL;
            } else if (o.succeeded()) {
                events.add(new ActivityCompleted(env, o.activity(),
                        Payload.json("{\"ok\":true,\"attempt\":" + o.attempt() + "}"), o.attempt()));
                completed.add(a);
                settlement = Settlement.COMPLETE;
                fresh = true;
            } else if (!failedAttempts.add(HistoryState.attemptKey(a, o.attempt()))) {
                settlement = Settlement.RETRY;
            } else {
                ActivityError.Kind kind = o.lastAttempt() ? ActivityError.Kind.TERMINAL : ActivityError.Kind.RETRYABLE;
                events.add(new ActivityFailed(env, o.activity(), new ActivityError(kind, o.message(), null),
                        o.attempt()));
                if (o.lastAttempt()) {
                    dead.add(a);
                }
                settlement = o.lastAttempt() ? Settlement.FAIL : Settlement.RETRY;
                fresh = true;
            }
            switch (settlement) {
                case COMPLETE -> step.complete(row);
                case FAIL -> step.fail(row);
                default -> step.retryAfter(row, row.attempt() + 1, backoff(row.attempt()));
            }
            last = results.size();
            results.add(new Settled(settlement, fresh, Ended.NO));
        }
        if (last < 0) {
            return new Plan(null, batch, results);
        }
        if (!s.ended && settledAll(s.scheduled, completed, dead)) {
            EventEnvelope env = new EventEnvelope(s.head + events.size() + 1, now, id);
            boolean failed = !dead.isEmpty();
            events.add(failed
                    ? new WorkflowFailed(env, new WorkflowError(dead.size() + " of " + s.scheduled.size()
                            + " activities dead-lettered", null))
                    : new WorkflowCompleted(env, Payload.json("{\"activities\":" + completed.size() + "}")));
            Settled r = (Settled) results.get(last);
            results.set(last, new Settled(r.settlement(), r.fresh(), failed ? Ended.FAILED : Ended.COMPLETED));
        }
        return new Plan(step.append(events).build(), batch, results);
    }

    private static boolean settledAll(Set<Long> scheduled, Set<Long> completed, Set<Long> dead) {
        for (Long a : scheduled) {
            if (!completed.contains(a) && !dead.contains(a)) {
                return false;
            }
        }
        return true;
    }

    /** Exponential backoff: {@code backoffMs * 2^dispatches}, capped at a minute. */
    private Duration backoff(int dispatches) {
        return Duration.ofMillis(Math.min(MAX_BACKOFF_MS, backoffMs << Math.min(dispatches, 20)));
    }
}
