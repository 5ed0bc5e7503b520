package dev.durablestore.r2dbc.blockhound;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;
import reactor.blockhound.BlockHound;
import reactor.blockhound.BlockingOperationError;

/**
 * Installs BlockHound for a whole test JVM when {@code -Ddurablestore.blockhound=true} (the
 * {@code blockhound} Surefire execution), so the contract kit also proves that nothing blocks a
 * Reactor non-blocking thread or a Netty event loop: not the store, not r2dbc-postgresql, not
 * r2dbc-pool. (H2 work runs on the store's own threads, which may block, see
 * {@code R2dbcDialect#H2}.)
 */
public final class BlockHoundSession implements LauncherSessionListener {

    /** Every blocking call BlockHound caught on a non-blocking thread in this JVM. */
    public static final List<String> VIOLATIONS = new CopyOnWriteArrayList<>();

    private static volatile boolean installed;

    /** @return true when this JVM runs with BlockHound installed */
    public static boolean installed() {
        return installed;
    }

    @Override
    public void launcherSessionOpened(LauncherSession session) {
        if (!Boolean.getBoolean("durablestore.blockhound") || installed) {
            return;
        }
        // install(...) also loads the integrations on the class path (Reactor's marks its
        // non-blocking threads, and Netty's event loops are non-blocking); builder() alone would not.
        BlockHound.install(builder -> builder
                // Test logging to the console is allowed.
                .allowBlockingCallsInside("org.slf4j.simple.SimpleLogger", "write")
                // An idle pool worker taking its next task (or exiting once a disposed scheduler's
                // queue is empty) waits on the queue's lock: the executor's own wait, not a task's.
                .allowBlockingCallsInside("java.util.concurrent.ThreadPoolExecutor", "getTask")
                // Netty 4.2's adaptive buffer allocator guards its magazines with a StampedLock that
                // may park for a moment under contention: a memory-allocator lock, not I/O. Netty's
                // own BlockHound integration does not list it yet, so it failed a connection at random.
                .allowBlockingCallsInside("io.netty.buffer.AdaptivePoolingAllocator$Magazine", "free")
                .allowBlockingCallsInside(
                        "io.netty.buffer.AdaptivePoolingAllocator$MagazineGroup", "tryExpandMagazines")
                .allowBlockingCallsInside("io.netty.buffer.AdaptivePoolingAllocator$MagazineGroup", "allocate")
                .blockingMethodCallback(method -> {
                    VIOLATIONS.add(method + " on " + Thread.currentThread().getName());
                    throw new BlockingOperationError(method);
                }));
        installed = true;
    }
}
