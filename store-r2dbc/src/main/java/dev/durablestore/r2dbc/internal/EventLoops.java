package dev.durablestore.r2dbc.internal;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.ThreadExecutorMap;
import java.util.concurrent.RejectedExecutionException;

/**
 * Runs a task right after the task the current thread is running, when that thread is a Netty event
 * loop (where r2dbc-postgresql delivers every result): the task joins the loop's queue, so it runs
 * once the work that called it has returned, in microseconds and without a timer. A burst of calls
 * made by one task (the completes a claim's rows trigger, one by one; the demand a settle group's
 * callers return, one by one) has then fully arrived when the task runs. On any other thread, or
 * without Netty on the class path, nothing is scheduled and the caller runs the task itself.
 */
final class EventLoops {

    private static final boolean NETTY = nettyPresent();

    private EventLoops() {}

    /**
     * @param task what to run
     * @return true when the task was queued on the current event loop; false when the caller must
     *     run it (not on an event loop, or the loop is shutting down)
     */
    static boolean runAfterCurrentTask(Runnable task) {
        return NETTY && Netty.execute(task);
    }

    private static boolean nettyPresent() {
        try {
            Class.forName("io.netty.util.internal.ThreadExecutorMap", false, EventLoops.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** Loaded only when Netty is present. */
    private static final class Netty {
        static boolean execute(Runnable task) {
            EventExecutor loop = ThreadExecutorMap.currentExecutor();
            if (loop == null || !loop.inEventLoop() || loop.isShuttingDown()) {
                return false;
            }
            try {
                loop.execute(task);
                return true;
            } catch (RejectedExecutionException e) {
                return false;
            }
        }
    }
}
