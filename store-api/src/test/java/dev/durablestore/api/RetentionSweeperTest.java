package dev.durablestore.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.test.scheduler.VirtualTimeScheduler;

/** The retention sweeper (D12): passes of steps, metrics, failures, configuration. */
class RetentionSweeperTest {

    private static final Instant NOW = Instant.parse("2026-06-03T00:00:00Z");
    private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);
    private static final RetentionPolicy POLICY = RetentionPolicy.closedFor(Duration.ofDays(7));
    private static final WorkflowId W1 = WorkflowId.parse("00000000-0000-4000-8000-000000000001");
    private static final WorkflowId W2 = WorkflowId.parse("00000000-0000-4000-8000-000000000002");

    /** A step call as the fake store saw it. */
    private record Call(RetentionPolicy policy, Instant now, int batchSize, WorkflowId after) {}

    private final List<Call> calls = new CopyOnWriteArrayList<>();
    private final List<Instant> backlogReads = new CopyOnWriteArrayList<>();

    /** An operator store that answers steps with {@code steps} and the backlog with one overdue workflow. */
    private OperatorStore store(Function<Call, Mono<RetentionSweep>> steps) {
        return (OperatorStore) Proxy.newProxyInstance(
                OperatorStore.class.getClassLoader(), new Class<?>[] {OperatorStore.class}, (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "sweepRetention" -> {
                            Call call = new Call(
                                    (RetentionPolicy) args[0], (Instant) args[1], (int) args[2], (WorkflowId) args[3]);
                            calls.add(call);
                            return steps.apply(call);
                        }
                        case "retentionBacklog" -> {
                            backlogReads.add((Instant) args[1]);
                            return Mono.just(new RetentionBacklog((Instant) args[1], 1, 0, NOW.minusSeconds(60)));
                        }
                        default -> throw new UnsupportedOperationException(method.getName());
                    }
                });
    }

    private static RetentionSweep deleted(long workflows, WorkflowId resumeAfter) {
        return new RetentionSweep(workflows, 2 * workflows, 0, workflows, 0, 0, resumeAfter);
    }

    @Test
    void D12_a_pass_steps_until_one_reads_the_last_closed_workflow_and_sums_them() {
        // given a store whose steps end after W1, after W2, then at the last closed workflow
        OperatorStore store = store(call -> Mono.just(
                call.after() == null ? deleted(2, W1) : call.after().equals(W1) ? deleted(1, W2) : deleted(0, null)));

        // when one pass runs with steps of 50
        RetentionSweep total = RetentionSweeper.of(store, POLICY)
                .withBatchSize(50)
                .withClock(CLOCK)
                .sweepOnce()
                .block(Duration.ofSeconds(5));

        // then the steps resumed after each other's last workflow, all at one instant, and are summed
        assertThat(calls)
                .containsExactly(
                        new Call(POLICY, NOW, 50, null), new Call(POLICY, NOW, 50, W1), new Call(POLICY, NOW, 50, W2));
        assertThat(total).isEqualTo(new RetentionSweep(3, 6, 0, 3, 0, 0, null));
        assertThat(backlogReads).as("no metrics: the backlog is not read").isEmpty();
    }

    @Test
    void D12_steps_that_deleted_rows_and_the_backlog_reach_the_metrics() {
        // given metrics that record what they are told
        List<RetentionSweep> swept = new ArrayList<>();
        List<RetentionBacklog> backlogs = new ArrayList<>();
        StoreMetrics metrics = new StoreMetrics() {
            @Override
            public void retentionSwept(RetentionSweep step) {
                swept.add(step);
            }

            @Override
            public void retentionBacklog(RetentionBacklog backlog) {
                backlogs.add(backlog);
            }
        };
        OperatorStore store = store(call -> Mono.just(call.after() == null ? deleted(1, W1) : deleted(0, null)));

        // when a pass runs
        RetentionSweeper.of(store, POLICY)
                .withClock(CLOCK)
                .withMetrics(metrics)
                .sweepOnce()
                .block(Duration.ofSeconds(5));

        // then the step that deleted is reported, the empty one not, and the backlog at the pass's instant
        assertThat(swept).containsExactly(deleted(1, W1));
        assertThat(backlogs).containsExactly(new RetentionBacklog(NOW, 1, 0, NOW.minusSeconds(60)));
    }

    @Test
    void D12_each_interval_runs_a_pass_a_failed_one_is_reported_and_the_next_runs_and_a_closed_store_stops_it() {
        // given a store whose first pass fails, second succeeds, third finds the store closed
        VirtualTimeScheduler time = VirtualTimeScheduler.create();
        int[] passes = {0};
        OperatorStore store = store(call -> {
            int pass = ++passes[0];
            return pass == 1
                    ? Mono.error(new BackendException("disk on fire"))
                    : pass == 2 ? Mono.just(deleted(0, null)) : Mono.error(new StoreClosedException("closed"));
        });
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        Disposable running = RetentionSweeper.of(store, POLICY)
                .withInterval(Duration.ofMinutes(1))
                .withClock(CLOCK)
                .withOnError(errors::add)
                .start(time);
        try {
            // when four intervals pass
            time.advanceTimeBy(Duration.ofMinutes(4));

            // then three passes ran: the failure was reported and the next one ran; the closed store ended it
            assertThat(passes[0]).isEqualTo(3);
            assertThat(errors).hasSize(2);
            assertThat(errors.get(0)).hasMessageContaining("disk on fire");
            assertThat(errors.get(1)).isInstanceOf(StoreClosedException.class);
        } finally {
            running.dispose();
            time.dispose();
        }
    }

    @Test
    void D12_the_sweeper_refuses_bad_settings_naming_them() {
        OperatorStore store = store(call -> Mono.empty());
        RetentionSweeper sweeper = RetentionSweeper.of(store, POLICY);
        assertRefused(() -> RetentionSweeper.of(null, POLICY), "store");
        assertRefused(() -> RetentionSweeper.of(store, null), "policy");
        assertRefused(() -> sweeper.withInterval(Duration.ZERO), "interval");
        assertRefused(() -> sweeper.withInterval(null), "interval");
        assertRefused(() -> sweeper.withBatchSize(0), "batchSize");
        assertRefused(() -> sweeper.withClock(null), "clock");
        assertRefused(() -> sweeper.withMetrics(null), "metrics");
        assertRefused(() -> sweeper.withOnError(null), "onError");
        assertThat(sweeper.policy()).isEqualTo(POLICY);
    }

    private static void assertRefused(Supplier<?> build, String argument) {
        assertThatThrownBy(build::get)
                .isInstanceOf(InvalidArgumentException.class)
                .satisfies(e ->
                        assertThat(((InvalidArgumentException) e).argument()).isEqualTo(argument));
    }
}
