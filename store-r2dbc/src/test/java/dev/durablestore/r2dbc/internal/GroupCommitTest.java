package dev.durablestore.r2dbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.concurrent.DefaultEventExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

/**
 * {@link GroupCommit} with a flush the test completes by hand: what arrives during a flush goes out
 * as the next group, no more than the bound, each caller completed by its own flush.
 */
class GroupCommitTest {

    /** A flush that records each group and finishes only when the test says so. */
    private static final class HeldFlush implements GroupCommit.Flush<Integer, Integer> {
        final List<List<Integer>> groups = new CopyOnWriteArrayList<>();
        final List<Sinks.Empty<Void>> pending = new CopyOnWriteArrayList<>();
        final List<List<GroupCommit.Call<Integer, Integer>>> calls = new CopyOnWriteArrayList<>();

        @Override
        public Mono<Void> write(List<GroupCommit.Call<Integer, Integer>> group) {
            List<Integer> requests = new ArrayList<>();
            group.forEach(c -> requests.add(c.request()));
            groups.add(requests);
            calls.add(group);
            Sinks.Empty<Void> done = Sinks.empty();
            pending.add(done);
            return done.asMono();
        }

        /** Completes flush {@code i}, each call with its request times ten. */
        void commit(int i) {
            calls.get(i).forEach(c -> c.succeed(c.request() * 10));
            pending.get(i).tryEmitEmpty();
        }
    }

    @Test
    void a_request_that_finds_the_store_idle_goes_alone_and_at_once() {
        // given an idle group commit
        HeldFlush flush = new HeldFlush();
        GroupCommit<Integer, Integer> group = new GroupCommit<>(8, 1, flush);

        // when one request is submitted
        StepVerifier.create(group.submit(1))
                .then(() -> {
                    // then it is written at once, alone, and completes with its flush
                    assertThat(flush.groups).containsExactly(List.of(1));
                    flush.commit(0);
                })
                .expectNext(10)
                .verifyComplete();
    }

    @Test
    void with_the_hop_the_requests_one_event_loop_task_makes_go_out_as_one_group() throws Exception {
        // given an idle group commit with the hop, and a Netty event loop
        HeldFlush flush = new HeldFlush();
        GroupCommit<Integer, Integer> group = new GroupCommit<>(8, 1, true, flush);
        DefaultEventExecutor loop = new DefaultEventExecutor();
        try {
            // when one task of the loop submits five requests, one after the other
            List<Integer> results = new CopyOnWriteArrayList<>();
            loop.submit(() -> {
                        for (int i = 1; i <= 5; i++) {
                            group.submit(i).subscribe(results::add);
                        }
                        // then none is taken while the task runs
                        assertThat(flush.groups).isEmpty();
                    })
                    .get(5, TimeUnit.SECONDS);
            loop.submit(() -> {}).get(5, TimeUnit.SECONDS); // the loop's next tasks have run

            // then all five went out as one group once the task returned, and complete with its flush
            assertThat(flush.groups).containsExactly(List.of(1, 2, 3, 4, 5));
            flush.commit(0);
            assertThat(results).containsExactly(10, 20, 30, 40, 50);
        } finally {
            var unused = loop.shutdownGracefully(0, 0, TimeUnit.SECONDS);
        }
    }

    @Test
    void with_the_hop_a_request_made_off_an_event_loop_still_goes_at_once() {
        // given an idle group commit with the hop
        HeldFlush flush = new HeldFlush();
        GroupCommit<Integer, Integer> group = new GroupCommit<>(8, 1, true, flush);

        // when one request is submitted from a thread that is no event loop
        StepVerifier.create(group.submit(1))
                .then(() -> {
                    // then it is written at once, alone, and completes with its flush
                    assertThat(flush.groups).containsExactly(List.of(1));
                    flush.commit(0);
                })
                .expectNext(10)
                .verifyComplete();
    }

    @Test
    void requests_made_during_a_flush_go_out_together_bounded_by_the_group_size() {
        // given a flush in flight
        HeldFlush flush = new HeldFlush();
        GroupCommit<Integer, Integer> group = new GroupCommit<>(3, 1, flush);
        List<Integer> results = new CopyOnWriteArrayList<>();
        group.submit(0).subscribe(results::add);

        // when five more requests arrive while it is written
        for (int i = 1; i <= 5; i++) {
            group.submit(i).subscribe(results::add);
        }
        assertThat(flush.groups).as("one flush at a time").hasSize(1);
        assertThat(group.depth()).isEqualTo(5);

        // then each commit releases the next group of at most three, in submission order
        flush.commit(0);
        assertThat(flush.groups).containsExactly(List.of(0), List.of(1, 2, 3));
        assertThat(results).containsExactly(0);
        flush.commit(1);
        assertThat(flush.groups).containsExactly(List.of(0), List.of(1, 2, 3), List.of(4, 5));
        flush.commit(2);
        assertThat(results).containsExactly(0, 10, 20, 30, 40, 50);
    }

    @Test
    void at_most_max_flushes_groups_are_written_at_once() {
        // given two flush slots
        HeldFlush flush = new HeldFlush();
        GroupCommit<Integer, Integer> group = new GroupCommit<>(10, 2, flush);

        // when four requests arrive one after the other
        for (int i = 0; i < 4; i++) {
            group.submit(i).subscribe();
        }

        // then two go at once, and the other two wait for a slot, then go together
        assertThat(flush.groups).containsExactly(List.of(0), List.of(1));
        flush.commit(1);
        assertThat(flush.groups).containsExactly(List.of(0), List.of(1), List.of(2, 3));
    }

    @Test
    void a_caller_that_cancels_before_its_group_is_taken_is_left_out() {
        // given a flush in flight and two waiting requests
        HeldFlush flush = new HeldFlush();
        GroupCommit<Integer, Integer> group = new GroupCommit<>(10, 1, flush);
        group.submit(0).subscribe();
        Disposable cancelled = group.submit(1).subscribe();
        List<Integer> kept = new CopyOnWriteArrayList<>();
        group.submit(2).subscribe(kept::add);

        // when one of them cancels, then the flush ends
        cancelled.dispose();
        flush.commit(0);

        // then the next group holds only the other
        assertThat(flush.groups).containsExactly(List.of(0), List.of(2));
        flush.commit(1);
        assertThat(kept).containsExactly(20);
    }

    @Test
    void a_call_the_flush_settled_keeps_its_result_when_the_flush_then_fails_and_the_next_group_goes() {
        // given a flush that settles its first call, then fails (request 1), and one that succeeds
        // without settling its call (request 3)
        List<List<Integer>> groups = new CopyOnWriteArrayList<>();
        GroupCommit<Integer, Integer> group = new GroupCommit<>(10, 1, calls -> {
            List<Integer> requests = new ArrayList<>();
            calls.forEach(c -> requests.add(c.request()));
            groups.add(requests);
            if (requests.contains(1)) {
                calls.get(0).succeed(-1);
                return Mono.error(new IllegalStateException("lost"));
            }
            return Mono.empty();
        });

        // when both are submitted, then the settled call keeps its result, and the call left open
        // by a flush that completed completes empty
        StepVerifier.create(group.submit(1)).expectNext(-1).verifyComplete();
        StepVerifier.create(group.submit(3)).verifyComplete();
        assertThat(groups).containsExactly(List.of(1), List.of(3));
    }

    @Test
    void every_call_a_failed_flush_left_open_gets_its_error() {
        // given a held flush, then a group of two that will fail
        HeldFlush first = new HeldFlush();
        List<Sinks.Empty<Void>> failing = new CopyOnWriteArrayList<>();
        GroupCommit<Integer, Integer> group = new GroupCommit<>(10, 1, calls -> {
            if (calls.get(0).request() == 0) {
                return first.write(calls);
            }
            Sinks.Empty<Void> s = Sinks.empty();
            failing.add(s);
            return s.asMono();
        });
        group.submit(0).subscribe();
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        group.submit(1).subscribe(null, errors::add);
        group.submit(2).subscribe(null, errors::add);

        // when the first flush ends and the second fails
        first.commit(0);
        failing.get(0).tryEmitError(new IllegalStateException("server lost"));

        // then both callers of the failed group get the error
        assertThat(errors).hasSize(2).allSatisfy(e -> assertThat(e).hasMessage("server lost"));
    }

    /** A gate like the store's Db: counts callers in flight, times out after {@code timeout}, may be closed. */
    private static final class TestGate implements GroupCommit.Gate {
        final java.util.concurrent.atomic.AtomicInteger inFlight = new java.util.concurrent.atomic.AtomicInteger();
        final List<String> ended = new CopyOnWriteArrayList<>();
        final java.time.Duration timeout;
        volatile boolean closed;
        volatile boolean schedulerDown;

        TestGate(java.time.Duration timeout) {
            this.timeout = timeout;
        }

        @Override
        public boolean enter() {
            if (closed) {
                return false;
            }
            inFlight.incrementAndGet();
            return true;
        }

        @Override
        public void leave() {
            inFlight.decrementAndGet();
        }

        @Override
        public Throwable refused(String operation) {
            return new IllegalStateException(operation + " refused");
        }

        @Override
        public Throwable timedOut(String operation) {
            return new IllegalStateException(operation + " timed out");
        }

        @Override
        public long timeoutNanos() {
            return timeout.toNanos();
        }

        @Override
        public void ended(String operation, long nanos, boolean success) {
            ended.add(operation + ":" + success);
        }

        @Override
        public Disposable schedule(Runnable task, long delayNanos) {
            if (schedulerDown) {
                throw new java.util.concurrent.RejectedExecutionException("scheduler shut down");
            }
            return reactor.core.scheduler.Schedulers.parallel().schedule(task, delayNanos, TimeUnit.NANOSECONDS);
        }
    }

    @Test
    void a_gated_request_completes_with_its_flush_and_leaves_the_gate() {
        // given an idle group commit and a gate with a long timeout
        HeldFlush flush = new HeldFlush();
        GroupCommit<Integer, Integer> group = new GroupCommit<>(8, 1, flush);
        TestGate gate = new TestGate(java.time.Duration.ofMinutes(1));

        // when one gated request is submitted and its flush commits
        StepVerifier.create(group.submit(1, "complete", gate))
                .then(() -> {
                    assertThat(gate.inFlight.get()).isEqualTo(1);
                    flush.commit(0);
                })
                // then it completes with its value, reported once and counted out
                .expectNext(10)
                .verifyComplete();
        assertThat(gate.ended).containsExactly("complete:true");
        assertThat(gate.inFlight.get()).isZero();
    }

    @Test
    void gated_requests_time_out_by_their_operation_and_one_not_yet_taken_is_left_out() {
        // given a flush in flight that never commits, and a gate with a short timeout
        HeldFlush flush = new HeldFlush();
        GroupCommit<Integer, Integer> group = new GroupCommit<>(8, 1, flush);
        TestGate gate = new TestGate(java.time.Duration.ofMillis(100));
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        group.submit(1, "complete", gate).subscribe(v -> {}, errors::add);
        group.submit(2, "retry", gate).subscribe(v -> {}, errors::add); // waits for the flush of 1

        // when their deadlines pass
        long began = System.nanoTime();
        while (errors.size() < 2 && System.nanoTime() - began < TimeUnit.SECONDS.toNanos(10)) {
            Thread.onSpinWait();
        }

        // then both fail with their own operation's timeout, counted out and reported as failures (in
        // either order: a watchdog that re-arms at once may run on another thread of the scheduler)
        assertThat(errors)
                .extracting(Throwable::getMessage)
                .containsExactlyInAnyOrder("complete timed out", "retry timed out");
        assertThat(System.nanoTime() - began).isLessThan(TimeUnit.SECONDS.toNanos(5));
        assertThat(gate.inFlight.get()).isZero();
        assertThat(gate.ended).containsExactlyInAnyOrder("complete:false", "retry:false");

        // and when the stuck flush ends, the timed-out request that was still queued is not written
        flush.pending.get(0).tryEmitEmpty();
        assertThat(flush.groups).containsExactly(List.of(1));
    }

    @Test
    void a_gated_request_is_refused_once_the_gate_is_closed_and_a_cancelled_one_leaves_it() {
        // given a flush in flight and a gate
        HeldFlush flush = new HeldFlush();
        GroupCommit<Integer, Integer> group = new GroupCommit<>(8, 1, flush);
        TestGate gate = new TestGate(java.time.Duration.ofMinutes(1));
        group.submit(1, "complete", gate).subscribe();

        // when a queued caller cancels, it is counted out and left out of the next group
        Disposable queued = group.submit(2, "complete", gate).subscribe();
        assertThat(gate.inFlight.get()).isEqualTo(2);
        queued.dispose();
        assertThat(gate.inFlight.get()).isEqualTo(1);
        flush.commit(0);
        assertThat(flush.groups).containsExactly(List.of(1));

        // and once the gate is closed a new caller is refused, naming its operation
        gate.closed = true;
        StepVerifier.create(group.submit(3, "fail", gate))
                .expectErrorMessage("fail refused")
                .verify();
    }

    @Test
    void a_gated_request_whose_watchdog_cannot_be_armed_fails_and_leaves_the_gate() {
        // given an idle group commit and a gate whose scheduler refuses every task
        HeldFlush flush = new HeldFlush();
        GroupCommit<Integer, Integer> group = new GroupCommit<>(8, 1, flush);
        TestGate gate = new TestGate(java.time.Duration.ofMinutes(1));
        gate.schedulerDown = true;

        // when a gated request is submitted
        // then it fails with the refusal, is counted out, and nothing is written
        StepVerifier.create(group.submit(1, "complete", gate))
                .expectErrorMessage("scheduler shut down")
                .verify();
        assertThat(gate.inFlight.get()).isZero();
        assertThat(gate.ended).containsExactly("complete:false");
        assertThat(flush.groups).isEmpty();
    }
}
