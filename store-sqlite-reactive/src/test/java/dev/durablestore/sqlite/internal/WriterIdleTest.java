package dev.durablestore.sqlite.internal;

import static dev.durablestore.sqlite.internal.Noop.await;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;

/**
 * After a busy commit the writer polls its queue briefly before it parks (the next command is
 * usually on its way); the poll is bounded, so a store that falls idle after a burst parks its
 * writer and burns no CPU.
 */
class WriterIdleTest {

    private static final String NAME = "idle-test";

    @TempDir
    Path tmp;

    private TestWriter fixture;
    private Writer writer;

    @BeforeEach
    void open() {
        fixture = TestWriter.open(tmp.resolve("w.db"), NAME);
        writer = fixture.writer();
    }

    @AfterEach
    void close() {
        fixture.close();
    }

    @Test
    void a_writer_that_falls_idle_after_a_burst_of_commands_parks() throws Exception {
        // given a burst of commands, held back until all are queued so that they commit together
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        var blocker = writer.submit(new Noop(() -> {
                    entered.countDown();
                    await(release);
                }))
                .toFuture();
        assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
        var burst = Flux.range(0, 100)
                .flatMap(i -> writer.submit(Noop.noop()), 100)
                .then()
                .toFuture();
        long queued = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (writer.queueDepth() < 100 && System.nanoTime() < queued) {
            Thread.onSpinWait();
        }
        assertThat(writer.queueDepth()).isEqualTo(100);

        // when the burst commits and nothing else arrives
        release.countDown();
        blocker.get(10, TimeUnit.SECONDS);
        burst.get(10, TimeUnit.SECONDS);

        // then both writer threads end up parked (WAITING), not spinning (RUNNABLE)
        List<Thread> threads = writerThreads();
        assertThat(threads).hasSize(2);
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (threads.stream().anyMatch(t -> t.getState() != Thread.State.WAITING) && System.nanoTime() < deadline) {
            LockSupport.parkNanos(1_000_000L);
        }
        assertThat(threads).extracting(Thread::getState).containsOnly(Thread.State.WAITING);
    }

    private static List<Thread> writerThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("durable-store-writer-" + NAME + "-"))
                .toList();
    }
}
