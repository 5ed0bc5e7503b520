package dev.durablestore.examples.demo.blockhound;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;
import reactor.blockhound.BlockHound;
import reactor.blockhound.BlockingOperationError;

/**
 * Installs BlockHound for the whole test JVM when {@code -Ddurablestore.blockhound=true} (the
 * {@code blockhound} Surefire execution of this module). It must be installed before any Reactor
 * thread starts: a scheduler thread that was already idling when BlockHound arrived is reported for
 * its own idle wait, and the error kills it.
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
        BlockHound.install(builder -> builder
                // sqlite-jdbc's native calls do I/O and take the database lock: blocking.
                .markAsBlocking("org.sqlite.core.NativeDB", "step", "(J)I")
                .markAsBlocking("org.sqlite.core.NativeDB", "_exec_utf8", "([B)I")
                .markAsBlocking("org.sqlite.core.NativeDB", "prepare_utf8", "([B)J")
                .markAsBlocking("org.sqlite.core.NativeDB", "_open_utf8", "([BI)V")
                // Warnings logged to the console are allowed.
                .allowBlockingCallsInside("org.slf4j.simple.SimpleLogger", "write")
                // An idle pool worker taking its next task (or exiting once a disposed scheduler's
                // queue is empty) waits on the queue's lock: the executor's own wait, not a task's.
                .allowBlockingCallsInside("java.util.concurrent.ThreadPoolExecutor", "getTask")
                .blockingMethodCallback(method -> {
                    VIOLATIONS.add(method + " on " + Thread.currentThread().getName());
                    throw new BlockingOperationError(method);
                }));
        installed = true;
    }
}
