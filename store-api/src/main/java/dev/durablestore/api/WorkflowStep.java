package dev.durablestore.api;

import com.google.errorprone.annotations.CanIgnoreReturnValue;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.internal.ClaimFence;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * One step of a workflow, written by {@link ReactiveStore#commitStep} in one transaction: the events
 * it appends under the workflow's expected head, the outbox rows it stages, the settles of the
 * claimed rows that carried its work, and the timers it schedules or cancels. All of it commits, or
 * none of it (contract rules W1–W12 in {@code docs/contract.md}).
 *
 * <p>A step is fenced: each settle names a row as its claim returned it, and commits only while
 * that claim is still current ({@link OutboxRow#claimToken()}); otherwise the whole step fails
 * with {@link StaleClaimException}. A step therefore never records an outcome for work that
 * another dispatcher now owns.
 *
 * <p>Immutable; built with {@link #builder(WorkflowId, long)}, whose {@link Builder#build()}
 * checks every part and names the one that breaks a rule ({@code settles[1].claimToken},
 * {@code timers[0].timerId}) with {@link InvalidArgumentException}.
 *
 * <pre>{@code
 * WorkflowStep step = WorkflowStep.builder(workflowId, head)
 *         .append(activityCompleted, nextActivityScheduled)
 *         .stage(nextRow)
 *         .complete(claimedRow)
 *         .cancelTimer(TimerId.named("deadline"))
 *         .build();
 * store.commitStep(step);
 * }</pre>
 */
public final class WorkflowStep {

    /**
     * One settle of a step.
     *
     * @param row the row as its claim returned it
     * @param settlement how it is settled
     */
    public record Settle(OutboxRow row, Settlement settlement) {}

    /**
     * One timer change of a step.
     *
     * @param timerId the timer
     * @param fireAt when it fires, or {@code null} to cancel it
     */
    public record TimerChange(TimerId timerId, Instant fireAt) {

        /** @return true when this change deletes the timer */
        public boolean cancels() {
            return fireAt == null;
        }
    }

    private final WorkflowId workflowId;
    private final long expectedSeq;
    private final List<Event> events;
    private final List<OutboxRow> rows;
    private final List<Settle> settles;
    private final List<TimerChange> timers;

    private WorkflowStep(Builder b) {
        this.workflowId = b.workflowId;
        this.expectedSeq = b.expectedSeq;
        this.events = List.copyOf(b.events);
        this.rows = List.copyOf(b.rows);
        this.settles = List.copyOf(b.settles);
        this.timers = List.copyOf(b.timers);
    }

    /**
     * Starts a step of a workflow whose head the caller last saw at {@code expectedSeq}.
     *
     * @param workflowId the workflow
     * @param expectedSeq the head the caller last saw (0 for a new workflow); the step's events get
     *     {@code expectedSeq + 1, + 2, …}
     * @return a builder
     */
    public static Builder builder(WorkflowId workflowId, long expectedSeq) {
        return new Builder(workflowId, expectedSeq);
    }

    /** @return the workflow */
    public WorkflowId workflowId() {
        return workflowId;
    }

    /** @return the head the step is guarded by */
    public long expectedSeq() {
        return expectedSeq;
    }

    /** @return the events to append, in order */
    public List<Event> events() {
        return events;
    }

    /** @return the outbox rows to stage, in order (insert-or-ignore by key, E21) */
    public List<OutboxRow> rows() {
        return rows;
    }

    /** @return the settles, in order, each of a different row of this workflow */
    public List<Settle> settles() {
        return settles;
    }

    /** @return the timer changes, in order, each of a different timer */
    public List<TimerChange> timers() {
        return timers;
    }

    /**
     * @return true when committing the step may make outbox rows claimable (it stages rows or
     *     retries one), so the store wakes its claim streams after the commit
     */
    public boolean wakesClaimers() {
        if (!rows.isEmpty()) {
            return true;
        }
        for (Settle s : settles) {
            if (s.settlement().kind() == Settlement.Kind.RETRY) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return "WorkflowStep[" + workflowId + " at " + expectedSeq + ": " + events.size() + " events, " + rows.size()
                + " rows, " + settles.size() + " settles, " + timers.size() + " timers]";
    }

    /**
     * Collects the parts of a step; not thread-safe. Each method returns this builder and refuses
     * a null list, instant or delay at once ({@code events}, {@code visibleAfter}, {@code delay});
     * {@link #build()} checks the parts.
     */
    public static final class Builder {

        private final WorkflowId workflowId;
        private final long expectedSeq;
        private final List<Event> events = new ArrayList<>();
        private final List<OutboxRow> rows = new ArrayList<>();
        private final List<Settle> settles = new ArrayList<>();
        private final List<TimerChange> timers = new ArrayList<>();

        private Builder(WorkflowId workflowId, long expectedSeq) {
            this.workflowId = workflowId;
            this.expectedSeq = expectedSeq;
        }

        /**
         * @param more events to append after those already added
         * @return this builder
         */
        @CanIgnoreReturnValue // returns this builder, for chaining
        public Builder append(List<? extends Event> more) {
            events.addAll(InvalidArgumentException.requireNonNull(more, "events"));
            return this;
        }

        /**
         * @param more events to append after those already added
         * @return this builder
         */
        @CanIgnoreReturnValue // returns this builder, for chaining
        public Builder append(Event... more) {
            return append(java.util.Arrays.asList(InvalidArgumentException.requireNonNull(more, "events")));
        }

        /**
         * @param more outbox rows to stage; each must satisfy O6, as for {@link ReactiveStore#appendWithOutbox}
         * @return this builder
         */
        @CanIgnoreReturnValue // returns this builder, for chaining
        public Builder stage(List<OutboxRow> more) {
            rows.addAll(InvalidArgumentException.requireNonNull(more, "rows"));
            return this;
        }

        /**
         * @param more outbox rows to stage
         * @return this builder
         */
        @CanIgnoreReturnValue // returns this builder, for chaining
        public Builder stage(OutboxRow... more) {
            return stage(java.util.Arrays.asList(InvalidArgumentException.requireNonNull(more, "rows")));
        }

        /**
         * Settles a claimed row of this workflow in the step, fenced by its claim (W6) as
         * {@link ReactiveStore#settle} is.
         *
         * @param claimed a row of this workflow as its claim returned it
         * @param settlement how the step settles it; a {@link Settlement#retryAfter} counts its delay
         *     from the commit, on the store's clock, and {@code commitStep} refuses one that takes
         *     the visibility past the latest storable instant, naming {@code settles[i].delay} (O58)
         * @return this builder
         */
        @CanIgnoreReturnValue // returns this builder, for chaining
        public Builder settle(OutboxRow claimed, Settlement settlement) {
            settles.add(new Settle(claimed, settlement));
            return this;
        }

        /**
         * @param claimed a row of this workflow as its claim returned it; the step marks it
         *     {@code DONE}: {@code settle(claimed, Settlement.complete())}
         * @return this builder
         */
        @CanIgnoreReturnValue // returns this builder, for chaining
        public Builder complete(OutboxRow claimed) {
            return settle(claimed, Settlement.complete());
        }

        /**
         * @param timerId the timer of this workflow to create or replace (T1)
         * @param fireAt when it fires
         * @return this builder
         */
        @CanIgnoreReturnValue // returns this builder, for chaining
        public Builder scheduleTimer(TimerId timerId, Instant fireAt) {
            timers.add(new TimerChange(timerId, InvalidArgumentException.requireNonNull(fireAt, "fireAt")));
            return this;
        }

        /**
         * @param timerId the timer of this workflow to delete; a timer that does not exist is no error
         * @return this builder
         */
        @CanIgnoreReturnValue // returns this builder, for chaining
        public Builder cancelTimer(TimerId timerId) {
            timers.add(new TimerChange(timerId, null));
            return this;
        }

        /**
         * Checks every part (W2) and builds the step. The store checks the rest when the step is
         * committed, before it writes anything: event sequences and envelopes as {@code append}
         * does, rows as {@code appendWithOutbox} does, stored texts and instants in range.
         *
         * @return the step
         * @throws InvalidArgumentException naming the part that breaks a rule: {@code workflowId},
         *     {@code expectedSeq}, {@code events[i]}, {@code rows[i]}, {@code settles[i]} (null row,
         *     {@code .claimToken} not from a claim, {@code .workflowId} of another workflow,
         *     {@code .dispatchKey} settled twice, {@code .settlement} null),
         *     {@code timers[i].timerId} (null or changed twice)
         */
        public WorkflowStep build() {
            InvalidArgumentException.requireNonNull(workflowId, "workflowId");
            InvalidArgumentException.requireNonNegative(expectedSeq, "expectedSeq");
            for (int i = 0; i < events.size(); i++) {
                InvalidArgumentException.requireNonNull(events.get(i), "events[" + i + "]");
            }
            for (int i = 0; i < rows.size(); i++) {
                InvalidArgumentException.requireNonNull(rows.get(i), "rows[" + i + "]");
            }
            Set<String> settled = new HashSet<>();
            for (int i = 0; i < settles.size(); i++) {
                checkSettle(settles.get(i), "settles[" + i + "]", settled);
            }
            Set<TimerId> changed = new HashSet<>();
            for (int i = 0; i < timers.size(); i++) {
                String name = "timers[" + i + "].timerId";
                TimerId id =
                        InvalidArgumentException.requireNonNull(timers.get(i).timerId(), name);
                if (!changed.add(id)) {
                    throw new InvalidArgumentException(name, "changes timer " + id + " a second time in one step");
                }
            }
            return new WorkflowStep(this);
        }

        private void checkSettle(Settle s, String name, Set<String> settled) {
            OutboxRow row = ClaimFence.requireClaimed(s.row(), name);
            if (!row.workflowId().equals(workflowId)) {
                throw new InvalidArgumentException(
                        name + ".workflowId",
                        "row " + row.dispatchKey() + " belongs to workflow " + row.workflowId()
                                + ", not to the step's workflow " + workflowId);
            }
            if (!settled.add(row.dispatchKey())) {
                throw new InvalidArgumentException(
                        name + ".dispatchKey", "settles row " + row.dispatchKey() + " a second time in one step");
            }
            InvalidArgumentException.requireNonNull(s.settlement(), name + ".settlement");
        }
    }
}
