/**
 * BlockHound for the modules' own tests: {@link dev.durablestore.testsupport.blockhound.BlockHoundSession}
 * installs it for a test JVM, {@link dev.durablestore.testsupport.blockhound.SqliteNativeBlockingCalls}
 * marks SQLite's native calls as blocking, and
 * {@link dev.durablestore.testsupport.blockhound.NonBlockingTestSupport} is the base of each backend's
 * check that no store operation blocks a non-blocking thread.
 */
package dev.durablestore.testsupport.blockhound;
