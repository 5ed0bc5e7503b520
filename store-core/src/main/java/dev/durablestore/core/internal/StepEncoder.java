package dev.durablestore.core.internal;

import dev.durablestore.api.AttemptFailure;
import dev.durablestore.api.FailureReason;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.StaleClaimException;
import dev.durablestore.api.WorkflowStep;
import dev.durablestore.api.internal.ClaimFence;
import dev.durablestore.api.internal.StoredText;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Checks and encodes a {@link WorkflowStep} before it is written, the same way in every backend:
 * events as {@code append} encodes them, rows as {@code appendWithOutbox} stages them, settles and
 * timers into the values their statements bind. Everything that can be refused is refused here,
 * before the backend writes anything (W2).
 */
public final class StepEncoder {

    /** The order settles are written in: by key, so concurrent steps lock rows in one order. */
    private static final Comparator<Settle> BY_KEY = Comparator.comparing(Settle::dispatchKey, Claims.CODE_POINT_ORDER);

    private final EventEncoder events;
    private final OutboxRowEncoder rows;

    /**
     * @param events encodes the step's events
     * @param rows encodes the step's rows
     */
    public StepEncoder(EventEncoder events, OutboxRowEncoder rows) {
        this.events = events;
        this.rows = rows;
    }

    /**
     * @param step the step
     * @param operation the operation name for a {@link StaleClaimException}
     * @param now the store clock's instant as the step is subscribed: a retry after a delay that
     *     would take its row's visibility out of the storable range from it is refused (O58, S15);
     *     the visibility itself is computed from the clock when the step is written
     *     ({@link Settle#retryVisibleAfter})
     * @return the encoded step
     * @throws InvalidArgumentException naming the part that cannot be stored
     * @throws StaleClaimException when a settled row's key cannot be stored, so no claim can hold it
     */
    public Encoded encode(WorkflowStep step, String operation, Instant now) {
        InvalidArgumentException.requireNonNull(step, "step");
        List<EventEncoder.Encoded> encodedEvents =
                events.forAppend(step.workflowId(), step.events(), step.expectedSeq());
        List<OutboxRowEncoder.Encoded> encodedRows = rows.forStaging(step.rows(), "rows");
        List<Settle> settles = new ArrayList<>(step.settles().size());
        for (int i = 0; i < step.settles().size(); i++) {
            settles.add(settle(step.settles().get(i), "settles[" + i + "]", operation, now));
        }
        settles.sort(BY_KEY);
        List<Timer> timers = new ArrayList<>(step.timers().size());
        for (int i = 0; i < step.timers().size(); i++) {
            WorkflowStep.TimerChange t = step.timers().get(i);
            String name = "timers[" + i + "]";
            String id = StoredText.timerIdText(t.timerId(), name + ".timerId");
            timers.add(new Timer(id, t.cancels() ? null : EpochNanos.of(t.fireAt(), name + ".fireAt")));
        }
        return new Encoded(
                step.workflowId().toString(),
                step.expectedSeq(),
                encodedEvents,
                encodedRows,
                List.copyOf(settles),
                List.copyOf(timers),
                step.wakesClaimers());
    }

    /**
     * One fenced settle of a claimed row ({@code settle(claimed, settlement)}, W6).
     *
     * @param claimed the row as its claim returned it
     * @param settlement how to settle it
     * @param operation the operation name for a {@link StaleClaimException}
     * @param now the store clock's instant as the settle is subscribed (see {@link #encode})
     * @return the encoded settle
     * @throws InvalidArgumentException naming {@code claimed.claimToken}, {@code settlement}, or
     *     {@code settlement.visibleAfter} / {@code settlement.delay} when the store cannot keep it
     * @throws StaleClaimException when the row's key cannot be stored, so no claim can hold it
     */
    public static Settle fenced(OutboxRow claimed, Settlement settlement, String operation, Instant now) {
        ClaimFence.requireClaimed(claimed, "claimed");
        InvalidArgumentException.requireNonNull(settlement, "settlement");
        return settle(claimed, settlement, "settlement", operation, now);
    }

    private static Settle settle(WorkflowStep.Settle s, String name, String operation, Instant now) {
        return settle(s.row(), s.settlement(), name, operation, now);
    }

    /** @param name the settlement's name in errors: {@code settles[1]} in a step, {@code settlement} alone */
    private static Settle settle(OutboxRow row, Settlement settlement, String name, String operation, Instant now) {
        Long visible = settlement.visibleAfter() == null
                ? null
                : EpochNanos.of(settlement.visibleAfter(), name + ".visibleAfter");
        if (settlement.delay() != null) {
            var unused = SettleArguments.visibleAfterNanos(
                    now, settlement.delay(), name + ".delay"); // checked here, computed by the backend on its clock
        }
        requireStorableKey(row, operation);
        return new Settle(
                row.dispatchKey(),
                row.claimToken(),
                settlement.kind(),
                settlement.nextAttempt(),
                visible,
                settlement.delay(),
                name,
                settlement.reason(),
                row.attempt(),
                row.failures());
    }

    private static void requireStorableKey(OutboxRow row, String operation) {
        if (!StoredText.storable(row.dispatchKey())) {
            throw new StaleClaimException(operation, row.dispatchKey(), row.claimToken()); // no row holds it
        }
    }

    /**
     * A step ready to write.
     *
     * @param workflowId the workflow id text
     * @param expectedSeq the guard
     * @param events the events, encoded, with contiguous sequences not yet checked (E6)
     * @param rows the rows to stage
     * @param settles the settles, in dispatch-key order
     * @param timers the timer changes, in step order
     * @param wakesClaimers whether a commit may make rows claimable
     */
    public record Encoded(
            String workflowId,
            long expectedSeq,
            List<EventEncoder.Encoded> events,
            List<OutboxRowEncoder.Encoded> rows,
            List<Settle> settles,
            List<Timer> timers,
            boolean wakesClaimers) {}

    /**
     * A fenced settle ready to bind.
     *
     * @param dispatchKey the row
     * @param claimToken the claim it must still be under
     * @param kind how it is settled
     * @param nextAttempt the new attempt of a retry
     * @param visibleAfterNanos the new visibility of a retry at an instant, else {@code null}
     * @param delay the delay of a retry after a delay on the store's clock, else {@code null}
     * @param argument the settlement's name in errors ({@code settles[1]}, {@code settlement})
     * @param reason why the attempt failed, or {@code null} (O66)
     * @param claimedAttempt the row's attempt as its claim returned it
     * @param failures the row's failures as its claim returned it: under the claim nothing else
     *     changes them, so they are the stored ones while the fence holds
     */
    public record Settle(
            String dispatchKey,
            long claimToken,
            Settlement.Kind kind,
            int nextAttempt,
            Long visibleAfterNanos,
            Duration delay,
            String argument,
            FailureReason reason,
            int claimedAttempt,
            List<AttemptFailure> failures) {

        /**
         * @param nowNanos the store's clock when the settle is written, in epoch nanoseconds
         * @return the stored form of the row's failures with this settle's reason added as the
         *     failure of the claimed attempt ({@link FailureHistory}), or {@code null} when the
         *     settle gives no reason and leaves them as they are
         */
        public String failuresAfter(long nowNanos) {
            return reason == null ? null : FailureHistory.append(failures, claimedAttempt, nowNanos, reason);
        }

        /**
         * @param nowNanos the store's clock when the settle is written, in epoch nanoseconds
         * @return the visibility a retry gets: its instant, or now plus its delay
         * @throws InvalidArgumentException naming {@code argument.delay} when now plus the delay is
         *     past the latest storable instant (O58): {@link #encode} refuses such a delay from the
         *     clock it read, so this is reached only when the clock moved past the bound since; the
         *     backend must then write nothing of the step
         */
        public long retryVisibleAfter(long nowNanos) {
            if (visibleAfterNanos != null) {
                return visibleAfterNanos;
            }
            return SettleArguments.visibleAfterNanos(EpochNanos.toInstant(nowNanos), delay, argument + ".delay");
        }
    }

    /**
     * A timer change ready to bind.
     *
     * @param timerId the canonical timer-id text
     * @param fireAtNanos when it fires, or {@code null} to delete it
     */
    public record Timer(String timerId, Long fireAtNanos) {}
}
