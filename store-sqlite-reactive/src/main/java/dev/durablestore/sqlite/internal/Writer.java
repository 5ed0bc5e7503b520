package dev.durablestore.sqlite.internal;

import dev.durablestore.api.StoreClosedException;
import dev.durablestore.api.StoreException;
import dev.durablestore.api.StoreMetrics;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.core.scheduler.NonBlocking;
import reactor.core.scheduler.Scheduler;

/**
 * The single writer: one thread at a time owns the only write connection and drains a queue of
 * {@link WriteCommand}s in group commits. Each batch is one {@code BEGIN IMMEDIATE} transaction
 * that takes in the commands arriving while it runs (see {@link #arrivals}); every command's
 * subscriber is signalled only after the commit that holds it has returned (nothing is
 * acknowledged before it is durable). Commands run in queue order, so the writer is the
 * serialization point for guards and claims.
 *
 * <p><b>Two threads, one leader.</b> The thread that committed a batch signals its subscribers
 * itself, at once: their next commands (a dispatcher's completes, the claim its demand asks for)
 * are queued before it takes the queue again, with no thread hand-off between a commit and the
 * next transaction. Subscriber code must not hold up the other submitters, though: a command
 * submitted from any other thread while the leader signals makes the second thread, parked until
 * then, the leader; the first finishes its signals and parks in turn. Only the leader touches the
 * connection and the batch state; leadership moves only while the leader signals, and the move is
 * one compare-and-set on {@link #state}, which also orders the old leader's writes before the new
 * one's reads. Both threads are {@link NonBlocking}, like the emit threads they replace for
 * writes: Reactor refuses {@code block()} on them and BlockHound checks subscriber code there
 * ({@link WriterBlockHoundIntegration} allows the writer's own waits and statements).
 */
public final class Writer {

    private static final Logger log = LoggerFactory.getLogger(Writer.class);

    private final DbConnection connection;
    /** Lock-free, so submitting never parks a non-blocking subscriber thread. */
    private final ConcurrentLinkedQueue<Pending<?>> queue = new ConcurrentLinkedQueue<>();
    private final Pending<Void> poison = new Pending<>(null, null, StoreMetrics.NONE);
    private final int maxBatch;
    private final Scheduler emit;
    private final Runnable onWake;
    private final StoreMetrics metrics;
    private final WriterThread[] threads = new WriterThread[2];
    /**
     * Which thread leads ({@link #LEADER} bit: index into {@link #threads}) and whether it is
     * signalling subscribers ({@link #SIGNALLING}), when only another thread's submit may take the
     * lead from it.
     */
    private final AtomicInteger state = new AtomicInteger(0);
    private static final int LEADER = 1;
    private static final int SIGNALLING = 2;
    /** Set when the leader has stopped: the other thread ends too. */
    private volatile boolean finished;
    /**
     * Set when close() gave up waiting: the leader then stops at its next wait for commands. The
     * interrupt that accompanies it only wakes the thread; an interrupt status a subscriber left
     * behind does not stop the writer.
     */
    private volatile boolean aborted;
    /** Completes when the writer has stopped: close(long) waits for it, closeAsync() subscribes to it. */
    private final CompletableFuture<Void> stopped = new CompletableFuture<>();
    private final String storeName;
    private final List<TransactionListener> listeners = new java.util.concurrent.CopyOnWriteArrayList<>();
    private volatile boolean accepting = true;
    /**
     * Whether the writer is parked until a command arrives. Only then does a submitter unpark it:
     * while the writer lingers for a burst it wakes by itself, and sparing every submitter a
     * wake-up system call (and the writer a context switch per command) is most of what
     * lingering saves.
     */
    private volatile boolean waiting;
    /** Set by the leader when it meets the close marker: the batch in hand is the last. */
    private boolean closing;
    /** How long the last {@code COMMIT} took (its sync), read and written by the leader only. */
    private long lastCommitNanos;
    /** The longest the writer waits for a burst to end: 0.5 ms, and never longer than a commit costs. */
    private static final long MAX_LINGER_NANOS = 500_000L;
    /** Commands arriving closer together than this (50 µs) are one burst: the writer waits for the next. */
    private static final long ARRIVAL_GAP_NANOS = 50_000L;
    /**
     * How long the writer polls its queue, spinning, before it parks after a busy commit (0.2 ms;
     * 0 on a single CPU, where spinning only delays the thread that would submit). Under load the
     * next command is on its way (the subscribers the commit answered send it), and being parked
     * when it comes costs a wake-up the writer waits through: with 64 dispatchers in flight on two
     * cores this spin drained the outbox ~12% faster in a same-run A/B (README, design).
     */
    private static final long IDLE_SPIN_NANOS = Runtime.getRuntime().availableProcessors() > 1 ? 200_000L : 0L;
    /** Whether the last transaction held more than one command: the writer is under load, so it spins. */
    private boolean busy;

    /** Told about every transaction the writer opens and how it ends; called on the writer thread. */
    public interface TransactionListener {
        /**
         * @param c the write connection, right after {@code BEGIN IMMEDIATE}
         * @throws SQLException to fail the transaction
         */
        void afterBegin(DbConnection c) throws SQLException;

        /**
         * Last chance to refuse the transaction, right before {@code COMMIT}.
         *
         * @throws SQLException to roll the transaction back and fail its commands
         */
        default void beforeCommit() throws SQLException {}

        /** The transaction committed. */
        void afterCommit();

        /** The transaction was rolled back (or its commit failed). */
        void afterRollback();
    }

    /**
     * @param connection the write connection, owned from now on
     * @param maxBatch most commands per transaction
     * @param emit where the subscribers of commands refused while the writer stops are signalled
     * @param onWake called after a commit that may have made outbox rows claimable
     * @param metrics receives operation timings and commit batch sizes
     * @param storeName used in the thread name and in errors
     */
    public Writer(DbConnection connection, int maxBatch, Scheduler emit, Runnable onWake, StoreMetrics metrics,
            String storeName) {
        this.connection = connection;
        this.maxBatch = maxBatch;
        this.emit = emit;
        this.onWake = onWake;
        this.metrics = metrics;
        metrics.registerQueueDepth(queue::size);
        this.storeName = storeName;
        for (int i = 0; i < threads.length; i++) {
            threads[i] = new WriterThread(this, i, "durable-store-writer-" + storeName + "-" + (i + 1));
        }
        for (WriterThread t : threads) {
            t.start();
        }
    }

    /** A writer thread: non-blocking for subscribers' code, which it runs when it signals. */
    static final class WriterThread extends Thread implements NonBlocking {
        private final Writer writer;
        final int index;
        /** Parked in {@link Writer#awaitLead}: the lead may be handed to it. */
        volatile boolean idle;

        WriterThread(Writer writer, int index, String name) {
            super(() -> writer.serve(index), name);
            this.writer = writer;
            this.index = index;
            setDaemon(true);
        }

        Writer writer() {
            return writer;
        }
    }

    private WriterThread leader() {
        return threads[state.get() & LEADER];
    }

    /**
     * Queues a command when subscribed.
     *
     * @param command the command
     * @param <T> its result type
     * @return a cold Mono signalled after the command's transaction committed (or failed)
     */
    public <T> Mono<T> submit(WriteCommand<T> command) {
        return Mono.defer(() -> {
            if (!accepting) {
                return Mono.error(closed(command));
            }
            return Mono.<T>create(sink -> {
                if (!accepting) {
                    sink.error(closed(command));
                    return;
                }
                Pending<T> p = new Pending<>(command, sink, metrics);
                sink.onCancel(p::cancel);
                queue.add(p);
                if (!accepting && queue.remove(p)) {
                    // close() came between the check above and the add, and the stopping leader
                    // may have drained the queue already: nobody would ever take this command
                    sink.error(closed(command));
                    return;
                }
                if (!handOverIfSignalling(false) && waiting) {
                    LockSupport.unpark(leader());
                }
            });
        });
    }

    /**
     * Called after a submit: when the leader is signalling subscribers and this is not the leader's
     * own thread (whose commands it takes as soon as it is done), makes the parked thread the leader,
     * so the command does not wait for subscriber code.
     *
     * @param evenFromLeader move the lead also when called on the signalling leader (by close(),
     *     which then waits for the other thread to stop the writer)
     * @return whether the lead moved
     */
    private boolean handOverIfSignalling(boolean evenFromLeader) {
        int s = state.get();
        if ((s & SIGNALLING) == 0) {
            return false;
        }
        WriterThread current = threads[s & LEADER];
        WriterThread other = threads[(s & LEADER) ^ 1];
        if ((Thread.currentThread() == current && !evenFromLeader) || !other.idle
                || !state.compareAndSet(s, other.index)) {
            return false;
        }
        LockSupport.unpark(other);
        return true;
    }

    /**
     * @param listener told about every transaction from now on; must be registered before commands
     *     that rely on it are submitted
     */
    public void addListener(TransactionListener listener) {
        listeners.add(listener);
    }

    /** @return commands waiting for the writer */
    public int queueDepth() {
        return queue.size();
    }

    /**
     * Stops accepting commands, lets the queued ones finish, then closes the write connection.
     *
     * @param timeoutMillis how long to wait for queued commands
     */
    public void close(long timeoutMillis) {
        if (beginClose()) {
            awaitStop(timeoutMillis);
        }
        // else a subscriber closes the store from the writer thread that has to stop the writer
        // itself: the close marker is queued, and the writer stops when it gets to it
    }

    /**
     * Like {@link #close(long)} without blocking the caller: stops accepting commands when
     * subscribed, and completes once the queued ones finished and the connection is closed. When
     * they take longer than {@code timeout}, the leader is stopped at its next wait and whatever is
     * still queued fails with {@link StoreClosedException}.
     *
     * @param timeout how long to wait for queued commands
     * @return completes when the writer has stopped
     */
    public Mono<Void> closeAsync(Duration timeout) {
        return Mono.defer(() -> {
            beginClose();
            Mono<Void> stop = Mono.fromFuture(stopped, true);
            return stop.timeout(timeout, Mono.defer(() -> {
                aborted = true;
                leader().interrupt();
                return stop.timeout(timeout, Mono.empty());
            }));
        });
    }

    /**
     * Stops accepting commands and queues the close marker behind the queued ones (once).
     *
     * @return whether the caller may wait for the writer to stop: false on the writer's own thread
     *     while it signals subscribers, since that thread stops the writer when it gets back to the
     *     queue
     */
    private boolean beginClose() {
        boolean onWriterThread = Thread.currentThread() instanceof WriterThread t && t.writer() == this;
        if (!accepting) {
            return !onWriterThread;
        }
        accepting = false;
        queue.add(poison);
        boolean moved = handOverIfSignalling(true);
        if (!moved) {
            LockSupport.unpark(leader());
        }
        return moved || !onWriterThread;
    }

    private void awaitStop(long timeoutMillis) {
        try {
            try {
                stopped.get(timeoutMillis, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                aborted = true;
                leader().interrupt();
                stopped.get(timeoutMillis, TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (TimeoutException | ExecutionException e) {
            // gave up a second time (or the stop itself failed): close() returns, as before
        }
    }

    /** The body of each writer thread: wait for the lead, lead until it moves or the writer stops. */
    private void serve(int index) {
        WriterThread self = threads[index];
        while (awaitLead(self)) {
            if (lead(self)) {
                return;
            }
        }
    }

    /**
     * Parks until this thread leads. A thread that finished signalling after the lead moved takes
     * it back at once if the leader is signalling in turn and commands wait: they were submitted
     * while no thread was free to take the lead.
     *
     * @return false when the writer has stopped
     */
    private boolean awaitLead(WriterThread self) {
        while ((state.get() & LEADER) != self.index) {
            if (finished) {
                return false;
            }
            // 'idle' is published before the queue is looked at, as a submitter adds before it
            // reads 'idle': either the submitter sees this thread idle and hands it the lead, or
            // this check sees the command
            self.idle = true;
            int s = state.get();
            if ((s & SIGNALLING) != 0 && (s & LEADER) != self.index && !queue.isEmpty()
                    && state.compareAndSet(s, self.index)) {
                self.idle = false;
                break;
            }
            if ((state.get() & LEADER) != self.index && !finished) {
                LockSupport.park(this);
            }
            self.idle = false;
            Thread.interrupted(); // only 'aborted' stops the writer, checked by the leader in take()
        }
        return !finished;
    }

    /**
     * Takes batches from the queue and commits them, signalling each batch's subscribers on this
     * thread, until the lead moves (a submit from another thread while this one signalled) or the
     * writer stops.
     *
     * @return true when the writer stopped (this thread ran its shutdown)
     */
    private boolean lead(WriterThread self) {
        List<Pending<?>> batch = new ArrayList<>();
        List<Pending<?>> done = new ArrayList<>();
        try {
            while (!closing) {
                Pending<?> first = take();
                if (first == poison) {
                    break;
                }
                batch.add(first);
                runBatch(batch, done);
                batch.clear();
                boolean stillLeading = signal(self, done);
                Thread.interrupted(); // a status a subscriber left behind; only 'aborted' stops the writer
                if (!stillLeading) {
                    return false;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failUnfinished(batch, done, p -> closed(p.command));
        } catch (Throwable t) {
            log.error("durable-store writer {} stopped unexpectedly", storeName, t);
            failUnfinished(batch, done, p -> Failures.backend(p.command.name(), t));
        }
        stop();
        return true;
    }

    /** Fails the commands of the batch in hand that have no outcome yet, and signals the whole batch. */
    private void failUnfinished(List<Pending<?>> batch, List<Pending<?>> done,
            Function<Pending<?>, Throwable> failure) {
        List<Pending<?>> signals = new ArrayList<>(done);
        for (Pending<?> p : batch) {
            if (!done.contains(p)) {
                p.fail(failure.apply(p));
                signals.add(p);
            }
        }
        publish(signals);
    }

    /** Refuses what is still queued, folds the WAL back, closes the connection and ends both threads. */
    private void stop() {
        try {
            accepting = false;
            List<Pending<?>> refused = new ArrayList<>();
            Pending<?> p;
            while ((p = queue.poll()) != null) {
                if (p != poison) {
                    p.fail(closed(p.command));
                    refused.add(p);
                }
            }
            publish(refused);
            checkpoint();
            connection.close();
        } finally {
            finished = true;
            for (WriterThread t : threads) {
                LockSupport.unpark(t);
            }
            stopped.complete(null);
        }
    }

    /**
     * Signals the subscribers of finished commands on this (the leader's) thread, in order; a
     * subscriber that throws is logged and the others are still signalled.
     *
     * @param done the finished commands, emptied
     * @return whether this thread still leads: false when another thread's submit took the lead
     *     meanwhile
     */
    private boolean signal(WriterThread self, List<Pending<?>> done) {
        if (done.isEmpty()) {
            return true;
        }
        state.set(self.index | SIGNALLING);
        try {
            for (Pending<?> p : done) {
                try {
                    p.signal();
                } catch (Throwable t) {
                    log.error("durable-store writer {}: a subscriber of {} threw while being signalled", storeName,
                            p.command.name(), t);
                }
            }
        } finally {
            done.clear();
        }
        return state.compareAndSet(self.index | SIGNALLING, self.index);
    }

    /**
     * Adds the commands that arrived to the batch (and to {@code todo}), up to {@code maxBatch}, while
     * the transaction is open. When none is waiting but commands keep arriving (the last came less
     * than {@link #ARRIVAL_GAP_NANOS} ago), it waits for the next, within the batch's idle budget
     * (what the last {@code COMMIT} cost, at most {@link #MAX_LINGER_NANOS}): subscribers answered by
     * the previous commit send their next commands one after another, and running each as it
     * arrives, then committing them all at once, costs one sync instead of several — while the
     * writer works on the first arrivals instead of sleeping until the last.
     *
     * @return how many commands were added; 0 ends the batch
     */
    private int arrivals(List<Pending<?>> batch, List<Pending<?>> todo, Linger linger, boolean mayWait) {
        int added = 0;
        while (batch.size() < maxBatch && !closing) {
            Pending<?> next = queue.poll();
            if (next == null) {
                if (added > 0 || !mayWait) {
                    return added; // run these first; wait only when there is nothing to run
                }
                long now = System.nanoTime();
                long quiet = now - linger.lastArrival;
                if (quiet >= ARRIVAL_GAP_NANOS || linger.idleLeft <= 0) {
                    return 0;
                }
                // submitters do not unpark a lingering writer ('waiting' is false): it wakes by itself
                LockSupport.parkNanos(this, Math.min(linger.idleLeft, ARRIVAL_GAP_NANOS - quiet));
                linger.idleLeft -= System.nanoTime() - now;
                continue;
            }
            if (next == poison) {
                closing = true; // commands queued after it are refused when the writer stops
                break;
            }
            batch.add(next);
            linger.lastArrival = Math.max(linger.lastArrival, next.queuedAt);
            if (!next.cancelled) {
                todo.add(next);
                added++;
            }
        }
        return added;
    }

    /** The waiting state of one batch: when its last command arrived, and how long it may still idle. */
    private static final class Linger {
        long lastArrival;
        long idleLeft;

        Linger(long lastArrival, long idleLeft) {
            this.lastArrival = lastArrival;
            this.idleLeft = idleLeft;
        }
    }

    private Pending<?> take() throws InterruptedException {
        if (aborted) {
            throw new InterruptedException();
        }
        Pending<?> p;
        if (busy) {
            long spinUntil = System.nanoTime() + IDLE_SPIN_NANOS;
            do {
                if ((p = queue.poll()) != null) {
                    return p;
                }
                Thread.onSpinWait();
            } while (System.nanoTime() < spinUntil);
        }
        while ((p = queue.poll()) == null) {
            // Publish 'waiting' before looking at the queue again: a submitter adds then reads
            // 'waiting', so either it sees the flag and unparks, or this check sees its command.
            waiting = true;
            if (queue.isEmpty() && !aborted) {
                LockSupport.park(this);
            }
            waiting = false;
            Thread.interrupted(); // a status a subscriber left behind does not stop the writer
            if (aborted) {
                throw new InterruptedException();
            }
        }
        return p;
    }

    /** Folds the WAL back into the database so a clean close leaves no {@code -wal} behind. */
    private void checkpoint() {
        try {
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)");
        } catch (SQLException e) {
            log.debug("checkpoint at close failed; the WAL is recovered on the next open", e);
        }
    }

    /**
     * Runs one batch to its end: committed, or each command failed or rejected.
     *
     * @param batch the first command; commands arriving meanwhile are added
     * @param done receives every finished command, in order, for {@link #signal}
     */
    private void runBatch(List<Pending<?>> batch, List<Pending<?>> done) {
        List<Pending<?>> todo = new ArrayList<>(batch.size());
        for (Pending<?> p : batch) {
            if (!p.cancelled) {
                todo.add(p);
            }
        }
        Linger linger = new Linger(batch.get(0).queuedAt, Math.min(MAX_LINGER_NANOS, lastCommitNanos));
        arrivals(batch, todo, linger, false); // what is already queued joins at once
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
                for (TransactionListener l : listeners) {
                    l.afterBegin(connection);
                }
            } catch (SQLException | RuntimeException e) {
                rollbackQuietly();
                failAll(todo, e, done);
                return;
            }
            Outcome run = new Outcome();
            int ran = execute(todo, 0, grouping, run);
            while (extending && run.failedAt < 0 && arrivals(batch, todo, linger, true) > 0) {
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
                for (TransactionListener l : listeners) {
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
            for (TransactionListener l : listeners) {
                l.afterCommit();
            }
            boolean wake = false;
            for (Pending<?> p : todo) {
                wake |= p.rejection == null && p.command.wakesClaimers();
            }
            busy = todo.size() > 1;
            done.addAll(todo);
            metrics.batchCommitted(todo.size(), System.nanoTime() - began);
            if (wake) {
                onWake.run();
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
        while (end < todo.size() && todo.get(end).command instanceof GroupedCommand<?> next
                && next.getClass() == first.getClass() && group.equals(next.group())) {
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

    /**
     * Signals the subscribers of commands refused or failed while the writer stops, from one task
     * on the emit scheduler: the stopping leader does not run subscriber code.
     */
    private void publish(List<Pending<?>> finished) {
        if (finished.isEmpty()) {
            return;
        }
        List<Pending<?>> signals = List.copyOf(finished);
        Runnable task = () -> {
            for (Pending<?> p : signals) {
                p.signal();
            }
        };
        try {
            emit.schedule(task);
        } catch (RejectedExecutionException e) {
            task.run(); // the store is closing and its emit threads are gone: signal here
        }
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
        for (TransactionListener l : listeners) {
            l.afterRollback();
        }
        try {
            connection.execute("ROLLBACK");
        } catch (SQLException e) {
            log.debug("rollback after failure also failed (no transaction left open?)", e);
        }
    }

    private StoreClosedException closed(WriteCommand<?> command) {
        return new StoreClosedException(
                (command == null ? "operation" : command.name()) + " refused: store " + storeName + " is closed");
    }

    /** A queued command with its subscriber and its outcome in the current transaction. */
    private static final class Pending<T> {
        final WriteCommand<T> command;
        final MonoSink<T> sink;
        final StoreMetrics metrics;
        final long queuedAt = System.nanoTime();
        volatile boolean cancelled;
        T value;
        /** A refusal of this command alone (its transaction still commits). */
        Throwable rejection;
        /** The command's outcome is this failure (its writes, if any, were rolled back). */
        Throwable failure;

        Pending(WriteCommand<T> command, MonoSink<T> sink, StoreMetrics metrics) {
            this.command = command;
            this.sink = sink;
            this.metrics = metrics;
        }

        void cancel() {
            cancelled = true;
        }

        void run(DbConnection c) throws SQLException {
            rejection = null;
            value = command.execute(c);
        }

        void reject(StoreException e) {
            value = null;
            rejection = e;
        }

        void fail(Throwable t) {
            failure = t;
        }

        /** Tells the subscriber the outcome; called once, on the leading writer thread (or an emit thread when the writer stops). */
        void signal() {
            Throwable error = failure != null ? failure : rejection;
            metrics.operation(command.name(), System.nanoTime() - queuedAt, error == null);
            if (error != null) {
                sink.error(error);
            } else if (value == null) {
                sink.success();
            } else {
                sink.success(value);
            }
        }
    }
}
