package dev.durablestore.examples.demo;

import dev.durablestore.api.ActivityId;
import dev.durablestore.api.EventStore;
import dev.durablestore.api.Payload;
import dev.durablestore.api.SequenceConflictException;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.ActivityCompleted;
import dev.durablestore.api.event.ActivityError;
import dev.durablestore.api.event.ActivityFailed;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.event.EventEnvelope;
import dev.durablestore.api.event.WorkflowCompleted;
import dev.durablestore.api.event.WorkflowError;
import dev.durablestore.api.event.WorkflowFailed;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import reactor.core.Exceptions;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.util.retry.Retry;

/**
 * Records activity outcomes in workflow histories, one writer per workflow.
 *
 * <p>Many activities of one workflow finish at about the same time, and every append must name
 * the head it extends. So outcomes go through a per-workflow mailbox: while one append of a
 * workflow is in flight, later outcomes of that workflow queue up and are then appended together
 * in one batch. The mailbox keeps the workflow's {@link HistoryState} (read once from the history);
 * if an append still meets a {@link SequenceConflictException} (another writer moved the head),
 * it re-reads the history and plans the batch again.
 *
 * <p>Planning consults the history, which makes redelivery safe: an outcome the history already
 * holds (an activity already completed or dead-lettered, a failed attempt already recorded) appends
 * nothing and is reported as not {@link Recorded#fresh() fresh}. When a batch settles the last open
 * activity, the same append adds {@code WorkflowCompleted}, or {@code WorkflowFailed} if any
 * activity was dead-lettered. Nothing here blocks: everything is driven by store signals.
 */
public final class HistoryRecorder {

    private static final int MAX_CONFLICT_RETRIES = 16;

    /** What to do with the outbox row once the outcome is in the history. */
    public enum Settle {
        /** The activity completed: {@code complete(key)}. */
        COMPLETE,
        /** A retryable attempt failed: {@code retry(key, attempt + 1, now + backoff)}. */
        RETRY,
        /** The activity is dead-lettered: {@code fail(key)}. */
        FAIL
    }

    /** How the workflow ended, if the append that recorded an outcome also ended it. */
    public enum Ended {
        /** Not ended by this append. */
        NO,
        /** {@code WorkflowCompleted} appended. */
        COMPLETED,
        /** {@code WorkflowFailed} appended. */
        FAILED
    }

    /**
     * One attempt's outcome.
     *
     * @param activity the activity
     * @param attempt the 1-based attempt
     * @param succeeded true when the attempt succeeded
     * @param lastAttempt for a failure: true when no retry may follow (dead-letter)
     * @param message for a failure: why
     */
    public record Outcome(ActivityId activity, int attempt, boolean succeeded, boolean lastAttempt, String message) {}

    /**
     * The history's verdict on one outcome.
     *
     * @param settle what to do with the row
     * @param fresh true when this call appended the outcome; false when the history already held it
     * @param ended whether the append also ended the workflow
     */
    public record Recorded(Settle settle, boolean fresh, Ended ended) {}

    private final EventStore store;
    private final DemoStats stats;
    private final ConcurrentHashMap<WorkflowId, Mailbox> mailboxes = new ConcurrentHashMap<>();

    /**
     * @param store the store holding the histories
     * @param stats counts sequence conflicts
     */
    public HistoryRecorder(EventStore store, DemoStats stats) {
        this.store = store;
        this.stats = stats;
    }

    /**
     * Records an outcome after the ones already queued for the same workflow.
     *
     * @param workflowId the workflow
     * @param outcome the outcome
     * @return the verdict, once the history holds the outcome (durably)
     */
    public Mono<Recorded> record(WorkflowId workflowId, Outcome outcome) {
        return Mono.create(sink -> mailboxes.computeIfAbsent(workflowId, Mailbox::new)
                .enqueue(new Pending(outcome, sink)));
    }

    private record Pending(Outcome outcome, MonoSink<Recorded> sink) {}

    /** The serial executor of one workflow's appends. */
    private final class Mailbox {
        private final WorkflowId id;
        private final Queue<Pending> queue = new ConcurrentLinkedQueue<>();
        private final AtomicBoolean running = new AtomicBoolean();
        /** Read and written only by the batch that holds {@link #running}. */
        private volatile HistoryState state;

        Mailbox(WorkflowId id) {
            this.id = id;
        }

        void enqueue(Pending p) {
            queue.add(p);
            drain();
        }

        /** Starts a batch unless one is running; the running one calls this again when done. */
        private void drain() {
            while (!queue.isEmpty() && running.compareAndSet(false, true)) {
                List<Pending> batch = new ArrayList<>();
                for (Pending p; (p = queue.poll()) != null; ) {
                    batch.add(p);
                }
                if (batch.isEmpty()) {
                    running.set(false);
                    continue;
                }
                process(batch).subscribe(null, e -> finish(), this::finish);
                return;
            }
        }

        private void finish() {
            HistoryState s = state;
            if (s != null && s.ended && queue.isEmpty()) {
                state = null; // ended: nothing more is expected; a redelivery would re-read the history
                mailboxes.remove(id, this);
            }
            running.set(false);
            drain();
        }

        private Mono<Void> process(List<Pending> batch) {
            return Mono.defer(() -> attempt(batch))
                    .retryWhen(Retry.max(MAX_CONFLICT_RETRIES)
                            .filter(SequenceConflictException.class::isInstance)
                            .doBeforeRetry(signal -> {
                                state = null;
                                stats.onConflict();
                            }))
                    .onErrorResume(e -> {
                        state = null;
                        Throwable cause = Exceptions.isRetryExhausted(e) && e.getCause() != null ? e.getCause() : e;
                        batch.forEach(p -> p.sink().error(cause));
                        return Mono.empty();
                    });
        }

        private Mono<Void> attempt(List<Pending> batch) {
            HistoryState cached = state;
            Mono<HistoryState> load = cached != null ? Mono.just(cached)
                    : store.readHistory(id).collectList().map(HistoryState::of).doOnNext(s -> state = s);
            return load.flatMap(s -> {
                List<Event> events = new ArrayList<>();
                List<Recorded> results = plan(s, batch, events);
                Mono<Void> write = events.isEmpty() ? Mono.empty() : store.append(id, events, s.head);
                return write.then(Mono.fromRunnable(() -> {
                    events.forEach(s::accept);
                    for (int i = 0; i < batch.size(); i++) {
                        Recorded r = results.get(i);
                        if (r == null) {
                            batch.get(i).sink().error(new IllegalStateException("workflow " + id
                                    + " never scheduled " + batch.get(i).outcome().activity()));
                        } else {
                            batch.get(i).sink().success(r);
                        }
                    }
                }));
            });
        }

        /** Decides each outcome against the history; adds the events to append. Changes nothing. */
        private List<Recorded> plan(HistoryState s, List<Pending> batch, List<Event> events) {
            Instant now = Instant.now();
            Set<Long> completed = new HashSet<>(s.completed);
            Set<Long> dead = new HashSet<>(s.deadLettered);
            Set<Long> failedAttempts = new HashSet<>(s.failedAttempts);
            List<Recorded> results = new ArrayList<>(batch.size());
            for (Pending p : batch) {
                Outcome o = p.outcome();
                long a = o.activity().position();
                long seq = s.head + events.size() + 1;
                EventEnvelope env = new EventEnvelope(seq, now, id);
                if (!s.scheduled.contains(a)) {
                    results.add(null);
                } else if (completed.contains(a)) {
                    results.add(new Recorded(Settle.COMPLETE, false, Ended.NO));
                } else if (dead.contains(a)) {
                    results.add(new Recorded(Settle.FAIL, false, Ended.NO));
                } else if (o.succeeded()) {
                    events.add(new ActivityCompleted(env, o.activity(),
                            Payload.json("{\"ok\":true,\"attempt\":" + o.attempt() + "}"), o.attempt()));
                    completed.add(a);
                    results.add(new Recorded(Settle.COMPLETE, true, Ended.NO));
                } else if (!failedAttempts.add(HistoryState.attemptKey(a, o.attempt()))) {
                    results.add(new Recorded(Settle.RETRY, false, Ended.NO));
                } else {
                    ActivityError.Kind kind = o.lastAttempt() ? ActivityError.Kind.TERMINAL : ActivityError.Kind.RETRYABLE;
                    events.add(new ActivityFailed(env, o.activity(), new ActivityError(kind, o.message(), null),
                            o.attempt()));
                    if (o.lastAttempt()) {
                        dead.add(a);
                    }
                    results.add(new Recorded(o.lastAttempt() ? Settle.FAIL : Settle.RETRY, true, Ended.NO));
                }
            }
            if (!s.ended && settledAll(s.scheduled, completed, dead)) {
                EventEnvelope env = new EventEnvelope(s.head + events.size() + 1, now, id);
                boolean failed = !dead.isEmpty();
                events.add(failed
                        ? new WorkflowFailed(env, new WorkflowError(dead.size() + " of " + s.scheduled.size()
                                + " activities dead-lettered", null))
                        : new WorkflowCompleted(env, Payload.json("{\"activities\":" + completed.size() + "}")));
                int last = results.size() - 1;
                Recorded r = results.get(last);
                if (r != null) {
                    results.set(last, new Recorded(r.settle(), r.fresh(), failed ? Ended.FAILED : Ended.COMPLETED));
                }
            }
            return results;
        }

        private boolean settledAll(Set<Long> scheduled, Set<Long> completed, Set<Long> dead) {
            for (Long a : scheduled) {
                if (!completed.contains(a) && !dead.contains(a)) {
                    return false;
                }
            }
            return true;
        }
    }
}
