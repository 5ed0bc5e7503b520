package dev.durablestore.sqlite.internal;

import dev.durablestore.api.Settlement;
import dev.durablestore.api.StaleClaimException;
import dev.durablestore.core.internal.StepEncoder;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code commitStep} (W1–W12): one workflow step in the writer's transaction. Every check comes
 * before the first write, as {@link WriteCommand} requires: the guard and contiguity
 * ({@link AppendCommand#checkGuard}), then every settle's fence and every retry's visibility; then
 * the events, the rows, the settles and the timers. A stale claim is thus refused like a conflict, writing nothing.
 *
 * <p>Adjacent steps in a batch run as a group, as appends do ({@link AppendCommand}): every guard
 * first, then the events of all of them in multi-row inserts, their rows, their settles and their
 * timers. A group does not read the fences first: a settle whose claim is not current updates no
 * row, which fails the group, and the writer runs its steps again one by one, so the stale step
 * alone is refused (W7).
 */
final class StepCommand implements GroupedCommand<StepCommand> {

    static final String NAME = "commitStep";

    private final StepEncoder.Encoded step;
    private final AppendCommand append;
    private final Clock clock;

    /**
     * @param step the encoded step
     * @param clock the store's clock
     * @param heads the writer's head cache
     */
    StepCommand(StepEncoder.Encoded step, Clock clock, HeadCache heads) {
        this.step = step;
        this.clock = clock;
        this.append =
                new AppendCommand(step.workflowId(), step.expectedSeq(), step.events(), step.rows(), clock, heads);
    }

    @Override
    public Void execute(DbConnection c) throws SQLException {
        append.checkGuard(c);
        long now = Times.nowNanos(clock.instant());
        for (StepEncoder.Settle s : step.settles()) {
            if (!FencedSettles.current(c, s)) {
                throw new StaleClaimException(NAME, s.dispatchKey(), s.claimToken());
            }
            if (s.kind() == Settlement.Kind.RETRY) {
                var unused =
                        s.retryVisibleAfter(now); // a delay too long from this clock is refused here, before any write
            }
        }
        append.write(c);
        for (StepEncoder.Settle s : step.settles()) {
            if (!FencedSettles.apply(c, s, now)) {
                // checked above in this transaction, which no one else writes in: not a user error
                throw new IllegalStateException(
                        "outbox row " + s.dispatchKey() + " changed inside the step's transaction");
            }
        }
        writeTimers(c);
        return null;
    }

    @Override
    public Object group() {
        return StepCommand.class;
    }

    @Override
    public void executeGroup(DbConnection c, List<StepCommand> commands) throws SQLException {
        List<EventRows.Row> eventRows = new ArrayList<>();
        for (StepCommand step : commands) {
            step.append.checkGrouped(c, eventRows);
        }
        EventRows.insertAll(c, eventRows);
        long now = Times.nowNanos(clock.instant());
        for (StepCommand step : commands) {
            step.append.stageRows(c, now);
        }
        for (StepCommand step : commands) {
            for (StepEncoder.Settle s : step.step.settles()) {
                if (!FencedSettles.apply(c, s, now)) {
                    // not a rejection: the group fails and its steps run again one by one, so the
                    // stale step is refused by its own fence check, writing nothing
                    throw new SQLException("claim of " + s.dispatchKey() + " not current in a grouped step");
                }
            }
            step.writeTimers(c);
        }
    }

    private void writeTimers(DbConnection c) throws SQLException {
        for (StepEncoder.Timer t : step.timers()) {
            PreparedStatement ps = c.prepare(t.fireAtNanos() == null ? SqliteTimers.DELETE : SqliteTimers.UPSERT);
            ps.setString(1, step.workflowId());
            ps.setString(2, t.timerId());
            if (t.fireAtNanos() != null) {
                ps.setLong(3, t.fireAtNanos());
            }
            ps.executeUpdate();
        }
    }

    /** E15: as for an append, a storage failure is a conflict when the head has moved away. */
    @Override
    public Throwable onTransactionFailure(DbConnection c, Throwable failure) {
        return append.onTransactionFailure(c, failure);
    }

    @Override
    public boolean wakesClaimers() {
        return step.wakesClaimers();
    }

    @Override
    public String name() {
        return NAME;
    }
}
