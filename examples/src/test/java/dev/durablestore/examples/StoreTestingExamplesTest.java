package dev.durablestore.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.OutboxLeaseReaper;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxRowState;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.Payload;
import dev.durablestore.api.SequenceConflictException;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.ActivityScheduled;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.event.WorkflowStarted;
import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import dev.durablestore.tck.TestClock;
import dev.durablestore.tck.TestEvents;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * How to test code that uses the store, as examples to copy.
 *
 * <ul>
 *   <li><b>A real store per test, on a temporary file.</b> The embedded store opens in a few
 *       milliseconds, so there is nothing to mock: JUnit's {@link TempDir} gives each test an
 *       empty database, and {@link AfterEach} closes it.</li>
 *   <li><b>{@link StepVerifier} instead of {@code block()}.</b> It subscribes, states which signals
 *       must arrive in which order, and fails with a readable message otherwise: {@code
 *       verifyComplete()} for writes, {@code expectErrorSatisfies} for the error family,
 *       {@code create(flux, 0)} plus {@code thenRequest(n)} to drive demand by hand.</li>
 *   <li><b>A settable clock instead of sleeping.</b> The store reads {@code now} from the
 *       {@link java.time.Clock} in its configuration; store-tck's {@link TestClock} is moved forward
 *       by the test, so backoff and lease expiry take no wall time.</li>
 *   <li><b>{@link TestEvents} to build histories.</b> It numbers events consecutively, so a test
 *       states only what matters to it.</li>
 * </ul>
 *
 * <p>Every test reads as given / when / then.
 */
class StoreTestingExamplesTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    @TempDir
    Path dir;

    private final TestClock clock = TestClock.atDefaultStart();
    private SqliteReactiveStore store;

    @BeforeEach
    void openStore() {
        store = SqliteReactiveStore.open(
                SqliteStoreConfig.of(dir.resolve("test.db")).withClock(clock));
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    // ------------------------------------------------------------------ appends

    @Test
    void anAppendCompletesOnceTheEventsAreDurable() {
        // given a new workflow
        WorkflowId workflow = WorkflowId.random();
        TestEvents ev = TestEvents.of(workflow);
        List<Event> events = List.of(ev.started("checkout"), ev.activityScheduled(2, "charge-card"));

        // when its first events are appended at head 0, then: the append completes empty
        StepVerifier.create(store.append(workflow, events, 0)).verifyComplete();

        // and the history reads back in seq order
        StepVerifier.create(store.readHistory(workflow))
                .assertNext(e -> assertThat(e)
                        .isInstanceOf(WorkflowStarted.class)
                        .extracting(Event::seq)
                        .isEqualTo(1L))
                .assertNext(e -> assertThat(e)
                        .isInstanceOf(ActivityScheduled.class)
                        .extracting(Event::seq)
                        .isEqualTo(2L))
                .verifyComplete();
        StepVerifier.create(store.readHead(workflow)).expectNext(2L).verifyComplete();
    }

    @Test
    void anAppendOnAStaleHeadFailsWithSequenceConflict() {
        // given a workflow whose head is 2
        WorkflowId workflow = WorkflowId.random();
        TestEvents ev = TestEvents.of(workflow);
        store.append(workflow, List.of(ev.started("checkout"), ev.activityScheduled(2, "charge-card")), 0)
                .block(TIMEOUT);

        // when a second writer, which still believes the head is 0, appends
        Mono<Void> stale =
                store.append(workflow, List.of(TestEvents.of(workflow).started("checkout")), 0);

        // then it fails with a SequenceConflictException naming what it expected and what it found
        StepVerifier.create(stale)
                .expectErrorSatisfies(e -> {
                    assertThat(e).isInstanceOf(SequenceConflictException.class);
                    SequenceConflictException conflict = (SequenceConflictException) e;
                    assertThat(conflict.expected()).isEqualTo(0L);
                    assertThat(conflict.found()).isEqualTo(2L);
                })
                .verify(TIMEOUT);

        // the shortest form: the error's type only (errors arrive as signals, never thrown)
        StepVerifier.create(
                        store.append(workflow, List.of(TestEvents.of(workflow).started("checkout")), 0))
                .expectError(SequenceConflictException.class)
                .verify(TIMEOUT);
    }

    @Test
    void aRejectedAppendWithOutboxStagesNoRow() {
        // given a workflow whose head is 1
        WorkflowId workflow = WorkflowId.random();
        store.append(workflow, List.of(TestEvents.of(workflow).started("checkout")), 0)
                .block(TIMEOUT);

        // when an appendWithOutbox on a stale head tries to schedule an activity with its row
        TestEvents stale = TestEvents.of(workflow);
        OutboxRow row = OutboxRow.pending(workflow, 2, "charge-card", Payload.json("{}"), clock.instant());
        StepVerifier.create(store.appendWithOutbox(
                        workflow,
                        List.of(stale.started("checkout"), stale.activityScheduled(2, "charge-card")),
                        0,
                        List.of(row)))
                // SequenceConflictException compares by (expected, found), so it can be matched whole
                .expectErrorMatches(new SequenceConflictException(0, 1)::equals)
                .verify(TIMEOUT);

        // then the row was not staged either: events and rows commit together or not at all
        StepVerifier.create(store.rowState(row.dispatchKey())).verifyComplete();
    }

    // ------------------------------------------------------------------ the claim stream

    @Test
    void theClaimStreamClaimsOnlyWhatWasRequested() {
        // given five staged rows
        WorkflowId workflow = startWorkflowWithActivities(5);

        // when a subscriber requests nothing at first, then two rows, then cancels
        StepVerifier.create(store.claimStream(ClaimStreamOptions.defaults()), 0)
                .expectSubscription()
                .thenRequest(2)
                .assertNext(row -> {
                    assertThat(row.workflowId()).isEqualTo(workflow);
                    assertThat(row.status()).isEqualTo(OutboxStatus.CLAIMED);
                    assertThat(row.claimedAt()).isEqualTo(clock.instant());
                })
                .assertNext(row -> assertThat(row.status()).isEqualTo(OutboxStatus.CLAIMED))
                .thenCancel()
                .verify(TIMEOUT);

        // then exactly the two delivered rows are claimed; the other three are still pending
        StepVerifier.create(store.countClaimed(OutboxRow.DEFAULT_ROUTE))
                .expectNext(2L)
                .verifyComplete();
        StepVerifier.create(store.countInflight(OutboxRow.DEFAULT_ROUTE))
                .expectNext(5L)
                .verifyComplete();
    }

    @Test
    void aRowRetriedIntoTheFutureIsClaimedOnlyAfterTheClockPassesItsBackoff() {
        // given a row that was claimed once and failed
        startWorkflowWithActivities(1);
        OutboxRow row = store.claim(ClaimRequest.of(1)).block(TIMEOUT).get(0);

        // when it is retried with a 30 s backoff, measured on the store's clock
        Instant visibleAfter = clock.instant().plus(Duration.ofSeconds(30));
        StepVerifier.create(store.settle(row, Settlement.retryAt(row.attempt() + 1, visibleAfter)))
                .verifyComplete();

        // then it is pending with attempt 1, and not due yet
        StepVerifier.create(store.rowState(row.dispatchKey()))
                .expectNext(new OutboxRowState(OutboxStatus.PENDING, 1, visibleAfter))
                .verifyComplete();
        StepVerifier.create(store.claim(ClaimRequest.of(10)))
                .assertNext(claimed -> assertThat(claimed).isEmpty())
                .verifyComplete();

        // and once the clock is moved past the backoff (no sleeping), the next claim takes it again
        clock.advance(Duration.ofSeconds(31));
        StepVerifier.create(store.claim(ClaimRequest.of(10)))
                .assertNext(claimed -> assertThat(claimed).singleElement().satisfies(again -> {
                    assertThat(again.dispatchKey()).isEqualTo(row.dispatchKey());
                    assertThat(again.attempt()).isEqualTo(1);
                }))
                .verifyComplete();
    }

    @Test
    void theLeaseReaperReArmsAClaimOlderThanTheLease() {
        // given a row claimed by a dispatcher that then died
        startWorkflowWithActivities(1);
        OutboxRow row = store.claim(ClaimRequest.of(1)).block(TIMEOUT).get(0);
        OutboxLeaseReaper reaper = OutboxLeaseReaper.of(store).withClock(clock).withLease(Duration.ofMinutes(5));

        // when one sweep runs before the lease has passed, then nothing is re-armed
        StepVerifier.create(reaper.reapOnce()).expectNext(0L).verifyComplete();

        // when the clock passes the lease and a sweep runs, then the row is pending again,
        // visible at once, keeping its attempt
        clock.advance(Duration.ofMinutes(6));
        StepVerifier.create(reaper.reapOnce()).expectNext(1L).verifyComplete();
        StepVerifier.create(store.rowState(row.dispatchKey()))
                .expectNext(new OutboxRowState(OutboxStatus.PENDING, 0, clock.instant()))
                .verifyComplete();
    }

    // ------------------------------------------------------------------ fixtures

    /** Starts a workflow that schedules {@code k} activities, each staged as an outbox row. */
    private WorkflowId startWorkflowWithActivities(int k) {
        WorkflowId workflow = WorkflowId.random();
        TestEvents ev = TestEvents.of(workflow);
        List<Event> events = new ArrayList<>(List.of(ev.started("fan-out")));
        List<OutboxRow> rows = new ArrayList<>();
        for (int seq = 2; seq <= k + 1; seq++) {
            events.add(ev.activityScheduled(seq, "work"));
            rows.add(OutboxRow.pending(workflow, seq, "work", Payload.json("{}"), clock.instant()));
        }
        store.appendWithOutbox(workflow, events, 0, rows).block(TIMEOUT);
        return workflow;
    }
}
