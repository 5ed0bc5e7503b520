package dev.durablestore.testsupport.blockhound;

import reactor.blockhound.BlockHound;
import reactor.blockhound.integration.BlockHoundIntegration;

/**
 * Tells BlockHound that sqlite-jdbc's native calls block: they do file I/O and take the database
 * lock, yet BlockHound cannot see inside native code. With them marked, a statement run on a
 * non-blocking thread is caught; the SQLite store's own statements on its writer threads are allowed
 * by its {@code WriterBlockHoundIntegration}. The class names are strings, so this needs no SQLite
 * on the class path. A module whose tests run SQLite under {@link BlockHoundSession} names this
 * class in its test resources' {@code META-INF/services/reactor.blockhound.integration.BlockHoundIntegration}.
 */
public final class SqliteNativeBlockingCalls implements BlockHoundIntegration {

    /** Creates the integration; BlockHound's {@code ServiceLoader} does. */
    public SqliteNativeBlockingCalls() {}

    /**
     * Marks the native statement, execution, preparation and open calls as blocking.
     *
     * @param builder the BlockHound being configured
     */
    @Override
    public void applyTo(BlockHound.Builder builder) {
        builder.markAsBlocking("org.sqlite.core.NativeDB", "step", "(J)I")
                .markAsBlocking("org.sqlite.core.NativeDB", "_exec_utf8", "([B)I")
                .markAsBlocking("org.sqlite.core.NativeDB", "prepare_utf8", "([B)J")
                .markAsBlocking("org.sqlite.core.NativeDB", "_open_utf8", "([BI)V");
    }
}
