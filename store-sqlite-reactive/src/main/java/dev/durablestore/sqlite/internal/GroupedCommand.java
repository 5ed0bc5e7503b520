package dev.durablestore.sqlite.internal;

import java.sql.SQLException;
import java.util.List;

/**
 * A command without a result that can run together with its neighbours in the queue: when a batch
 * holds adjacent commands of one class with equal {@link #group()} keys, the writer runs them with
 * one {@link #executeGroup} (one statement, or a few, instead of one per command). Running them
 * together must have the effect of running them one after another; they have no result to tell
 * apart.
 *
 * <p>When a grouped run fails, the writer rolls the transaction back and runs the batch again
 * command by command, so a failure is still charged to the one command that causes it.
 *
 * @param <C> the implementing class: a group holds commands of that class only
 */
interface GroupedCommand<C extends GroupedCommand<C>> extends WriteCommand<Void> {

    /** @return commands with equal keys (by {@code equals}) may run as one group */
    Object group();

    /**
     * Runs {@code commands} (two or more, all of this command's group, in queue order) in the open
     * transaction.
     *
     * @param c the write connection
     * @param commands the group
     * @throws SQLException on storage failure (the transaction is rolled back)
     */
    void executeGroup(DbConnection c, List<C> commands) throws SQLException;
}
