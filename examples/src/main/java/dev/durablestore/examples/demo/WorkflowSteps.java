package dev.durablestore.examples.demo;

import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.Payload;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.SequenceConflictException;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.StaleClaimException;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.WorkflowStep;
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
 * row that carried the activity, fenced by its claim ({@code complete},
 * {@code Settlement.retryAfter} a backoff, or {@code Settlement.fail()} to dead-letter it), and,
 * when the step settles the workflow's last open activity, {@code WorkflowCompleted} (or
 * {@code WorkflowFailed} if an activity was dead-lettered).
 * One transaction: there is no moment at which the history holds an outcome whose row is still
 * claimed, or a settled row whose outcome is missing.
 *
 * <p><b>The steps of one workflow, in order.</b> A step names the head it extends and fails with
 * {@link SequenceConflictException} when the head moved (W3). The activities of one workflow are
 * staged together, claimed together and finish at about the same time; steps built for them
 * independently from the stored head would meet at one head: one commits, the others re-read the
 * head and try again, and k outcomes cost up to k(k+1)/2 steps. Waiting for each step to commit
 * before planning the next would cost a commit per outcome. So each workflow has a <em>lane</em>
 * that keeps the workflow's {@link HistoryState} as it will be once its steps in flight have
 * committed (read from the history once), plans each arriving outcome against it and submits the
 * step at once, at the head the steps before it will leave. The store runs commands in the order
 * they were submitted, so the steps of one workflow commit in order, often in one transaction.
 * Outcomes that arrive while the history is being read go together in one step (a step may
 * settle several rows of its workflow, W8). A lane's state changes only under its monitor, and
 * its steps are submitted under it, in the order they were planned; a lane is forgotten when
 * nothing of it waits or is in flight and its workflow has ended.
 *
 * <p><b>When a step fails</b> it writes nothing, so the lane's predicted state is wrong and the
 * steps planned after it fail their guard too if it had events: the lane plans nothing more until every step in
 * flight is answered, then reads the history again and plans what is left.
 * {@link SequenceConflictException} (a step before failed, or another writer moved the head): the
 * outcomes are planned again. {@link StaleClaimException} (the lease reaper re-armed a row and
 * another claim owns it now): that outcome is dropped, failing its caller with the exception, and
 * the others of its step are planned again without it. Any other error fails the outcomes of the
 * step; the dispatcher returns their rows to pending.
 *
 * <p><b>Redelivery.</b> Planning consults the history, so a row delivered again whose outcome the
 * history already holds (an activity already completed or dead-lettered, a failed attempt already
 * recorded) appends nothing and is only settled; its result is not {@link Settled#fresh() fresh}.
 * A store written by this class never needs it (the step settles the row with its outcome), but a
 * file written by a dispatcher that recorded outcomes and settled rows separately may.
 *
 * <p>Nothing here blocks: a lane's monitor is held only to plan a step and hand it to the store,
 * and everything else is driven by store signals.
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
    public record Settled(Settlement.Kind settlement, boolean fresh, Ended ended) {}

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

    private static final class Pending {
        final OutboxRow row;
        final Outcome outcome;
        final MonoSink<Settled> sink;
        int conflicts;

        Pending(OutboxRow row, Outcome outcome, MonoSink<Settled> sink) {
            this.row = row;
            this.outcome = outcome;
            this.sink = sink;
        }
    }

    /** One workflow's outcomes and the state its steps are planned on; guarded by its own monitor. */
    private static final class Lane {
        final WorkflowId id;
        /** Outcomes not yet in a step, in arrival order. */
        final List<Pending> waiting = new ArrayList<>();
        /** The history as it will be once every step in flight has committed; null until read. */
        HistoryState predicted;
        /** Steps submitted and not yet answered. */
        int inFlight;
        /** A history read is in flight. */
        boolean loading;
        /** A step failed, so {@link #predicted} is wrong: plan nothing until the steps in flight are answered. */
        boolean broken;
        /** Forgotten: no longer in the map; an outcome that finds it so takes a new lane. */
        boolean removed;

        Lane(WorkflowId id) {
            this.id = id;
        }
    }

    private void enqueue(Pending p) {
        while (true) {
            Lane lane = lanes.computeIfAbsent(p.row.workflowId(), Lane::new);
            synchronized (lane) {
                if (lane.removed) {
                    continue;
                }
                lane.waiting.add(p);
            }
            pump(lane);
            return;
        }
    }

    /**
     * Moves the lane on: reads the history when the state is unknown, or plans every waiting
     * outcome (one per row: a row delivered again while its earlier delivery waits goes in the
     * step after) as one step at the predicted head and submits it at once, or forgets the lane
     * when nothing waits, nothing is in flight and its workflow has ended. Steps are submitted
     * under the lane's monitor, so they reach the store in the order they were planned.
     */
    private void pump(Lane lane) {
        Runnable after = null;
        synchronized (lane) {
            if (lane.removed) {
                return;
            }
            if (lane.broken && lane.inFlight == 0) {
                lane.broken = false;
                lane.predicted = null; // read it again
            }
            if (lane.waiting.isEmpty()) {
                if (lane.inFlight == 0 && !lane.loading && (lane.predicted == null || lane.predicted.ended)) {
                    lane.removed = true;
                    lanes.remove(lane.id, lane);
                }
                return;
            }
            if (lane.broken || lane.loading) {
                return;
            }
            if (lane.predicted == null) {
                lane.loading = true;
                after = () -> load(lane);
            } else {
                List<Pending> batch = new ArrayList<>();
                Set<String> keys = new HashSet<>();
                for (Iterator<Pending> it = lane.waiting.iterator(); it.hasNext(); ) {
                    Pending p = it.next();
                    if (keys.add(p.row.dispatchKey())) {
                        batch.add(p);
                        it.remove();
                    }
                }
                Plan plan;
                try {
                    plan = plan(lane.id, lane.predicted, batch);
                } catch (RuntimeException e) {
                    plan = null;
                    after = () -> {
                        batch.forEach(p -> p.sink.error(e));
                        pump(lane);
                    };
                }
                if (plan != null && plan.step() == null) {
                    Plan nothing = plan;
                    after = () -> {
                        nothing.signal();
                        pump(lane);
                    };
                } else if (plan != null) {
                    Plan submitted = plan;
                    lane.predicted = plan.next();
                    lane.inFlight++;
                    store.commitStep(plan.step())
                            .subscribe(null, e -> failed(lane, submitted, e), () -> committed(lane, submitted));
                }
            }
        }
        if (after != null) {
            after.run();
        }
    }

    private void load(Lane lane) {
        store.readHistory(lane.id)
                .collectList()
                .map(HistoryState::of)
                .subscribe(
                        s -> {
                            synchronized (lane) {
                                lane.predicted = s;
                                lane.loading = false;
                            }
                            pump(lane);
                        },
                        e -> {
                            List<Pending> failed;
                            synchronized (lane) {
                                lane.loading = false;
                                failed = new ArrayList<>(lane.waiting);
                                lane.waiting.clear();
                            }
                            failed.forEach(p -> p.sink.error(e));
                            pump(lane);
                        });
    }

    private void committed(Lane lane, Plan plan) {
        synchronized (lane) {
            lane.inFlight--;
        }
        plan.signal();
        pump(lane);
    }

    /**
     * A step failed and wrote nothing, so the steps planned after it may fail too (their guard
     * expects its events) and the predicted state is wrong: the lane plans nothing more until every
     * step in flight is answered, then reads the history again and plans what is left.
     */
    private void failed(Lane lane, Plan plan, Throwable e) {
        List<Pending> again = new ArrayList<>();
        List<Pending> fail = new ArrayList<>();
        for (Pending p : plan.batch()) {
            if (e instanceof StaleClaimException stale) {
                boolean mine =
                        p.row.dispatchKey().equals(stale.dispatchKey()) && p.row.claimToken() == stale.claimToken();
                (mine ? fail : again).add(p);
            } else if (e instanceof SequenceConflictException && p.conflicts++ < MAX_CONFLICT_RETRIES) {
                again.add(p);
            } else {
                fail.add(p);
            }
        }
        if (e instanceof StaleClaimException && fail.isEmpty()) {
            fail.addAll(again); // not a claim of this step: do not plan it again
            again.clear();
        }
        if (e instanceof SequenceConflictException) {
            stats.onConflict();
        }
        synchronized (lane) {
            lane.inFlight--;
            lane.broken = true;
            lane.waiting.addAll(0, again);
        }
        fail.forEach(p -> p.sink.error(e));
        pump(lane);
    }

    /**
     * A planned step and what to tell each outcome once it commits.
     *
     * @param step the step, or null when no outcome of the batch can be recorded
     * @param next the history once the step has committed
     * @param batch the outcomes
     * @param results for each outcome, its {@link Settled} or the error to fail it with
     */
    private record Plan(WorkflowStep step, HistoryState next, List<Pending> batch, List<Object> results) {
        void signal() {
            for (int i = 0; i < batch.size(); i++) {
                if (results.get(i) instanceof Settled s) {
                    batch.get(i).sink.success(s);
                } else {
                    batch.get(i).sink.error((Throwable) results.get(i));
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
            Outcome o = p.outcome;
            OutboxRow row = p.row;
            long a = o.activity().position();
            EventEnvelope env = new EventEnvelope(s.head + events.size() + 1, now, id);
            Settlement.Kind settlement;
            boolean fresh = false;
            if (!s.scheduled.contains(a)) {
                results.add(new IllegalStateException("workflow " + id + " never scheduled " + o.activity()));
                continue;
            } else if (completed.contains(a)) {
                settlement = Settlement.Kind.COMPLETE;
            } else if (dead.contains(a)) {
                settlement = Settlement.Kind.FAIL;
            } else if (o.succeeded()) {
                events.add(new ActivityCompleted(
                        env, o.activity(), Payload.json("{\"ok\":true,\"attempt\":" + o.attempt() + "}"), o.attempt()));
                completed.add(a);
                settlement = Settlement.Kind.COMPLETE;
                fresh = true;
            } else if (!failedAttempts.add(HistoryState.attemptKey(a, o.attempt()))) {
                settlement = Settlement.Kind.RETRY;
            } else {
                ActivityError.Kind kind = o.lastAttempt() ? ActivityError.Kind.TERMINAL : ActivityError.Kind.RETRYABLE;
                events.add(
                        new ActivityFailed(env, o.activity(), new ActivityError(kind, o.message(), null), o.attempt()));
                if (o.lastAttempt()) {
                    dead.add(a);
                }
                settlement = o.lastAttempt() ? Settlement.Kind.FAIL : Settlement.Kind.RETRY;
                fresh = true;
            }
            switch (settlement) {
                case COMPLETE -> step.complete(row);
                case FAIL -> step.settle(row, Settlement.fail());
                default -> step.settle(row, Settlement.retryAfter(row.attempt() + 1, backoff(row.attempt())));
            }
            last = results.size();
            results.add(new Settled(settlement, fresh, Ended.NO));
        }
        if (last < 0) {
            return new Plan(null, s, batch, results);
        }
        if (!s.ended && settledAll(s.scheduled, completed, dead)) {
            EventEnvelope env = new EventEnvelope(s.head + events.size() + 1, now, id);
            boolean failed = !dead.isEmpty();
            events.add(
                    failed
                            ? new WorkflowFailed(
                                    env,
                                    new WorkflowError(
                                            dead.size() + " of " + s.scheduled.size() + " activities dead-lettered",
                                            null))
                            : new WorkflowCompleted(env, Payload.json("{\"activities\":" + completed.size() + "}")));
            Settled r = (Settled) results.get(last);
            results.set(last, new Settled(r.settlement(), r.fresh(), failed ? Ended.FAILED : Ended.COMPLETED));
        }
        WorkflowStep built = step.append(events).build();
        HistoryState next = s.copy();
        events.forEach(next::accept);
        return new Plan(built, next, batch, results);
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
