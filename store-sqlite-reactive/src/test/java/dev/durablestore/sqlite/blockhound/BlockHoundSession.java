package dev.durablestore.sqlite.blockhound;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;
import reactor.blockhound.BlockHound;
import reactor.blockhound.BlockingOperationError;

/**
 * Installs BlockHound for a whole test JVM when {@code -Ddurablestore.blockhound=true} (the
 * {@code blockhound} Surefire execution), so every contract test also proves that no blocking call
 * — SQLite's native statement calls included — runs on a Reactor non-blocking thread.
 */
public final class BlockHoundSession implements LauncherSessionListener {

    /** Every blocking call BlockHound caught on a non-blocking thread in this JVM. */
    public static final List<String> VIOLATIONS = new CopyOnWriteArrayList<>();

    private static volatile boolean installed;

    /** @return the calling frames outside BlockHound and the JDK, innermost first, so a violation names its code */
    private static String callers() {
        StringBuilder frames = new StringBuilder();
        int shown = 0;
        for (StackTraceElement f : new Throwable().getStackTrace()) {
            String cls = f.getClassName();
            if (cls.startsWith("reactor.blockhound")
                    || cls.startsWith("java.")
                    || cls.startsWith("jdk.")
                    || cls.startsWith(BlockHoundSession.class.getName())) {
                continue;
            }
            frames.append(shown == 0 ? "" : " < ")
                    .append(cls)
                    .append('.')
                    .append(f.getMethodName())
                    .append(':')
                    .append(f.getLineNumber());
            if (++shown == 8) {
                break;
            }
        }
        return frames.toString();
    }

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
        // non-blocking threads); builder() alone would not.
        BlockHound.install(builder -> builder
                // sqlite-jdbc's native calls do I/O and take the database lock: blocking.
                .markAsBlocking("org.sqlite.core.NativeDB", "step", "(J)I")
                .markAsBlocking("org.sqlite.core.NativeDB", "_exec_utf8", "([B)I")
                .markAsBlocking("org.sqlite.core.NativeDB", "prepare_utf8", "([B)J")
                .markAsBlocking("org.sqlite.core.NativeDB", "_open_utf8", "([BI)V")
                // Test logging to the console is allowed.
                .allowBlockingCallsInside("org.slf4j.simple.SimpleLogger", "write")
                // An idle pool worker taking its next task (or exiting once a disposed scheduler's
                // queue is empty) waits on the queue's lock: the executor's own wait, not a task's.
                .allowBlockingCallsInside("java.util.concurrent.ThreadPoolExecutor", "getTask")
                .blockingMethodCallback(method -> {
                    VIOLATIONS.add(method + " on " + Thread.currentThread().getName() + " in " + callers());
                    throw new BlockingOperationError(method);
                }));
        installed = true;
    }
}
