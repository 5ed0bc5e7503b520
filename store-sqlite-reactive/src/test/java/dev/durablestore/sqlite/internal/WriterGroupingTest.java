package dev.durablestore.sqlite.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.BackendException;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * The writer runs adjacent {@link GroupedCommand}s of one group as one call, in queue order, and a
 * failing group is run again command by command so that only the failing command fails.
 */
class WriterGroupingTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @TempDir
    Path tmp;

    private TestWriter fixture;
    private Writer writer;
    /** What ran, in order: one entry per execute or executeGroup call. */
    private final List<List<String>> calls = new CopyOnWriteArrayList<>();

    @BeforeEach
    void open() {
        fixture = TestWriter.open(tmp.resolve("w.db"), "grouping-test");
        writer = fixture.writer();
    }

    @AfterEach
    void close() {
        fixture.close();
    }

    @Test
    void adjacent_commands_of_one_group_run_as_one_call_in_queue_order() throws Exception {
        // given the writer busy with a command that waits for a latch, and commands queued behind it
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(1);
        Mono<Void> blocker = writer.submit(new Plain("blocker", () -> {
            started.countDown();
            await(release);
        }));
        blocker.subscribe();
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        List<Mono<Void>> queued = List.of(
                writer.submit(new Probe("a", "a1", Set.of())), writer.submit(new Probe("a", "a2", Set.of())),
                writer.submit(new Probe("a", "a3", Set.of())), writer.submit(new Probe("b", "b1", Set.of())),
                writer.submit(new Probe("a", "a4", Set.of())), writer.submit(new Plain("plain", () -> {})));
        List<Mono<Void>> subscribed = new ArrayList<>();
        for (Mono<Void> m : queued) {
            subscribed.add(m.cache());
            subscribed.get(subscribed.size() - 1).subscribe();
        }
        waitForQueue(queued.size());

        // when the writer takes them in one batch
        release.countDown();

        // then each run of one group was one call, in queue order, and every command succeeded
        StepVerifier.create(Flux.concat(subscribed)).expectComplete().verify(TIMEOUT);
        assertThat(calls)
                .containsExactly(
                        List.of("blocker"), List.of("a1", "a2", "a3"), List.of("b1"), List.of("a4"), List.of("plain"));
    }

    @Test
    void a_failing_group_runs_again_one_by_one_and_only_the_failing_command_fails() throws Exception {
        // given three commands of one group, queued together, the second of which fails on its own
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(1);
        writer.submit(new Plain("blocker", () -> {
                    started.countDown();
                    await(release);
                }))
                .subscribe();
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        Mono<Void> first = writer.submit(new Probe("a", "a1", Set.of())).cache();
        Mono<Void> bad = writer.submit(new Probe("a", "a2", Set.of("a2"))).cache();
        Mono<Void> third = writer.submit(new Probe("a", "a3", Set.of())).cache();
        first.subscribe(null, e -> {});
        bad.subscribe(null, e -> {});
        third.subscribe(null, e -> {});
        waitForQueue(3);

        // when the batch runs
        release.countDown();

        // then the others succeed, the failing one fails alone and names its operation
        StepVerifier.create(first).expectComplete().verify(TIMEOUT);
        StepVerifier.create(third).expectComplete().verify(TIMEOUT);
        StepVerifier.create(bad)
                .expectErrorSatisfies(e -> assertThat(e)
                        .isInstanceOf(BackendException.class)
                        .hasMessageContaining("probe")
                        .hasMessageContaining("a2 refused"))
                .verify(TIMEOUT);
        // the group was tried once, then each command alone (a2 failing), then a1 and a3 again
        assertThat(calls)
                .filteredOn(call -> !call.equals(List.of("blocker")))
                .containsExactly(List.of("a1", "a2", "a3"), List.of("a1"), List.of("a2"), List.of("a1"), List.of("a3"));
    }

    private void waitForQueue(int depth) throws InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (writer.queueDepth() < depth) {
            assertThat(System.nanoTime()).as("commands queued in time").isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A command of a group that records its calls and fails for the keys in {@code failing}. */
    private final class Probe implements GroupedCommand<Probe> {
        private final String group;
        private final String key;
        private final Set<String> failing;

        Probe(String group, String key, Set<String> failing) {
            this.group = group;
            this.key = key;
            this.failing = failing;
        }

        @Override
        public Void execute(DbConnection c) throws SQLException {
            calls.add(List.of(key));
            if (failing.contains(key)) {
                throw new SQLException(key + " refused");
            }
            return null;
        }

        @Override
        public Object group() {
            return group;
        }

        @Override
        public void executeGroup(DbConnection c, List<Probe> commands) throws SQLException {
            List<String> keys = new ArrayList<>();
            boolean fails = false;
            for (Probe p : commands) {
                keys.add(p.key);
                fails |= p.failing.contains(p.key);
            }
            calls.add(keys);
            if (fails) {
                throw new SQLException("group refused");
            }
        }

        @Override
        public String name() {
            return "probe";
        }
    }

    /** A command outside any group. */
    private final class Plain implements WriteCommand<Void> {
        private final String name;
        private final Runnable body;

        Plain(String name, Runnable body) {
            this.name = name;
            this.body = body;
        }

        @Override
        public Void execute(DbConnection c) {
            calls.add(List.of(name));
            body.run();
            return null;
        }

        @Override
        public String name() {
            return name;
        }
    }
}
