package dev.durablestore.examples.demo.blockhound;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.examples.demo.DemoOptions;
import dev.durablestore.examples.demo.DemoRun;
import dev.durablestore.testsupport.blockhound.BlockHoundSession;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A small demo run under BlockHound (installed by {@link BlockHoundSession} in the
 * {@code blockhound} Surefire execution): no blocking call, SQLite's native calls included, may run
 * on a Reactor non-blocking thread. A violation inside the dispatcher would be swallowed as a
 * retried error, so the test checks the recorded violations as well as the verdict.
 */
@Timeout(60)
class DemoNonBlockingTest {

    @TempDir
    Path dir;

    @Test
    void theDemoNeverBlocksANonBlockingThread() {
        assertThat(BlockHoundSession.installed())
                .as("BlockHound installed (-Ddurablestore.blockhound=true)")
                .isTrue();
        DemoOptions options = new DemoOptions(dir.resolve("bh.db"), 15, 3, 1, 0.2, 0.05, 3, 1, 16, 3L, false);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int code = DemoRun.run(options, new PrintStream(bytes, true, StandardCharsets.UTF_8), false);
        String out = bytes.toString(StandardCharsets.UTF_8);

        assertThat(BlockHoundSession.violations()).isEmpty();
        assertThat(code).as(out).isZero();
        assertThat(out).contains(" 0 errors").endsWith("VERIFIED" + System.lineSeparator());
    }
}
