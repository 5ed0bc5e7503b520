package dev.durablestore.sqlite.internal;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.scheduler.NonBlocking;

/**
 * The {@link Writer}'s two threads and the hand-off of the lead between them. Only the leader
 * touches the connection and the batch state; it signals its subscribers itself ({@link #signal}),
 * and a command submitted from any other thread meanwhile makes the parked thread the leader
 * ({@link #handOverIfSignalling}), so subscriber code does not hold up the other submitters. The
 * move is one compare-and-set on {@link #state}, which also orders the old leader's writes before
 * the new one's reads; the thread that lost the lead parks in {@link #awaitLead} until it gets it
 * back.
 */
final class LeaderHandOff {

    private static final Logger log = LoggerFactory.getLogger(Writer.class);

    /** Which thread leads: the index into {@link #threads}. */
    private static final int LEADER = 1;
    /** The leader is signalling subscribers: only another thread's submit may take the lead from it. */
    private static final int SIGNALLING = 2;

    private final WriterThread[] threads = new WriterThread[2];
    /**
     * Which thread leads ({@link #LEADER} bit: index into {@link #threads}) and whether it is
     * signalling subscribers ({@link #SIGNALLING}), when only another thread's submit may take the
     * lead from it.
     */
    private final AtomicInteger state = new AtomicInteger(0);

    private final CommandQueue queue;
    private final String storeName;
    /** Set when the leader has stopped: the other thread ends too. */
    private volatile boolean finished;

    /**
     * Creates the threads, not started yet.
     *
     * @param queue the writer's queue: a thread that is free takes the lead back when commands wait
     * @param body what each thread runs, given its index
     * @param storeName used in the thread names and in logs
     */
    LeaderHandOff(CommandQueue queue, IntConsumer body, String storeName) {
        this.queue = queue;
        this.storeName = storeName;
        for (int i = 0; i < threads.length; i++) {
            int index = i;
            threads[i] = new WriterThread(
                    this, i, "durable-store-writer-" + storeName + "-" + (i + 1), () -> body.accept(index));
        }
    }

    void start() {
        for (WriterThread t : threads) {
            t.start();
        }
    }

    /** A writer thread: non-blocking for subscribers' code, which it runs when it signals. */
    static final class WriterThread extends Thread implements NonBlocking {
        private final LeaderHandOff owner;
        final int index;
        /** Parked in {@link LeaderHandOff#awaitLead}: the lead may be handed to it. */
        volatile boolean idle;

        WriterThread(LeaderHandOff owner, int index, String name, Runnable body) {
            super(body, name);
            this.owner = owner;
            this.index = index;
            setDaemon(true);
        }
    }

    /** @return the thread at {@code index} */
    WriterThread thread(int index) {
        return threads[index];
    }

    /** @return the thread that leads now */
    WriterThread leader() {
        return threads[state.get() & LEADER];
    }

    /** @return whether the caller runs on one of these threads */
    boolean onWriterThread() {
        return Thread.currentThread() instanceof WriterThread t && t.owner == this;
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
    boolean handOverIfSignalling(boolean evenFromLeader) {
        int s = state.get();
        if ((s & SIGNALLING) == 0) {
            return false;
        }
        WriterThread current = threads[s & LEADER];
        WriterThread other = threads[(s & LEADER) ^ 1];
        if ((Thread.currentThread() == current && !evenFromLeader)
                || !other.idle
                || !state.compareAndSet(s, other.index)) {
            return false;
        }
        LockSupport.unpark(other);
        return true;
    }

    /**
     * Parks until this thread leads. A thread that finished signalling after the lead moved takes
     * it back at once if the leader is signalling in turn and commands wait: they were submitted
     * while no thread was free to take the lead.
     *
     * @return false when the writer has stopped
     */
    boolean awaitLead(WriterThread self) {
        while ((state.get() & LEADER) != self.index) {
            if (finished) {
                return false;
            }
            // 'idle' is published before the queue is looked at, as a submitter adds before it
            // reads 'idle': either the submitter sees this thread idle and hands it the lead, or
            // this check sees the command
            self.idle = true;
            int s = state.get();
            if ((s & SIGNALLING) != 0
                    && (s & LEADER) != self.index
                    && !queue.queue.isEmpty()
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
     * Signals the subscribers of finished commands on this (the leader's) thread, in order; a
     * subscriber that throws is logged and the others are still signalled.
     *
     * @param done the finished commands, emptied
     * @return whether this thread still leads: false when another thread's submit took the lead
     *     meanwhile
     */
    boolean signal(WriterThread self, List<Pending<?>> done) {
        if (done.isEmpty()) {
            return true;
        }
        state.set(self.index | SIGNALLING);
        try {
            for (Pending<?> p : done) {
                try {
                    p.signal();
                } catch (Throwable t) {
                    log.error(
                            "durable-store writer {}: a subscriber of {} threw while being signalled",
                            storeName,
                            p.command.name(),
                            t);
                }
            }
        } finally {
            done.clear();
        }
        return state.compareAndSet(self.index | SIGNALLING, self.index);
    }

    /** The leader has stopped: ends the other thread too. */
    void finish() {
        finished = true;
        for (WriterThread t : threads) {
            LockSupport.unpark(t);
        }
    }
}
