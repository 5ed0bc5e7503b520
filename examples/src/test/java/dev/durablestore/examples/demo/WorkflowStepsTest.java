package dev.durablestore.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.StaleClaimException;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.ActivityCompleted;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.event.WorkflowCompleted;
import dev.durablestore.examples.demo.WorkflowSteps.Ended;
import dev.durablestore.examples.demo.WorkflowSteps.Settled;
import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

class WorkflowStepsTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir
    Path dir;

    @Test
    void concurrentOutcomesOfOneWorkflowAreCommittedInOrderAndRedeliveryIsOnlySettled() {
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(dir.resolve("s.db")))) {
            // given a workflow of k activities whose rows are all claimed
            int k = 20;
            WorkflowId w = Workload.workflowId(0);
            Instant now = Instant.now();
            store.appendWithOutbox(w, Workload.startEvents(0, k, now), 0, Workload.rows(0, k, now))
                    .block(WAIT);
            List<OutboxRow> claimed = store.claim(ClaimRequest.of(k)).block(WAIT);
            assertThat(claimed).hasSize(k);
            DemoStats stats = new DemoStats();
            WorkflowSteps steps = new WorkflowSteps(store, stats, 10);

            // when every outcome arrives at once, from parallel threads
            List<Settled> results = Flux.fromIterable(claimed)
                    .parallel(4)
                    .runOn(Schedulers.parallel())
                    .flatMap(row -> steps.commit(row, success(row)))
                    .sequential()
                    .collectList()
                    .block(WAIT);

            // then each is recorded once, its row is done, and one step also ended the workflow
            assertThat(results).hasSize(k).allSatisfy(r -> {
                assertThat(r.settlement()).isEqualTo(Settlement.Kind.COMPLETE);
                assertThat(r.fresh()).isTrue();
            });
            assertThat(results).filteredOn(r -> r.ended() == Ended.COMPLETED).hasSize(1);
            assertThat(stats.conflicts()).isZero();
            List<Event> history = store.readHistory(w).collectList().block(WAIT);
            assertThat(history).hasSize(1 + k + k + 1);
            for (int i = 0; i < history.size(); i++) {
                assertThat(history.get(i).seq()).isEqualTo(i + 1);
            }
            assertThat(history).filteredOn(ActivityCompleted.class::isInstance).hasSize(k);
            assertThat(history.get(history.size() - 1)).isInstanceOf(WorkflowCompleted.class);
            for (OutboxRow row : claimed) {
                assertThat(store.rowState(row.dispatchKey()).block(WAIT).status())
                        .isEqualTo(OutboxStatus.DONE);
            }

            // and a row delivered again (re-opened, claimed again) is settled without appending anything
            OutboxRow again = claimed.get(3);
            store.rearmPending(List.of(again)).block(WAIT);
            OutboxRow redelivered = store.claim(ClaimRequest.of(1)).block(WAIT).get(0);
            assertThat(redelivered.dispatchKey()).isEqualTo(again.dispatchKey());
            StepVerifier.create(steps.commit(
                            redelivered,
                            new Outcome(Workload.activityId(redelivered.ordinal()), 2, false, false, "late")))
                    .expectNext(new Settled(Settlement.Kind.COMPLETE, false, Ended.NO))
                    .verifyComplete();
            assertThat(store.readHead(w).block(WAIT)).isEqualTo(history.size());
            assertThat(store.rowState(again.dispatchKey()).block(WAIT).status()).isEqualTo(OutboxStatus.DONE);
        }
    }

    @Test
    void anOutcomeWhoseClaimWasTakenOverIsDroppedAndTheOthersOfItsStepCommit() {
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(dir.resolve("t.db")))) {
            // given a workflow of three claimed rows, the first of which was re-armed and claimed again
            WorkflowId w = Workload.workflowId(1);
            Instant now = Instant.now();
            store.appendWithOutbox(w, Workload.startEvents(1, 3, now), 0, Workload.rows(1, 3, now))
                    .block(WAIT);
            List<OutboxRow> claimed = store.claim(ClaimRequest.of(3)).block(WAIT);
            OutboxRow first = claimed.get(0);
            store.rearmPending(List.of(first)).block(WAIT);
            OutboxRow taken = store.claim(ClaimRequest.of(1)).block(WAIT).get(0);
            assertThat(taken.dispatchKey()).isEqualTo(first.dispatchKey());
            WorkflowSteps steps = new WorkflowSteps(store, new DemoStats(), 10);

            // when the stale outcome queues behind the second row's step, beside the third's
            CompletableFuture<Settled> second =
                    steps.commit(claimed.get(1), success(claimed.get(1))).toFuture();
            CompletableFuture<Settled> stale =
                    steps.commit(first, success(first)).toFuture();
            CompletableFuture<Settled> third =
                    steps.commit(claimed.get(2), success(claimed.get(2))).toFuture();

            // then the stale one fails alone and records nothing
            assertThatThrownBy(stale::join)
                    .isInstanceOf(CompletionException.class)
                    .hasCauseInstanceOf(StaleClaimException.class);
            assertThat(second.join()).isEqualTo(new Settled(Settlement.Kind.COMPLETE, true, Ended.NO));
            assertThat(third.join()).isEqualTo(new Settled(Settlement.Kind.COMPLETE, true, Ended.NO));
            assertThat(store.readHead(w).block(WAIT)).isEqualTo(4 + 2);
            assertThat(store.rowState(first.dispatchKey()).block(WAIT).status()).isEqualTo(OutboxStatus.CLAIMED);

            // and the current claim's outcome completes the row and the workflow
            StepVerifier.create(steps.commit(taken, success(taken)))
                    .expectNext(new Settled(Settlement.Kind.COMPLETE, true, Ended.COMPLETED))
                    .verifyComplete();
            assertThat(store.readHead(w).block(WAIT)).isEqualTo(4 + 3 + 1);
            assertThat(store.listUnsettledWorkflowIds().collectList().block(WAIT))
                    .isEmpty();
        }
    }

    private static Outcome success(OutboxRow row) {
        return new Outcome(Workload.activityId(row.ordinal()), row.attempt() + 1, true, false, null);
    }
}
