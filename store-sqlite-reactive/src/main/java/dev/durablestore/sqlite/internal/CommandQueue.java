package dev.durablestore.sqlite.internal;

import dev.durablestore.api.StoreMetrics;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * The {@link Writer}'s queue of commands and its linger policy: how the leader waits for work.
 * Between batches it takes the next command, spinning for a moment after a busy commit and parking
 * otherwise ({@link #take()}); inside an open transaction it takes in what arrives, and waits for
 * the rest of a burst within the batch's idle budget ({@link #arrivals}). Submitters add from any
 * thread; everything else runs on the leading writer thread.
 */
final class CommandQueue {

    /** The longest the writer waits for a burst to end: 0.5 ms, and never longer than a commit costs. */
    private static final long MAX_LINGER_NANOS = 500_000L;
    /** Commands arriving closer together than this (50 µs) are one burst: the writer waits for the next. */
    private static final long ARRIVAL_GAP_NANOS = 50_000L;
    /**
     * How long the writer polls its queue, spinning, before it parks after a busy commit (0.2 ms;
     * 0 on a single CPU, where spinning only delays the thread that would submit). Under load the
     * next command is on its way (the subscribers the commit answered send it), and being parked
     * when it comes costs a wake-up the writer waits through: with 64 dispatchers in flight on two
     * cores this spin drained the outbox ~12% faster in a same-run A/B (docs/design.md).
     */
    private static final long IDLE_SPIN_NANOS = Runtime.getRuntime().availableProcessors() > 1 ? 200_000L : 0L;

    /** Lock-free, so submitting never parks a non-blocking subscriber thread. */
    final ConcurrentLinkedQueue<Pending<?>> queue = new ConcurrentLinkedQueue<>();
    /** The close marker: commands queued behind it are refused when the writer stops. */
    final Pending<Void> poison = new Pending<>(null, null, StoreMetrics.NONE);

    private final int maxBatch;
    /**
     * Whether the writer is parked until a command arrives. Only then does a submitter unpark it:
     * while the writer lingers for a burst it wakes by itself, and sparing every submitter a
     * wake-up system call (and the writer a context switch per command) is most of what
     * lingering saves.
     */
    volatile boolean waiting;
    /**
     * Set when close() gave up waiting: the leader then stops at its next wait for commands. The
     * interrupt that accompanies it only wakes the thread; an interrupt status a subscriber left
     * behind does not stop the writer.
     */
    volatile boolean aborted;
    /** Set by the leader when it meets the close marker: the batch in hand is the last. */
    boolean closing;
    /** Whether the last transaction held more than one command: the writer is under load, so it spins. */
    boolean busy;

    /** @param maxBatch most commands per transaction */
    CommandQueue(int maxBatch) {
        this.maxBatch = maxBatch;
    }

    /**
     * Takes the next command for a new batch, waiting as long as it takes: spinning first when the
     * last transaction was busy, then parked until a submitter unparks it.
     *
     * @return the command, or the close marker
     * @throws InterruptedException when close() gave up waiting ({@link #aborted})
     */
    Pending<?> take() throws InterruptedException {
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

    /**
     * @param first the batch's first command
     * @param lastCommitNanos what the last {@code COMMIT} cost
     * @return the waiting state of a new batch: its idle budget is that cost, at most {@link #MAX_LINGER_NANOS}
     */
    static Linger linger(Pending<?> first, long lastCommitNanos) {
        return new Linger(first.queuedAt, Math.min(MAX_LINGER_NANOS, lastCommitNanos));
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
    int arrivals(List<Pending<?>> batch, List<Pending<?>> todo, Linger linger, boolean mayWait) {
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
    static final class Linger {
        long lastArrival;
        long idleLeft;

        Linger(long lastArrival, long idleLeft) {
            this.lastArrival = lastArrival;
            this.idleLeft = idleLeft;
        }
    }
}
