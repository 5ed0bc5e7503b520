package dev.durablestore.sqlite.internal;

import dev.durablestore.api.StaleClaimException;
import dev.durablestore.api.spi.StepEncoder;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;

/**
 * {@code commitStep} (W1–W12): one workflow step in the writer's transaction. Every check comes
 * before the first write, as {@link WriteCommand} requires: the guard and contiguity
 * ({@link AppendCommand#checkGuard}), then every settle's fence; then the events, the rows, the
 * settles and the timers. A stale claim is thus refused like a conflict, writing nothing.
 */
final class StepCommand implements WriteCommand<Void> {

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
        this.append = new AppendCommand(step.workflowId(), step.expectedSeq(), step.events(), step.rows(), clock, heads);
    }

    @Override
    public Void execute(DbConnection c) throws SQLException {
        append.checkGuard(c);
        for (StepEncoder.Settle s : step.settles()) {
            if (!FencedSettles.current(c, s)) {
                throw new StaleClaimException(NAME, s.dispatchKey(), s.claimToken());
            }
        }
        append.write(c);
        long now = Times.nowNanos(clock.instant());
        for (StepEncoder.Settle s : step.settles()) {
            if (!FencedSettles.apply(c, s, now)) {
                // checked above in this transaction, which no one else writes in: not a user error
                throw new IllegalStateException("outbox row " + s.dispatchKey() + " changed inside the step's transaction");
            }
        }
        for (StepEncoder.Timer t : step.timers()) {
            PreparedStatement ps = c.prepare(t.fireAtNanos() == null ? SqliteTimers.DELETE : SqliteTimers.UPSERT);
            ps.setString(1, step.workflowId());
            ps.setString(2, t.timerId());
            if (t.fireAtNanos() != null) {
                ps.setLong(3, t.fireAtNanos());
            }
            ps.executeUpdate();
        }
        return null;
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
