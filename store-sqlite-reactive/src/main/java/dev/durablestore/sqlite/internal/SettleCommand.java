package dev.durablestore.sqlite.internal;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Settles one live outbox row by key ({@code settleKeys}: complete O29, fail O31, cancel O32);
 * a row that is not live (or not stored) is left unchanged. Adjacent settles of one kind in a batch
 * run as one {@code UPDATE … WHERE dispatch_key IN (json_each(?))}: a dispatcher completing rows at
 * concurrency 64 sends its completes in bursts, and one statement per burst beats one per row.
 */
final class SettleCommand implements GroupedCommand<SettleCommand> {

    /** The three settlements and their statements. */
    enum Kind {
        COMPLETE("complete", "done"),
        FAIL("fail", "failed"),
        CANCEL("settleCancelled", "cancelled");

        private final String operation;
        private final String one;
        private final String many;

        Kind(String operation, String status) {
            this.operation = operation;
            String set = "UPDATE outbox SET status = '" + status + "', claimed_at = NULL, settled_at = ? WHERE ";
            String live = " AND status IN ('pending', 'claimed')";
            this.one = set + "dispatch_key = ?" + live;
            this.many = set + "dispatch_key IN (SELECT value FROM json_each(?))" + live;
        }
    }

    private final Kind kind;
    private final String key;
    private final Clock clock;

    /**
     * @param kind which settlement
     * @param key the dispatch key, already checked non-empty
     * @param clock the store's clock, read once per statement
     */
    SettleCommand(Kind kind, String key, Clock clock) {
        this.kind = kind;
        this.key = key;
        this.clock = clock;
    }

    /**
     * The bulk settle of {@code settleKeys} (complete, fail, cancel): one statement
     * over every key, run as one command (so one transaction) of its own.
     *
     * @param kind which settlement
     * @param keys the dispatch keys, checked, storable and not empty
     * @param clock the store's clock, read when the statement runs
     * @return the command
     */
    static WriteCommand<Void> bulk(Kind kind, Collection<String> keys, Clock clock) {
        String json = JsonArrays.of(keys);
        return Commands.of(kind.operation, false, c -> {
            PreparedStatement ps = c.prepare(kind.many);
            ps.setLong(1, Times.nowNanos(clock.instant()));
            ps.setString(2, json);
            ps.executeUpdate();
            return null;
        });
    }

    @Override
    public Void execute(DbConnection c) throws SQLException {
        PreparedStatement ps = c.prepare(kind.one);
        ps.setLong(1, Times.nowNanos(clock.instant()));
        ps.setString(2, key);
        ps.executeUpdate();
        return null;
    }

    @Override
    public Object group() {
        return kind;
    }

    @Override
    public void executeGroup(DbConnection c, List<SettleCommand> commands) throws SQLException {
        List<String> keys = new ArrayList<>(commands.size());
        for (SettleCommand command : commands) {
            keys.add(command.key);
        }
        PreparedStatement ps = c.prepare(kind.many);
        ps.setLong(1, Times.nowNanos(clock.instant()));
        ps.setString(2, JsonArrays.of(keys));
        ps.executeUpdate();
    }

    @Override
    public String name() {
        return kind.operation;
    }
}
