package dev.durablestore.sqlite.internal;

import static dev.durablestore.sqlite.internal.Noop.await;
import static dev.durablestore.sqlite.internal.Noop.noop;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durablestore.api.StoreClosedException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * The thread that commits a batch signals its subscribers; a submit from any other thread while it
 * does makes the other writer thread the leader, so subscriber code never holds up the queue.
 * Subscribers here hold their signal on a latch, the way slow downstream code would.
 */
class WriterLeadTest {

    private static final String NAME = "lead-test";

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
    void a_result_is_signalled_on_a_non_blocking_writer_thread_where_block_is_refused() {
        // given a subscriber that notes where it runs and tries to block there
        AtomicReference<String> thread = new AtomicReference<>();
        AtomicReference<Boolean> nonBlocking = new AtomicReference<>();
        AtomicReference<Throwable> blockRefused = new AtomicReference<>();

        // when a command commits
        StepVerifier.create(writer.submit(noop()).then(Mono.fromRunnable(() -> {
                    thread.set(Thread.currentThread().getName());
                    nonBlocking.set(Schedulers.isInNonBlockingThread());
                    try {
                        writer.submit(noop()).block();
                    } catch (IllegalStateException e) {
                        blockRefused.set(e);
                    }
                })))
                .verifyComplete();

        // then it is signalled on a writer thread, which is non-blocking: block() there would
        // wait for the thread itself, and Reactor refuses it instead of hanging
        assertThat(thread.get()).startsWith("durable-store-writer-" + NAME + "-");
        assertThat(nonBlocking.get()).isTrue();
        assertThat(blockRefused.get()).hasMessageContaining("block");
    }

    @Test
    void commands_submitted_by_subscribers_while_signalled_run_in_the_next_transaction() {
        // given 64 chains of 20 commands, each submitted by the subscriber of the one before
        // when they run
        List<Integer> chains = Flux.range(0, 64)
                .flatMap(
                        i -> Flux.range(0, 20)
                                .concatMap(j -> writer.submit(noop()))
                                .then(Mono.just(i)),
                        64)
                .collectList()
                .block(Duration.ofSeconds(30));

        // then every chain finished: each command was taken by the thread that signalled the last
        assertThat(chains).hasSize(64);
    }

    @Test
    void a_submit_from_another_thread_while_a_subscriber_holds_its_signal_is_not_held_up() throws Exception {
        // given a subscriber that holds the committing thread
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Void> held =
                writer.submit(noop()).doOnSuccess(v -> hold(holding, release)).toFuture();
        assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();

        try {
            // when another thread submits
            // then its command commits and is signalled while the first subscriber still holds
            writer.submit(noop()).block(Duration.ofSeconds(10));
            assertThat(held).isNotDone();
        } finally {
            release.countDown();
        }
        held.get(10, TimeUnit.SECONDS);
        // and the writer goes on after the held subscriber lets go
        writer.submit(noop()).block(Duration.ofSeconds(10));
    }

    @Test
    void with_both_threads_held_by_subscribers_a_command_waits_for_the_first_to_let_go_and_is_not_lost()
            throws Exception {
        // given subscribers holding both writer threads
        CountDownLatch firstHolding = new CountDownLatch(1);
        CountDownLatch secondHolding = new CountDownLatch(1);
        CountDownLatch releaseFirst = new CountDownLatch(1);
        CountDownLatch releaseSecond = new CountDownLatch(1);
        CompletableFuture<Void> first = writer.submit(noop())
                .doOnSuccess(v -> hold(firstHolding, releaseFirst))
                .toFuture();
        assertThat(firstHolding.await(10, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Void> second = writer.submit(noop())
                .doOnSuccess(v -> hold(secondHolding, releaseSecond))
                .toFuture();
        assertThat(secondHolding.await(10, TimeUnit.SECONDS)).isTrue();

        try {
            // when a third command is submitted while no thread is free
            CompletableFuture<Void> third = writer.submit(noop()).toFuture();

            // then it commits as soon as one of them lets go (the first: the lead is with the second)
            releaseFirst.countDown();
            third.get(10, TimeUnit.SECONDS);
            first.get(10, TimeUnit.SECONDS);
            assertThat(second).isNotDone();
        } finally {
            releaseFirst.countDown();
            releaseSecond.countDown();
        }
        second.get(10, TimeUnit.SECONDS);
    }

    @Test
    void close_is_not_held_up_by_a_subscriber_holding_its_signal() throws Exception {
        // given a subscriber that holds the committing thread
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Void> held =
                writer.submit(noop()).doOnSuccess(v -> hold(holding, release)).toFuture();
        assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();

        try {
            // when the writer is closed
            long began = System.nanoTime();
            writer.close(5_000);

            // then the other thread takes the lead and stops the writer at once (not after the
            // close timeout), and later commands are refused
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began)).isLessThan(5_000);
            assertThatThrownBy(() -> writer.submit(noop()).block()).isInstanceOf(StoreClosedException.class);
        } finally {
            release.countDown();
        }
        held.get(10, TimeUnit.SECONDS);
    }

    @Test
    void a_subscriber_that_throws_does_not_cost_the_others_their_signal() throws Exception {
        // given commands queued together, the first one's subscriber throwing from onComplete
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Void> gate = writer.submit(Noop.holding(release)).toFuture();
        writer.submit(noop()).subscribe(new Throwing());
        CompletableFuture<Void> after = writer.submit(noop()).toFuture();

        // when they commit
        release.countDown();

        // then the later command's subscriber is still signalled, and the writer goes on
        gate.get(10, TimeUnit.SECONDS);
        after.get(10, TimeUnit.SECONDS);
        writer.submit(noop()).block(Duration.ofSeconds(10));
    }

    @Test
    void an_interrupt_status_left_by_a_subscriber_does_not_stop_the_writer() {
        // given a subscriber that interrupts the thread it is signalled on
        writer.submit(noop())
                .doOnSuccess(v -> Thread.currentThread().interrupt())
                .block(Duration.ofSeconds(10));

        // when the writer goes on
        // then later commands still commit
        for (int i = 0; i < 3; i++) {
            writer.submit(noop()).block(Duration.ofSeconds(10));
        }
    }

    @Test
    void a_subscriber_may_close_the_writer_it_is_signalled_by() {
        // given a subscriber that closes the writer from its callback
        long began = System.nanoTime();
        writer.submit(noop()).doOnSuccess(v -> writer.close(5_000)).block(Duration.ofSeconds(10));

        // then the close did not wait for its own thread (the other one stopped the writer), and
        // later commands are refused
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began)).isLessThan(5_000);
        assertThatThrownBy(() -> writer.submit(noop()).block()).isInstanceOf(StoreClosedException.class);
    }

    @Test
    void every_command_submitted_while_the_writer_closes_is_answered() throws Exception {
        for (int round = 0; round < 30; round++) {
            // given a writer taking commands from another thread as fast as it can
            try (TestWriter race = TestWriter.open(tmp.resolve("race-" + round + ".db"), NAME + "-race")) {
                Writer racing = race.writer();
                List<CompletableFuture<Void>> answers = new CopyOnWriteArrayList<>();
                CountDownLatch started = new CountDownLatch(1);
                Thread submitter = new Thread(() -> {
                    for (int i = 0; i < 10_000; i++) {
                        answers.add(racing.submit(noop()).toFuture());
                        if (i == 10) {
                            started.countDown();
                        }
                    }
                });
                submitter.start();
                assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

                // when it closes meanwhile
                racing.close(5_000);
                submitter.join(10_000);

                // then every command was answered: committed before the close, or refused
                for (CompletableFuture<Void> answer : answers) {
                    try {
                        answer.get(10, TimeUnit.SECONDS);
                    } catch (ExecutionException e) {
                        assertThat(e.getCause()).isInstanceOf(StoreClosedException.class);
                    }
                }
            }
        }
    }

    private static void hold(CountDownLatch holding, CountDownLatch release) {
        holding.countDown();
        await(release);
    }

    /** A subscriber whose onComplete throws, as a buggy one would. */
    private static final class Throwing implements CoreSubscriber<Void> {
        @Override
        public void onSubscribe(Subscription s) {
            s.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(Void v) {}

        @Override
        public void onError(Throwable t) {}

        @Override
        public void onComplete() {
            throw new IllegalStateException("subscriber bug");
        }
    }
}
