package dev.durablestore.r2dbc;

import dev.durablestore.api.BackendException;
import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.DispatchPolicy;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.OutboxCounts;
import dev.durablestore.api.OutboxQuery;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxRowState;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.RunSummary;
import dev.durablestore.api.TimerEntry;
import dev.durablestore.api.TimerId;
import dev.durablestore.api.UndecodableEvent;
import dev.durablestore.api.WorkflowFilter;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.WorkflowStep;
import dev.durablestore.api.WorkflowSummary;
import dev.durablestore.api.event.Event;
import dev.durablestore.r2dbc.internal.Backend;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The scale-out store: the whole {@link ReactiveStore} contract over the R2DBC SPI, on PostgreSQL
 * (production: several engine and dispatcher nodes on one server) or on H2 in
 * {@code MODE=PostgreSQL} (an in-process test double). Non-blocking end to end on PostgreSQL.
 *
 * <ul>
 *   <li><b>Transactions.</b> Every multi-statement write runs in one transaction on a connection of
 *       its own (S21); a success signal is emitted only after the commit returned.</li>
 *   <li><b>The expected-head guard across nodes.</b> An append reads the head and inserts its
 *       events in one transaction; the primary key (workflow id, seq) makes a duplicate
 *       {@code seq} impossible, so of two nodes racing on one head the second gets a unique
 *       violation, which becomes a {@link dev.durablestore.api.SequenceConflictException} once the
 *       committed head has been re-read (E13–E15).</li>
 *   <li><b>Claims</b> take due rows in one statement; on PostgreSQL a CTE selects them
 *       {@code FOR UPDATE SKIP LOCKED} and updates them {@code RETURNING} the rows, so concurrent
 *       claimers on any node never receive a row twice (O21) and never wait for each other.</li>
 *   <li><b>Claim-stream wake-ups</b> come from this instance's own commits and, on PostgreSQL, from
 *       {@code NOTIFY} on the configured channel, sent after the commit of the staging, retry,
 *       re-arm or redrive that made rows claimable, on its own statement and coalesced (at most one
 *       in flight and one pending per store), so notifying never serializes commits; the poll
 *       interval is the fallback ({@link R2dbcStoreConfig#withNotifications(boolean)}).</li>
 *   <li><b>Settles</b> ({@code complete}, {@code fail}, {@code settleCancelled}, {@code retry}) made
 *       concurrently on one PostgreSQL store are written together, one statement per group, each
 *       caller's {@code Mono} completing once that statement committed.</li>
 *   <li><b>Timestamps</b> are {@code BIGINT} epoch nanoseconds (S10); payloads {@code BYTEA}; text
 *       columns compare in code-point order ({@code COLLATE "C"} on PostgreSQL).</li>
 * </ul>
 *
 * <pre>{@code
 * ConnectionPool pool = new ConnectionPool(ConnectionPoolConfiguration
 *         .builder(ConnectionFactories.get("r2dbc:postgresql://app@db:5432/workflows"))
 *         .maxSize(16).build());
 * R2dbcReactiveStore store = R2dbcReactiveStore.open(R2dbcStoreConfig.of(pool)).block();
 * store.appendWithOutbox(workflowId, events, 0, rows).block();
 * store.close();      // the pool stays open: close it after the store
 * pool.dispose();
 * }</pre>
 */
public final class R2dbcReactiveStore implements ReactiveStore {

    private static final AtomicInteger INSTANCES = new AtomicInteger();

    private final Backend backend;

    private R2dbcReactiveStore(Backend backend) {
        this.backend = backend;
    }

    /**
     * Opens a store: detects the dialect when the configuration names none, creates the schema
     * idempotently (S6; on an existing database it only adds what is missing, S7–S9) and, on
     * PostgreSQL with notifications on, starts listening.
     *
     * @param config the configuration
     * @return a Mono of the open store; it fails with {@link InvalidArgumentException} when the
     *     dialect cannot be detected, and with {@link BackendException} when the schema cannot be
     *     applied (S20)
     */
    public static Mono<R2dbcReactiveStore> open(R2dbcStoreConfig config) {
        return Mono.defer(() -> {
            InvalidArgumentException.requireNonNull(config, "config");
            R2dbcDialect dialect =
                    config.dialect() != null ? config.dialect() : R2dbcDialect.detect(config.connectionFactory());
            String name = String.valueOf(INSTANCES.incrementAndGet());
            return Backend.open(
                            config.connectionFactory(),
                            dialect == R2dbcDialect.POSTGRESQL,
                            config.clock(),
                            config.notifications() ? config.notifyChannel() : null,
                            config.metrics(),
                            config.operationTimeout(),
                            name)
                    .map(R2dbcReactiveStore::new);
        });
    }

    @Override
    public Mono<Void> append(WorkflowId workflowId, List<Event> events, long expectedSeq) {
        return backend.append(workflowId, events, expectedSeq);
    }

    @Override
    public Mono<Void> appendWithOutbox(
            WorkflowId workflowId, List<Event> events, long expectedSeq, List<OutboxRow> rows) {
        return backend.appendWithOutbox(workflowId, events, expectedSeq, rows);
    }

    @Override
    public Flux<Event> readHistory(WorkflowId workflowId) {
        return backend.readHistory(workflowId);
    }

    @Override
    public Flux<Event> readHistoryFrom(WorkflowId workflowId, long fromSeq) {
        return backend.readHistoryFrom(workflowId, fromSeq);
    }

    @Override
    public Mono<Long> readHead(WorkflowId workflowId) {
        return backend.readHead(workflowId);
    }

    @Override
    public Flux<WorkflowId> listWorkflowIds() {
        return backend.listWorkflowIds();
    }

    @Override
    public Flux<WorkflowId> listActive() {
        return backend.listActive();
    }

    @Override
    public Flux<WorkflowId> listPaused() {
        return backend.listPaused();
    }

    @Override
    public Flux<WorkflowSummary> query(WorkflowFilter filter) {
        return backend.query(filter);
    }

    @Override
    public Mono<WorkflowSummary> readSummary(WorkflowId workflowId) {
        return backend.readSummary(workflowId);
    }

    @Override
    public Mono<List<RunSummary>> readRunChain(WorkflowId workflowId) {
        return backend.readRunChain(workflowId);
    }

    @Override
    public Mono<Void> validateStoredEvents() {
        return backend.validateStoredEvents();
    }

    @Override
    public Flux<UndecodableEvent> findUndecodableEvents() {
        return backend.findUndecodableEvents();
    }

    @Override
    public Mono<Void> scheduleTimer(WorkflowId workflowId, TimerId timerId, Instant fireAt) {
        return backend.scheduleTimer(workflowId, timerId, fireAt);
    }

    @Override
    public Flux<TimerEntry> expiredTimers(Instant asOf) {
        return backend.expiredTimers(asOf);
    }

    @Override
    public Mono<Void> appendOutboxBatch(List<OutboxRow> rows) {
        return backend.appendOutboxBatch(rows);
    }

    @Override
    public Mono<Void> rearmPending(List<OutboxRow> rows) {
        return backend.rearmPending(rows);
    }

    @Override
    public Mono<List<OutboxRow>> claim(int limit) {
        return backend.claim(limit);
    }

    @Override
    public Mono<List<OutboxRow>> claimExcluding(int limit, Set<WorkflowId> held) {
        return backend.claimExcluding(limit, held);
    }

    @Override
    public Mono<List<OutboxRow>> claimScoped(ClaimScope scope, int limit) {
        return backend.claimScoped(scope, limit);
    }

    @Override
    public Mono<List<OutboxRow>> claimScopedExcluding(ClaimScope scope, int limit, Set<WorkflowId> held) {
        return backend.claimScopedExcluding(scope, limit, held);
    }

    @Override
    public Mono<List<OutboxRow>> claim(ClaimScope scope, int limit, Set<WorkflowId> held, DispatchPolicy policy) {
        return backend.claim(scope, limit, held, policy);
    }

    @Override
    public Flux<OutboxRow> claimStream(ClaimStreamOptions options) {
        return backend.claimStream(options);
    }

    @Override
    public Mono<Void> complete(String dispatchKey) {
        return backend.complete(dispatchKey);
    }

    @Override
    public Mono<Void> complete(Collection<String> dispatchKeys) {
        return backend.complete(dispatchKeys);
    }

    @Override
    public Mono<Void> retry(String dispatchKey, int nextAttempt, Instant visibleAfter) {
        return backend.retry(dispatchKey, nextAttempt, visibleAfter);
    }

    @Override
    public Mono<Void> retry(Collection<String> dispatchKeys, int nextAttempt, Instant visibleAfter) {
        return backend.retry(dispatchKeys, nextAttempt, visibleAfter);
    }

    @Override
    public Mono<Void> retryAfter(String dispatchKey, int nextAttempt, Duration delay) {
        return backend.retryAfter(dispatchKey, nextAttempt, delay);
    }

    @Override
    public Mono<Void> fail(String dispatchKey) {
        return backend.fail(dispatchKey);
    }

    @Override
    public Mono<Void> fail(Collection<String> dispatchKeys) {
        return backend.fail(dispatchKeys);
    }

    @Override
    public Mono<Void> settleCancelled(String dispatchKey) {
        return backend.settleCancelled(dispatchKey);
    }

    @Override
    public Mono<Void> settleCancelled(Collection<String> dispatchKeys) {
        return backend.settleCancelled(dispatchKeys);
    }

    @Override
    public Mono<List<String>> cancelWorkflowRows(WorkflowId workflowId) {
        return backend.cancelWorkflowRows(workflowId);
    }

    @Override
    public Flux<OutboxRow> listStaleClaimed(Instant olderThan, int limit) {
        return backend.listStaleClaimed(olderThan, limit);
    }

    @Override
    public Mono<List<OutboxRow>> rearmStaleClaimed(Instant olderThan, Instant visibleAfter, int limit) {
        return backend.rearmStaleClaimed(olderThan, visibleAfter, limit);
    }

    @Override
    public Mono<List<String>> heartbeat(Collection<String> dispatchKeys) {
        return backend.heartbeat(dispatchKeys);
    }

    @Override
    public Mono<Boolean> redrive(String dispatchKey, boolean resetAttempt) {
        return backend.redrive(dispatchKey, resetAttempt);
    }

    @Override
    public Mono<List<String>> redriveWorkflow(WorkflowId workflowId, boolean resetAttempt) {
        return backend.redriveWorkflow(workflowId, resetAttempt);
    }

    @Override
    public Mono<Long> pruneSettled(Instant settledBefore, int batchSize) {
        return backend.pruneSettled(settledBefore, batchSize);
    }

    @Override
    public Flux<WorkflowId> listUnsettledWorkflowIds() {
        return backend.listUnsettledWorkflowIds();
    }

    @Override
    public Mono<Long> countInflight(String namespace) {
        return backend.countInflight(namespace);
    }

    @Override
    public Mono<Long> countClaimed(String namespace) {
        return backend.countClaimed(namespace);
    }

    @Override
    public Mono<Map<String, Long>> countClaimedByNamespace(Collection<String> namespaces) {
        return backend.countClaimedByNamespace(namespaces);
    }

    @Override
    public Flux<ClaimScope> pendingRoutes() {
        return backend.pendingRoutes();
    }

    @Override
    public Flux<OutboxRow> listOutbox(OutboxQuery query) {
        return backend.listOutbox(query);
    }

    @Override
    public Mono<OutboxCounts> countByRoute(Instant dueBy, Instant claimedBefore, int cap) {
        return backend.countByRoute(dueBy, claimedBefore, cap);
    }

    @Override
    public Mono<OutboxRowState> rowState(String dispatchKey) {
        return backend.rowState(dispatchKey);
    }

    @Override
    public Mono<Void> commitStep(WorkflowStep step) {
        return backend.commitStep(step);
    }

    @Override
    public Mono<Void> complete(OutboxRow claimed) {
        return backend.complete(claimed);
    }

    @Override
    public Mono<Void> retry(OutboxRow claimed, int nextAttempt, Instant visibleAfter) {
        return backend.retry(claimed, nextAttempt, visibleAfter);
    }

    @Override
    public Mono<Void> fail(OutboxRow claimed) {
        return backend.fail(claimed);
    }

    @Override
    public Mono<Void> settleCancelled(OutboxRow claimed) {
        return backend.settleCancelled(claimed);
    }

    /**
     * Ends every claim stream with {@link dev.durablestore.api.StoreClosedException} (each first
     * releasing the rows it claimed and had not delivered), refuses new operations, waits up to
     * 30 s for those in flight to finish, stops listening and releases the store's threads, without
     * blocking. The connection factory is not closed. Idempotent.
     */
    @Override
    public Mono<Void> closeAsync() {
        return backend.closeAsync();
    }

    /**
     * Closes as {@link #closeAsync()} does and waits for it; on a non-blocking thread it starts the
     * close and returns at once. Idempotent.
     */
    @Override
    public void close() {
        backend.close();
    }

    @Override
    public String toString() {
        return backend.toString();
    }
}
