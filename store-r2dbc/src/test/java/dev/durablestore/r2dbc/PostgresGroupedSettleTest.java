package dev.durablestore.r2dbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.AttemptFailure;
import dev.durablestore.api.BackendException;
import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.FailureReason;
import dev.durablestore.api.OutboxQuery;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxRowState;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.Payload;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.StaleClaimException;
import dev.durablestore.api.StoreClosedException;
import dev.durablestore.api.StoreMetrics;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.tck.TestClock;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * Grouped settles and the coalesced {@code NOTIFY} on PostgreSQL (issue 17): concurrent
 * {@code complete}, {@code fail}, {@code settleCancelled} and {@code retry} of one store go out as
 * one statement per flush, each caller completing once its statement committed.
 *
 * <p>To fill a group deterministically, a test holds a lock from its own transaction ({@link Lock})
 * so that the one flush in flight waits for it; requests made meanwhile queue up and go out together,
 * as one group, once the lock is released.
 */
class PostgresGroupedSettleTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final TestClock clock = TestClock.atDefaultStart();
    private PostgresHarness harness;
    private final List<Integer> batches = new CopyOnWriteArrayList<>();
    private ReactiveStore store;

    @BeforeEach
    void open() {
        harness = new PostgresHarness(clock);
        store = openStore(new StoreMetrics() {
            @Override
            public void batchCommitted(int commands, long nanos) {
                batches.add(commands);
            }
        });
    }

    @AfterEach
    void close() {
        store.close();
        harness.close();
    }

    private ReactiveStore openStore(StoreMetrics metrics) {
        ReactiveStore s = R2dbcReactiveStore.open(R2dbcStoreConfig.of(harness.factory())
                        .withClock(clock)
                        .withNotifyChannel(harness.schema())
                        .withMetrics(metrics))
                .block(TIMEOUT);
        assertThat(s).isNotNull();
        return s;
    }

    @Test
    void many_concurrent_settles_each_complete_after_their_commit_in_few_statements() {
        // given 300 staged rows
        List<String> keys = stage(300);
        batches.clear();

        // when every row is completed at once, each caller reading its row back as soon as it completes
        Flux<OutboxRowState> states = Flux.fromIterable(keys)
                .flatMap(
                        k -> store.settleKeys(List.of(k), Settlement.complete()).then(store.rowState(k)), keys.size());

        // then each caller already sees its row done (committed), and the settles shared statements
        StepVerifier.create(states)
                .thenConsumeWhile(s -> s.status() == OutboxStatus.DONE)
                .verifyComplete();
        assertThat(keys).allSatisfy(k -> assertThat(state(k).status()).isEqualTo(OutboxStatus.DONE));
        assertThat(batches.stream().mapToInt(Integer::intValue).max().orElse(0)).isGreaterThan(1);
        assertThat(batches.size()).isLessThan(keys.size());
    }

    @Test
    void mixed_kinds_in_one_group_each_apply_their_own_change() {
        // given five staged rows, and the flush in flight waiting for a lock on the first
        List<String> k = stage(5);
        Instant later = clock.instant().plusSeconds(60);
        try (Lock lock = Lock.row(harness.factory(), k.get(0))) {
            Mono<Void> blocked =
                    store.settleKeys(List.of(k.get(0)), Settlement.complete()).cache();
            blocked.subscribe();
            batches.clear();

            // when a complete, a fail, a cancel and a retry queue behind it and the lock goes
            Mono<Void> group = Mono.when(
                    store.settleKeys(List.of(k.get(1)), Settlement.complete()),
                    store.settleKeys(List.of(k.get(2)), Settlement.fail()),
                    store.settleKeys(List.of(k.get(3)), Settlement.cancel()),
                    store.settleKeys(List.of(k.get(4)), Settlement.retryAt(3, later)));
            StepVerifier.create(group.and(blocked))
                    .then(lock::release)
                    .expectComplete()
                    .verify(TIMEOUT);
        }

        // then each row took its own change, from one statement of four
        assertThat(state(k.get(0)).status()).isEqualTo(OutboxStatus.DONE);
        assertThat(state(k.get(1)).status()).isEqualTo(OutboxStatus.DONE);
        assertThat(state(k.get(2)).status()).isEqualTo(OutboxStatus.FAILED);
        assertThat(state(k.get(3)).status()).isEqualTo(OutboxStatus.CANCELLED);
        assertThat(state(k.get(4))).isEqualTo(new OutboxRowState(OutboxStatus.PENDING, 3, later));
        assertThat(batches).contains(4);
    }

    @Test
    void W6_fenced_settles_in_one_group_are_each_fenced_by_their_own_claim() {
        // given five rows claimed at once, rows 1 and 4 retried and claimed again by a second claim
        List<String> k = stage(5);
        Map<String, OutboxRow> first = byKey(store.claim(ClaimRequest.of(5)).block(TIMEOUT));
        StepVerifier.create(Mono.when(
                        store.settleKeys(List.of(k.get(1)), Settlement.retryAt(1, clock.instant())),
                        store.settleKeys(List.of(k.get(4)), Settlement.retryAt(1, clock.instant()))))
                .expectComplete()
                .verify(TIMEOUT);
        Map<String, OutboxRow> second = byKey(store.claim(ClaimRequest.of(2)).block(TIMEOUT));
        assertThat(second.keySet()).containsExactlyInAnyOrder(k.get(1), k.get(4));
        Instant later = clock.instant().plusSeconds(60);
        Mono<Void> stale;
        try (Lock lock = Lock.row(harness.factory(), k.get(0))) {
            Mono<Void> blocked = store.complete(first.get(k.get(0))).cache();
            blocked.subscribe();
            batches.clear();

            // when one group holds a complete of row 1 under its first (stale) claim, a complete of
            // row 4 under its second claim (the token row 1 now holds), a fail and a retry
            stale = store.complete(first.get(k.get(1))).cache();
            stale.subscribe(null, e -> {}); // verified below
            Mono<Void> group = Mono.when(
                    store.complete(second.get(k.get(4))),
                    store.settle(first.get(k.get(2)), Settlement.fail()),
                    store.settle(first.get(k.get(3)), Settlement.retryAt(2, later)));
            StepVerifier.create(group.and(blocked))
                    .then(lock::release)
                    .expectComplete()
                    .verify(TIMEOUT);
        }

        // then the stale settle alone is refused and changed nothing; the others took their change,
        // from one statement of four
        StepVerifier.create(stale).expectError(StaleClaimException.class).verify(TIMEOUT);
        assertThat(state(k.get(1)).status()).isEqualTo(OutboxStatus.CLAIMED);
        assertThat(state(k.get(0)).status()).isEqualTo(OutboxStatus.DONE);
        assertThat(state(k.get(4)).status()).isEqualTo(OutboxStatus.DONE);
        assertThat(state(k.get(2)).status()).isEqualTo(OutboxStatus.FAILED);
        assertThat(state(k.get(3))).isEqualTo(new OutboxRowState(OutboxStatus.PENDING, 2, later));
        assertThat(batches).contains(4);
        // and the row's current claim still settles it
        StepVerifier.create(store.complete(second.get(k.get(1))))
                .expectComplete()
                .verify(TIMEOUT);
        assertThat(state(k.get(1)).status()).isEqualTo(OutboxStatus.DONE);
    }

    @Test
    void O66_fenced_settles_with_and_without_reasons_in_one_group_each_record_their_own_in_one_statement() {
        // given five claimed rows, and the fenced flush in flight waiting for a lock on the first
        List<String> k = stage(5);
        Map<String, OutboxRow> rows = byKey(store.claim(ClaimRequest.of(5)).block(TIMEOUT));
        FailureReason declined = FailureReason.of("card declined").withType("PaymentDeclined");
        FailureReason timeout = FailureReason.of("ledger timeout");
        try (Lock lock = Lock.row(harness.factory(), k.get(0))) {
            Mono<Void> blocked = store.complete(rows.get(k.get(0))).cache();
            blocked.subscribe();
            batches.clear();

            // when one group holds a dead-letter and a retry with reasons, a complete and a dead-letter without
            Mono<Void> group = Mono.when(
                    store.settle(rows.get(k.get(1)), Settlement.fail().withReason(declined)),
                    store.settle(
                            rows.get(k.get(2)),
                            Settlement.retryAt(1, clock.instant()).withReason(timeout)),
                    store.complete(rows.get(k.get(3))),
                    store.settle(rows.get(k.get(4)), Settlement.fail()));
            StepVerifier.create(group.and(blocked))
                    .then(lock::release)
                    .expectComplete()
                    .verify(TIMEOUT);
        }

        // then the four went out as one statement, and each row records only its own reason
        assertThat(batches).contains(4);
        Instant now = clock.instant();
        assertThat(failures(k.get(1))).containsExactly(AttemptFailure.of(1, now, declined));
        assertThat(failures(k.get(2))).containsExactly(AttemptFailure.of(1, now, timeout));
        assertThat(failures(k.get(3))).isEmpty();
        assertThat(failures(k.get(4))).isEmpty();
        assertThat(state(k.get(1)).status()).isEqualTo(OutboxStatus.FAILED);
        assertThat(state(k.get(2))).isEqualTo(new OutboxRowState(OutboxStatus.PENDING, 1, now));
    }

    private List<AttemptFailure> failures(String key) {
        return store.listOutbox(OutboxQuery.all(1).withDispatchKey(key))
                .blockFirst(TIMEOUT)
                .failures();
    }

    @Test
    void W6_a_second_fenced_complete_of_a_row_in_one_group_is_refused() {
        // given a claimed row, and the fenced flush in flight waiting for a lock on another
        List<String> k = stage(2);
        Map<String, OutboxRow> rows = byKey(store.claim(ClaimRequest.of(2)).block(TIMEOUT));
        try (Lock lock = Lock.row(harness.factory(), k.get(0))) {
            Mono<Void> blocked = store.complete(rows.get(k.get(0))).cache();
            blocked.subscribe();

            // when the same claimed row is completed twice in one group
            Mono<Void> once = store.complete(rows.get(k.get(1))).cache();
            Mono<Void> twice = store.complete(rows.get(k.get(1))).cache();
            once.subscribe(null, e -> {});
            twice.subscribe(null, e -> {});
            lock.release();

            // then the first completes and the second, applied after it, finds the row done
            StepVerifier.create(blocked.and(once)).expectComplete().verify(TIMEOUT);
            StepVerifier.create(twice).expectError(StaleClaimException.class).verify(TIMEOUT);
        }
        assertThat(state(k.get(1)).status()).isEqualTo(OutboxStatus.DONE);
    }

    @Test
    void W6_a_fenced_group_that_fails_fails_every_caller_and_settles_none_of_its_rows() {
        // given four claimed rows
        List<String> k = stage(4);
        Map<String, OutboxRow> rows = byKey(store.claim(ClaimRequest.of(4)).block(TIMEOUT));

        // when a fenced flush waits for a lock on the whole table, three fenced settles queue behind
        // it, and the table goes away before they run
        List<Mono<Void>> group = queuedBehindAVanishingTable(
                () -> store.complete(rows.get(k.get(0))),
                List.of(
                        () -> store.complete(rows.get(k.get(1))),
                        () -> store.settle(rows.get(k.get(2)), Settlement.fail()),
                        () -> store.settle(rows.get(k.get(3)), Settlement.retryAt(1, clock.instant()))));

        // then every caller of the group fails with a backend error (X7), none with a stale claim
        for (Mono<Void> caller : group) {
            StepVerifier.create(caller).expectError(BackendException.class).verify(TIMEOUT);
        }
        // and once the table is back, none of their rows was settled: each is still claimed, and
        // its claim still settles it
        HarnessSupport.execute(harness.factory(), "ALTER TABLE outbox_gone RENAME TO outbox");
        for (int i = 1; i < 4; i++) {
            assertThat(state(k.get(i)).status()).isEqualTo(OutboxStatus.CLAIMED);
            StepVerifier.create(store.complete(rows.get(k.get(i))))
                    .expectComplete()
                    .verify(TIMEOUT);
        }
    }

    @Test
    void O3_a_settle_leaves_a_row_whose_status_token_is_unknown_as_it_is() {
        // given two claimed rows whose stored status tokens were then damaged (O3: corrupt)
        List<String> k = stage(2);
        Map<String, OutboxRow> rows = byKey(store.claim(ClaimRequest.of(2)).block(TIMEOUT));
        HarnessSupport.execute(
                harness.factory(), "UPDATE outbox SET status = 'nope' WHERE dispatch_key = ANY($1)", (Object)
                        k.toArray(new String[0]));

        // when one is completed by its key and the other by its claim
        StepVerifier.create(store.settleKeys(List.of(k.get(0)), Settlement.complete()))
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.complete(rows.get(k.get(1))))
                .expectError(StaleClaimException.class)
                .verify(TIMEOUT);

        // then neither is live, so neither was settled: both still hold the damaged token, as on
        // the SQLite store
        assertThat(storedStatuses(k)).containsExactly("nope", "nope");
    }

    private List<String> storedStatuses(List<String> keys) {
        return Flux.usingWhen(
                        harness.factory().create(),
                        c -> Flux.from(c.createStatement(
                                                "SELECT status FROM outbox WHERE dispatch_key = ANY($1) ORDER BY dispatch_key")
                                        .bind(0, keys.toArray(new String[0]))
                                        .execute())
                                .concatMap(r -> r.map((row, meta) -> row.get(0, String.class))),
                        Connection::close)
                .collectList()
                .block(TIMEOUT);
    }

    /**
     * Sends {@code first} while a lock on the whole table holds it, queues {@code queued} behind it
     * (one group), then renames the table away and releases the lock, so the group's statement
     * finds no table. {@code first}'s own outcome is ignored.
     *
     * @return the queued callers, subscribed, in order
     */
    private List<Mono<Void>> queuedBehindAVanishingTable(
            Supplier<Mono<Void>> first, List<Supplier<Mono<Void>>> queued) {
        List<Mono<Void>> group = new ArrayList<>();
        try (Lock lock = Lock.table(harness.factory())) {
            Mono<Void> blocked = first.get().onErrorResume(e -> Mono.empty()).cache();
            blocked.subscribe();
            queued.forEach(settle -> group.add(settle.get().cache()));
            group.forEach(caller -> caller.subscribe(null, e -> {})); // verified by the caller
            lock.run("ALTER TABLE outbox RENAME TO outbox_gone");
            lock.release();
            StepVerifier.create(blocked).expectComplete().verify(TIMEOUT);
        }
        return group;
    }

    private static Map<String, OutboxRow> byKey(List<OutboxRow> rows) {
        Map<String, OutboxRow> byKey = new HashMap<>();
        rows.forEach(r -> byKey.put(r.dispatchKey(), r));
        return byKey;
    }

    @Test
    void duplicate_keys_in_one_group_apply_in_submission_order() {
        // given three staged rows, and the flush in flight waiting for a lock on the first
        List<String> k = stage(3);
        Instant now = clock.instant();
        try (Lock lock = Lock.row(harness.factory(), k.get(0))) {
            Mono<Void> blocked =
                    store.settleKeys(List.of(k.get(0)), Settlement.complete()).cache();
            blocked.subscribe();

            // when one group holds a retry then a complete of row 1, and a fail then a complete then a
            // retry of row 2
            Mono<Void> group = Mono.when(
                    store.settleKeys(List.of(k.get(1)), Settlement.retryAt(5, now)),
                    store.settleKeys(List.of(k.get(1)), Settlement.complete()),
                    store.settleKeys(List.of(k.get(2)), Settlement.fail()),
                    store.settleKeys(List.of(k.get(2)), Settlement.complete()),
                    store.settleKeys(List.of(k.get(2)), Settlement.retryAt(9, now)));
            StepVerifier.create(group.and(blocked))
                    .then(lock::release)
                    .expectComplete()
                    .verify(TIMEOUT);
        }

        // then they applied one after the other: the retry left row 1 live, so the complete took it;
        // the fail settled row 2, so the complete and the retry after it changed nothing
        assertThat(state(k.get(1))).isEqualTo(new OutboxRowState(OutboxStatus.DONE, 5, now));
        assertThat(state(k.get(2))).isEqualTo(new OutboxRowState(OutboxStatus.FAILED, 0, now));
    }

    @Test
    void a_caller_cancelled_before_its_group_is_taken_changes_nothing() {
        // given two staged rows, and the flush in flight waiting for a lock on the first
        List<String> k = stage(3);
        try (Lock lock = Lock.row(harness.factory(), k.get(0))) {
            Mono<Void> blocked =
                    store.settleKeys(List.of(k.get(0)), Settlement.complete()).cache();
            blocked.subscribe();

            // when a complete of row 1 queues behind it and is cancelled, then the lock goes
            Disposable cancelled =
                    store.settleKeys(List.of(k.get(1)), Settlement.complete()).subscribe();
            cancelled.dispose();
            StepVerifier.create(blocked).then(lock::release).expectComplete().verify(TIMEOUT);
        }
        // (a later settle flushes whatever was queued)
        StepVerifier.create(store.settleKeys(List.of(k.get(2)), Settlement.complete()))
                .expectComplete()
                .verify(TIMEOUT);

        // then row 1 is still pending
        assertThat(state(k.get(1)).status()).isEqualTo(OutboxStatus.PENDING);
        assertThat(state(k.get(2)).status()).isEqualTo(OutboxStatus.DONE);
    }

    @Test
    void a_group_that_fails_fails_every_caller_in_it_with_a_backend_error() {
        // given three staged rows
        List<String> k = stage(3);

        // when a flush waits for a lock on the whole table, three settles queue behind it, and the
        // table goes away before they run
        List<Mono<Void>> group = queuedBehindAVanishingTable(
                () -> store.settleKeys(List.of(k.get(0)), Settlement.complete()),
                List.of(
                        () -> store.settleKeys(List.of(k.get(1)), Settlement.complete()),
                        () -> store.settleKeys(List.of(k.get(2)), Settlement.fail()),
                        () -> store.settleKeys(List.of(k.get(1)), Settlement.retryAt(1, clock.instant()))));

        // then every caller of the group fails with a backend error (X7)
        for (Mono<Void> caller : group) {
            StepVerifier.create(caller).expectError(BackendException.class).verify(TIMEOUT);
        }
    }

    @Test
    void a_close_waits_for_settles_already_queued_and_refuses_later_ones() {
        // given two staged rows, and the flush in flight waiting for a lock on the first
        List<String> k = stage(2);
        try (Lock lock = Lock.row(harness.factory(), k.get(0))) {
            Mono<Void> blocked =
                    store.settleKeys(List.of(k.get(0)), Settlement.complete()).cache();
            blocked.subscribe();
            Mono<Void> queued =
                    store.settleKeys(List.of(k.get(1)), Settlement.complete()).cache();
            queued.subscribe(null, e -> {}); // verified below

            // when the store closes while that settle waits for its group, and then the lock goes
            Mono<Void> closing = store.closeAsync().cache();
            closing.subscribe();
            StepVerifier.create(store.settleKeys(List.of(k.get(1)), Settlement.fail()))
                    .expectError(StoreClosedException.class)
                    .verify(TIMEOUT);
            lock.release();

            // then the queued settle commits before the close completes
            StepVerifier.create(queued.and(blocked).then(closing))
                    .expectComplete()
                    .verify(TIMEOUT);
        }
        ReactiveStore reopened = openStore(new StoreMetrics() {});
        try {
            assertThat(reopened.rowState(k.get(1)).block(TIMEOUT).status()).isEqualTo(OutboxStatus.DONE);
        } finally {
            reopened.close();
        }
    }

    @Test
    void staging_and_retry_on_one_store_wake_an_idle_stream_on_another() {
        // given a second store on the same database whose stream polls only once an hour
        Semaphore claims = new Semaphore(0);
        ReactiveStore other = openStore(new StoreMetrics() {
            @Override
            public void rowsClaimed(int rows) {
                claims.release();
            }
        });
        OutboxRow row = OutboxRow.pending(WorkflowId.random(), 0, "work", Payload.json("{}"), clock.instant());
        ClaimStreamOptions options = ClaimStreamOptions.defaults().withPollInterval(Duration.ofHours(1));

        try {
            // when a row is staged on this store after the other stream found nothing, and, once the
            // other stream holds it and found nothing more, the row is retried on this store
            StepVerifier.create(other.claimStream(options), 1)
                    .then(() -> awaitClaim(claims))
                    .then(() -> store.appendOutboxBatch(List.of(row)).block(TIMEOUT))
                    // then the stream wakes for the staged row (the NOTIFY), long before its poll
                    .assertNext(r -> assertThat(r.dispatchKey()).isEqualTo(row.dispatchKey()))
                    .then(() -> awaitClaim(claims))
                    .thenRequest(1)
                    .then(() -> awaitClaim(claims))
                    .then(() -> store.settleKeys(List.of(row.dispatchKey()), Settlement.retryAt(1, clock.instant()))
                            .block(TIMEOUT))
                    // and again for the retried row
                    .assertNext(r -> assertThat(r.attempt()).isEqualTo(1))
                    .thenCancel()
                    .verify(TIMEOUT);
        } finally {
            other.close();
        }
    }

    private static void awaitClaim(Semaphore claims) {
        try {
            assertThat(claims.tryAcquire(TIMEOUT.toSeconds(), TimeUnit.SECONDS))
                    .as("a claim returned")
                    .isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private List<String> stage(int n) {
        List<OutboxRow> rows = new ArrayList<>(n);
        List<String> keys = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            OutboxRow r = OutboxRow.pending(WorkflowId.random(), i, "work", Payload.json("{}"), clock.instant());
            rows.add(r);
            keys.add(r.dispatchKey());
        }
        StepVerifier.create(store.appendOutboxBatch(rows)).expectComplete().verify(TIMEOUT);
        return keys;
    }

    private OutboxRowState state(String key) {
        return store.rowState(key).block(TIMEOUT);
    }

    /** A transaction on its own connection holding a lock until {@link #release}. */
    private static final class Lock implements AutoCloseable {
        private final Connection connection;
        private boolean open = true;

        private Lock(ConnectionFactory factory, String sql, Object... args) {
            this.connection = Mono.from(factory.create()).block(TIMEOUT);
            Mono.from(connection.beginTransaction()).block(TIMEOUT);
            run(sql, args);
        }

        static Lock row(ConnectionFactory factory, String key) {
            return new Lock(factory, "SELECT dispatch_key FROM outbox WHERE dispatch_key = $1 FOR UPDATE", key);
        }

        static Lock table(ConnectionFactory factory) {
            return new Lock(factory, "LOCK TABLE outbox IN ACCESS EXCLUSIVE MODE");
        }

        void run(String sql, Object... args) {
            Statement s = connection.createStatement(sql);
            for (int i = 0; i < args.length; i++) {
                s.bind(i, args[i]);
            }
            Flux.from(s.execute()).concatMap(r -> r.map((row, meta) -> 1)).blockLast(TIMEOUT);
        }

        void release() {
            if (open) {
                open = false;
                Mono.from(connection.commitTransaction()).block(TIMEOUT);
            }
        }

        @Override
        public void close() {
            release();
            Mono.from(connection.close()).block(TIMEOUT);
        }
    }
}
