/**
 * BlockHound for the modules' own tests: {@link dev.durablestore.testsupport.blockhound.BlockHoundSession}
 * installs it for a test JVM, {@link dev.durablestore.testsupport.blockhound.SqliteNativeBlockingCalls}
 * marks SQLite's native calls as blocking.
 */
package dev.durablestore.testsupport.blockhound;
