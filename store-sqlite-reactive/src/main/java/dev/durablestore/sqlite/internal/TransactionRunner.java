package dev.durablestore.sqlite.internal;

import dev.durablestore.api.StoreException;
import dev.durablestore.api.StoreMetrics;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the {@link Writer}'s batches, each as one {@code BEGIN IMMEDIATE} transaction on the write
 * connection: takes in the commands that arrive while it is open (group commit, see
 * {@link CommandQueue#arrivals}), runs adjacent {@link GroupedCommand}s of one group together, and
 * replays: when a group fails, the batch runs again command by command; when a command fails, it
 * alone fails and the others run again in a new transaction. Tells the
 * {@link Writer.TransactionListener}s how each transaction begins and ends. Runs on the leading
 * writer thread only.
 */
final class TransactionRunner {

    private static final Logger log = LoggerFactory.getLogger(Writer.class);

    private final DbConnection connection;
    private final CommandQueue queue;
    private final Runnable onWake;
    private final StoreMetrics metrics;
    private final List<Writer.TransactionListener> listeners = new CopyOnWriteArrayList<>();
    /** How long the last {@code COMMIT} took (its sync), read and written by the leader only. */
    private long lastCommitNanos;

    /**
     * @param connection the write connection
     * @param queue where arrivals come from, and told whether the writer is busy
     * @param onWake called after a commit that may have made outbox rows claimable
     * @param metrics receives commit batch sizes
     */
    TransactionRunner(DbConnection connection, CommandQueue queue, Runnable onWake, StoreMetrics metrics) {
        this.connection = connection;
        this.queue = queue;
        this.onWake = onWake;
        this.metrics = metrics;
    }

    void addListener(Writer.TransactionListener listener) {
        listeners.add(listener);
    }

    /**
     * Runs one batch to its end: committed, or each command failed or rejected.
     *
     * @param batch the first command; commands arriving meanwhile are added
     * @param done receives every finished command, in order, for {@link LeaderHandOff#signal}
     */
    void runBatch(List<Pending<?>> batch, List<Pending<?>> done) {
        List<Pending<?>> todo = new ArrayList<>(batch.size());
        for (Pending<?> p : batch) {
            if (!p.cancelled) {
                todo.add(p);
            }
        }
        CommandQueue.Linger linger = CommandQueue.linger(batch.get(0), lastCommitNanos);
        queue.arrivals(batch, todo, linger, false); // what is already queued joins at once
        boolean grouping = true;
        boolean extending = true; // only the first attempt takes in arrivals; a replay runs a fixed list
        while (!todo.isEmpty()) {
            long began = System.nanoTime();
            try {
                connection.execute("BEGIN IMMEDIATE");
            } catch (SQLException e) {
                connection.resetStatements();
                failAll(todo, e, done);
                return;
            }
            try {
                for (Writer.TransactionListener l : listeners) {
                    l.afterBegin(connection);
                }
            } catch (SQLException | RuntimeException e) {
                rollbackQuietly();
                failAll(todo, e, done);
                return;
            }
            Outcome run = new Outcome();
            int ran = execute(todo, 0, grouping, run);
            while (extending && run.failedAt < 0 && queue.arrivals(batch, todo, linger, true) > 0) {
                ran = execute(todo, ran, grouping, run);
            }
            extending = false;
            int failedAt = run.failedAt;
            Throwable failure = run.failure;
            boolean groupFailed = run.groupFailed;
            if (groupFailed) {
                // charge the failure to the one command that causes it: run the batch again, one by one
                log.debug("grouped commands failed; running the batch again command by command", failure);
                rollbackQuietly();
                grouping = false;
                continue;
            }
            if (failedAt >= 0) {
                rollbackQuietly();
                Pending<?> bad = todo.remove(failedAt);
                bad.fail(mapFailure(bad, failure));
                done.add(bad);
                continue; // the others wrote nothing durable: run them again
            }
            try {
                for (Writer.TransactionListener l : listeners) {
                    l.beforeCommit();
                }
                long commitBegan = System.nanoTime();
                connection.execute("COMMIT");
                lastCommitNanos = System.nanoTime() - commitBegan;
            } catch (SQLException e) {
                rollbackQuietly();
                failAll(todo, e, done);
                return;
            }
            for (Writer.TransactionListener l : listeners) {
                l.afterCommit();
            }
            boolean wake = false;
            for (Pending<?> p : todo) {
                wake |= p.rejection == null && p.command.wakesClaimers();
            }
            queue.busy = todo.size() > 1;
            done.addAll(todo);
            metrics.batchCommitted(todo.size(), System.nanoTime() - began);
            if (wake) {
                onWake.run(); // every stream, the policy streams among them
            }
            return;
        }
    }

    /** How running a batch's commands went: where the first failure was, if any. */
    private static final class Outcome {
        int failedAt = -1;
        Throwable failure;
        /** The failure came from a group: it is not yet known which of its commands causes it. */
        boolean groupFailed;
    }

    /**
     * Runs {@code todo[from..]} in the open transaction, adjacent commands of one group together;
     * a command that rejects its input is marked and skipped, any other failure stops the run.
     *
     * @return the index reached ({@code todo.size()} unless a failure stopped it)
     */
    private int execute(List<Pending<?>> todo, int from, boolean grouping, Outcome outcome) {
        int i = from;
        while (i < todo.size()) {
            int end = grouping ? groupEnd(todo, i) : i + 1;
            Pending<?> p = todo.get(i);
            try {
                if (end - i > 1) {
                    runGroup(todo.subList(i, end));
                } else {
                    p.run(connection);
                }
            } catch (Throwable t) {
                if (end - i == 1 && t instanceof StoreException rejected) {
                    p.reject(rejected);
                    i = end;
                    continue;
                }
                outcome.failedAt = i;
                outcome.failure = t;
                outcome.groupFailed = end - i > 1;
                return i;
            }
            i = end;
        }
        return i;
    }

    /** @return the end (exclusive) of the run of groupable commands of one group starting at {@code from} */
    private static int groupEnd(List<Pending<?>> todo, int from) {
        if (!(todo.get(from).command instanceof GroupedCommand<?> first)) {
            return from + 1;
        }
        Object group = first.group();
        int end = from + 1;
        while (end < todo.size()
                && todo.get(end).command instanceof GroupedCommand<?> next
                && next.getClass() == first.getClass()
                && group.equals(next.group())) {
            end++;
        }
        return end;
    }

    /** Runs a group found by {@link #groupEnd}: commands of one class, so the list is of its type. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private void runGroup(List<Pending<?>> group) throws SQLException {
        List commands = new ArrayList<>(group.size());
        for (Pending<?> p : group) {
            commands.add(p.command);
        }
        ((GroupedCommand) group.get(0).command).executeGroup(connection, commands);
        for (Pending<?> p : group) {
            p.rejection = null;
            p.value = null;
        }
    }

    private void failAll(List<Pending<?>> todo, Throwable failure, List<Pending<?>> done) {
        for (Pending<?> p : todo) {
            p.fail(mapFailure(p, failure));
        }
        done.addAll(todo);
    }

    private Throwable mapFailure(Pending<?> p, Throwable failure) {
        try {
            return p.command.onTransactionFailure(connection, failure);
        } catch (Throwable t) {
            failure.addSuppressed(t);
            return Failures.backend(p.command.name(), failure);
        }
    }

    private void rollbackQuietly() {
        connection.resetStatements();
        for (Writer.TransactionListener l : listeners) {
            l.afterRollback();
        }
        try {
            connection.execute("ROLLBACK");
        } catch (SQLException e) {
            log.debug("rollback after failure also failed (no transaction left open?)", e);
        }
    }
}
