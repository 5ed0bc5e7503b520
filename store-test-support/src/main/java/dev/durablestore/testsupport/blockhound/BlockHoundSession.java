package dev.durablestore.testsupport.blockhound;

import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;
import reactor.blockhound.BlockHound;
import reactor.blockhound.BlockingOperationError;

/**
 * Installs BlockHound for a whole test JVM when {@code -Ddurablestore.blockhound=true} (the
 * {@code blockhound} Surefire execution of a module), so the tests in that JVM also prove that no
 * blocking call runs on a Reactor non-blocking thread (or a Netty event loop, where Netty is on the
 * class path). It installs BlockHound when the JUnit Platform opens its session, before any test
 * class loads: a scheduler thread that was already idling when BlockHound arrived would be reported
 * for its own idle wait, and the error would kill it.
 *
 * <p>This jar registers the listener, so a module's tests get it by depending on
 * {@code store-test-support}; without the property it does nothing. The rules here are the ones
 * every module needs. {@link BlockHound#install} also loads every {@code BlockHoundIntegration} on
 * the class path (Reactor's marks its non-blocking threads, the SQLite store's declares its writer's
 * own waits): a module adds the rules only it needs as such an integration, named in its test
 * resources' {@code META-INF/services/reactor.blockhound.integration.BlockHoundIntegration} (for
 * example {@link SqliteNativeBlockingCalls}).
 *
 * <p>Every blocking call caught on a non-blocking thread is recorded ({@link #violations()}) as well
 * as thrown, because an operator may swallow the error (a dispatcher retries it, for one).
 */
public final class BlockHoundSession implements LauncherSessionListener {

    /** The system property that turns the session on. */
    public static final String PROPERTY = "durablestore.blockhound";

    private static final List<String> VIOLATIONS = new CopyOnWriteArrayList<>();

    private static volatile boolean installed;

    /** Creates the listener; the JUnit Platform does, from this jar's service entry. */
    public BlockHoundSession() {}

    /** @return true when this JVM runs with BlockHound installed */
    public static boolean installed() {
        return installed;
    }

    /**
     * @return every blocking call BlockHound caught on a non-blocking thread in this JVM since the
     *     last {@link #clearViolations()}, each as the method, the thread and the calling frames (a
     *     live, unmodifiable view)
     */
    public static List<String> violations() {
        return Collections.unmodifiableList(VIOLATIONS);
    }

    /** Forgets the violations recorded so far: a test that provokes one on purpose clears it. */
    public static void clearViolations() {
        VIOLATIONS.clear();
    }

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

    /**
     * Installs BlockHound, once per JVM, when {@value #PROPERTY} is {@code true}.
     *
     * @param session the session being opened
     */
    @Override
    public void launcherSessionOpened(LauncherSession session) {
        synchronized (BlockHoundSession.class) {
            if (!Boolean.getBoolean(PROPERTY) || installed) {
                return;
            }
            // install(...) also loads the integrations on the class path (Reactor's marks its
            // non-blocking threads, Netty's its event loops); builder() alone would not.
            BlockHound.install(builder -> builder
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
}
