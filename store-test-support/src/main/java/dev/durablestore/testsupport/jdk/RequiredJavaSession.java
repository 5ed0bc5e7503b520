package dev.durablestore.testsupport.jdk;

import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Fails a test JVM that runs on another Java than the one its Surefire execution names with
 * {@code -Ddurablestore.java=N} (a feature release, e.g. {@code 25}), before any test runs: an
 * execution that promises the contract kit on Java 25 cannot pass on another JDK because a JDK
 * property pointed elsewhere. Without the property it does nothing.
 */
public final class RequiredJavaSession implements LauncherSessionListener {

    /** The system property naming the Java feature release the tests must run on. */
    public static final String PROPERTY = "durablestore.java";

    /** Creates the listener; the JUnit Platform does, from this jar's service entry. */
    public RequiredJavaSession() {}

    /**
     * Checks the running Java against {@value #PROPERTY}, when set.
     *
     * @param session the session being opened
     * @throws IllegalStateException naming both releases and the running JDK when they differ
     */
    @Override
    public void launcherSessionOpened(LauncherSession session) {
        String required = System.getProperty(PROPERTY);
        if (required == null) {
            return;
        }
        int running = Runtime.version().feature();
        if (!required.trim().equals(Integer.toString(running))) {
            throw new IllegalStateException("these tests must run on Java " + required + " (-D" + PROPERTY
                    + "), but the test JVM is Java " + Runtime.version() + " from " + System.getProperty("java.home"));
        }
    }
}
