package dev.durablestore.sqlite;

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
import dev.durablestore.api.StoreClosedException;
import dev.durablestore.api.StoreException;
import dev.durablestore.api.TimerEntry;
import dev.durablestore.api.TimerId;
import dev.durablestore.api.UndecodableEvent;
import dev.durablestore.api.WorkflowFilter;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.WorkflowStep;
import dev.durablestore.api.WorkflowSummary;
import dev.durablestore.api.codec.EventCodec;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.spi.Wakeups;
import dev.durablestore.sqlite.internal.Claims;
import dev.durablestore.sqlite.internal.Connections;
import dev.durablestore.sqlite.internal.DbConnection;
import dev.durablestore.sqlite.internal.EventRows;
import dev.durablestore.sqlite.internal.FileIdentity;
import dev.durablestore.sqlite.internal.OutboxReads;
import dev.durablestore.sqlite.internal.OutboxRows;
import dev.durablestore.sqlite.internal.OutboxWrites;
import dev.durablestore.sqlite.internal.ReaderPool;
import dev.durablestore.sqlite.internal.Schema;
import dev.durablestore.sqlite.internal.SqliteHistory;
import dev.durablestore.sqlite.internal.SqliteTimers;
import dev.durablestore.sqlite.internal.Writer;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The embedded store: one SQLite file, one writer with group commit, a bounded pool of read-only
 * connections.
 *
 * <p>Every mutation is a command queued to the single writer, which owns the only write
 * connection. The writer takes every waiting command (up to
 * {@link SqliteStoreConfig#maxBatchCommands()}), runs them in one {@code BEGIN IMMEDIATE}
 * transaction and commits once; each subscriber is signalled only after that commit returned.
 * Reads run on the store's own reader threads against WAL snapshots. No JDBC call runs on a
 * caller's thread or on Reactor's schedulers.
 *
 * <p><b>Where results arrive.</b> Read results are emitted on the store's
 * {@code durable-store-emit} threads. Write results are signalled by the writer thread that
 * committed them, at once: the writer has two threads ({@code durable-store-writer-<name>-1} and
 * {@code -2}), one at a time holding the connection, and while one runs subscribers' code a command
 * submitted from any other thread makes the other one the writer, so downstream operators never
 * hold up the queue. All of these threads are non-blocking for subscribers' code: Reactor refuses
 * {@code block()} on them, and BlockHound, when installed, checks that code there (the writer's own
 * statements and waits are declared to it). Move slow or blocking downstream work elsewhere with
 * {@code publishOn}.
 *
 * <pre>{@code
 * try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(Path.of("app.db")))) {
 *     store.appendWithOutbox(workflowId, events, 0, rows).block();
 * }
 * }</pre>
 */
public final class SqliteReactiveStore implements ReactiveStore {

    private static final AtomicInteger INSTANCES = new AtomicInteger();
    /** How long close waits for claim streams to settle (their claims in flight, their releases). */
    private static final Duration STREAMS_WAIT = Duration.ofSeconds(10);
    /** How long close waits for queued writes. */
    private static final Duration WRITES_WAIT = Duration.ofSeconds(30);

    private final String name;
    private final Scheduler emit;
    private final Writer writer;
    private final ReaderPool readers;
    private final SqliteHistory history;
    private final SqliteTimers timers;
    private final OutboxWrites writes;
    private final OutboxReads reads;
    private final Claims claims;
    private final Wakeups wakeups;
    private final Mono<Void> closing = Mono.defer(this::shutdown).cache();

    private SqliteReactiveStore(
            String name,
            Scheduler emit,
            Writer writer,
            ReaderPool readers,
            SqliteHistory history,
            SqliteTimers timers,
            OutboxWrites writes,
            OutboxReads reads,
            Claims claims,
            Wakeups wakeups) {
        this.name = name;
        this.emit = emit;
        this.writer = writer;
        this.readers = readers;
        this.history = history;
        this.timers = timers;
        this.writes = writes;
        this.reads = reads;
        this.claims = claims;
        this.wakeups = wakeups;
    }

    /**
     * Opens (creating when missing) the database file, applies pragmas, schema and migrations
     * (S6–S9, S16–S20), and starts the writer and readers.
     *
     * @param config the configuration
     * @return the open store
     * @throws BackendException when the file cannot be opened or migrated
     */
    public static SqliteReactiveStore open(SqliteStoreConfig config) {
        InvalidArgumentException.requireNonNull(config, "config");
        String name = String.valueOf(INSTANCES.incrementAndGet());
        Connections connections = new Connections(config.path(), config.journalMode(), config.synchronous(), (int)
                config.busyTimeout().toMillis());
        DbConnection writeConnection = connections.openWriter(config.checkpointPages(), config.writerCacheKib());
        try {
            Schema.apply(writeConnection);
        } catch (SQLException | RuntimeException e) {
            writeConnection.close();
            throw e instanceof StoreException se
                    ? se
                    : new BackendException("cannot apply the schema to " + config.path() + ": " + e.getMessage(), e);
        }
        Scheduler emit = Schedulers.newParallel(
                "durable-store-emit-" + name, Math.max(2, Runtime.getRuntime().availableProcessors()), true);
        ReaderPool readers;
        try {
            readers = new ReaderPool(config.readerPoolSize(), connections::openReader, emit, name, config.metrics());
        } catch (RuntimeException e) {
            writeConnection.close();
            emit.dispose();
            throw e;
        }
        EventCodec codec = EventCodec.create();
        Wakeups wakeups = new Wakeups();
        Writer writer = new Writer(
                writeConnection,
                config.maxBatchCommands(),
                emit,
                () -> wake(emit, wakeups),
                () -> settled(emit, wakeups),
                config.metrics(),
                name);
        OutboxRows outboxRows = new OutboxRows(codec);
        FileIdentity identity = FileIdentity.of(config.path().toAbsolutePath());
        if (identity != null) {
            writer.addListener(identity);
        }
        OutboxWrites writes = new OutboxWrites(writer, outboxRows, config.clock());
        return new SqliteReactiveStore(
                name,
                emit,
                writer,
                readers,
                new SqliteHistory(writer, readers, new EventRows(codec), outboxRows, config.clock()),
                new SqliteTimers(writer, readers),
                writes,
                new OutboxReads(readers, outboxRows, config.clock()),
                new Claims(writer, writes, outboxRows, config.clock(), wakeups, config.metrics()),
                wakeups);
    }

    /** @return commands waiting for the writer thread (a gauge for metrics) */
    public int writerQueueDepth() {
        return writer.queueDepth();
    }

    @Override
    public Mono<Void> append(WorkflowId workflowId, List<Event> events, long expectedSeq) {
        return history.append(workflowId, events, expectedSeq, List.of());
    }

    @Override
    public Mono<Void> appendWithOutbox(
            WorkflowId workflowId, List<Event> events, long expectedSeq, List<OutboxRow> rows) {
        return history.append(workflowId, events, expectedSeq, rows);
    }

    @Override
    public Flux<Event> readHistory(WorkflowId workflowId) {
        return history.readHistory(workflowId);
    }

    @Override
    public Flux<Event> readHistoryFrom(WorkflowId workflowId, long fromSeq) {
        return history.readHistoryFrom(workflowId, fromSeq);
    }

    @Override
    public Mono<Long> readHead(WorkflowId workflowId) {
        return history.readHead(workflowId);
    }

    @Override
    public Flux<WorkflowId> listWorkflowIds() {
        return history.listWorkflowIds();
    }

    @Override
    public Flux<WorkflowId> listActive() {
        return history.listActive();
    }

    @Override
    public Flux<WorkflowId> listPaused() {
        return history.listPaused();
    }

    @Override
    public Flux<WorkflowSummary> query(WorkflowFilter filter) {
        return history.query(filter);
    }

    @Override
    public Mono<WorkflowSummary> readSummary(WorkflowId workflowId) {
        return history.readSummary(workflowId);
    }

    @Override
    public Mono<List<RunSummary>> readRunChain(WorkflowId workflowId) {
        return history.readRunChain(workflowId);
    }

    @Override
    public Mono<Void> validateStoredEvents() {
        return history.validateStoredEvents();
    }

    @Override
    public Flux<UndecodableEvent> findUndecodableEvents() {
        return history.findUndecodableEvents();
    }

    @Override
    public Mono<Void> scheduleTimer(WorkflowId workflowId, TimerId timerId, Instant fireAt) {
        return timers.scheduleTimer(workflowId, timerId, fireAt);
    }

    @Override
    public Flux<TimerEntry> expiredTimers(Instant asOf) {
        return timers.expiredTimers(asOf);
    }

    @Override
    public Mono<Void> appendOutboxBatch(List<OutboxRow> rows) {
        return writes.appendOutboxBatch(rows);
    }

    @Override
    public Mono<Void> rearmPending(List<OutboxRow> rows) {
        return writes.rearmPending(rows);
    }

    @Override
    public Mono<List<OutboxRow>> claim(int limit) {
        return claims.claim(null, limit, Set.of());
    }

    @Override
    public Mono<List<OutboxRow>> claimExcluding(int limit, Set<WorkflowId> held) {
        return claims.claim(null, limit, held);
    }

    @Override
    public Mono<List<OutboxRow>> claimScoped(ClaimScope scope, int limit) {
        return Mono.defer(() -> claims.claim(requireScope(scope), limit, Set.of()));
    }

    @Override
    public Mono<List<OutboxRow>> claimScopedExcluding(ClaimScope scope, int limit, Set<WorkflowId> held) {
        return Mono.defer(() -> claims.claim(requireScope(scope), limit, held));
    }

    @Override
    public Mono<List<OutboxRow>> claim(ClaimScope scope, int limit, Set<WorkflowId> held, DispatchPolicy policy) {
        return claims.claim(scope, limit, held, policy);
    }

    private static ClaimScope requireScope(ClaimScope scope) {
        return InvalidArgumentException.requireNonNull(scope, "scope");
    }

    @Override
    public Flux<OutboxRow> claimStream(ClaimStreamOptions options) {
        return claims.claimStream(options);
    }

    @Override
    public Mono<Void> complete(String dispatchKey) {
        return writes.complete(dispatchKey);
    }

    @Override
    public Mono<Void> complete(Collection<String> dispatchKeys) {
        return writes.complete(dispatchKeys);
    }

    @Override
    public Mono<Void> retry(String dispatchKey, int nextAttempt, Instant visibleAfter) {
        return writes.retry(dispatchKey, nextAttempt, visibleAfter);
    }

    @Override
    public Mono<Void> retry(Collection<String> dispatchKeys, int nextAttempt, Instant visibleAfter) {
        return writes.retry(dispatchKeys, nextAttempt, visibleAfter);
    }

    @Override
    public Mono<Void> retryAfter(String dispatchKey, int nextAttempt, Duration delay) {
        return writes.retryAfter(dispatchKey, nextAttempt, delay);
    }

    @Override
    public Mono<Void> fail(String dispatchKey) {
        return writes.fail(dispatchKey);
    }

    @Override
    public Mono<Void> fail(Collection<String> dispatchKeys) {
        return writes.fail(dispatchKeys);
    }

    @Override
    public Mono<Void> settleCancelled(String dispatchKey) {
        return writes.settleCancelled(dispatchKey);
    }

    @Override
    public Mono<Void> settleCancelled(Collection<String> dispatchKeys) {
        return writes.settleCancelled(dispatchKeys);
    }

    @Override
    public Mono<List<String>> cancelWorkflowRows(WorkflowId workflowId) {
        return writes.cancelWorkflowRows(workflowId);
    }

    @Override
    public Flux<OutboxRow> listStaleClaimed(Instant olderThan, int limit) {
        return reads.listStaleClaimed(olderThan, limit);
    }

    @Override
    public Mono<List<OutboxRow>> rearmStaleClaimed(Instant olderThan, Instant visibleAfter, int limit) {
        return writes.rearmStaleClaimed(olderThan, visibleAfter, limit);
    }

    @Override
    public Mono<List<String>> heartbeat(Collection<String> dispatchKeys) {
        return writes.heartbeat(dispatchKeys);
    }

    @Override
    public Mono<Boolean> redrive(String dispatchKey, boolean resetAttempt) {
        return writes.redrive(dispatchKey, resetAttempt);
    }

    @Override
    public Mono<List<String>> redriveWorkflow(WorkflowId workflowId, boolean resetAttempt) {
        return writes.redriveWorkflow(workflowId, resetAttempt);
    }

    @Override
    public Mono<Long> pruneSettled(Instant settledBefore, int batchSize) {
        return writes.pruneSettled(settledBefore, batchSize);
    }

    @Override
    public Flux<WorkflowId> listUnsettledWorkflowIds() {
        return reads.listUnsettledWorkflowIds();
    }

    @Override
    public Mono<Long> countInflight(String namespace) {
        return reads.countInflight(namespace);
    }

    @Override
    public Mono<Long> countClaimed(String namespace) {
        return reads.countClaimed(namespace);
    }

    @Override
    public Mono<Map<String, Long>> countClaimedByNamespace(Collection<String> namespaces) {
        return reads.countClaimedByNamespace(namespaces);
    }

    @Override
    public Flux<ClaimScope> pendingRoutes() {
        return reads.pendingRoutes();
    }

    @Override
    public Flux<OutboxRow> listOutbox(OutboxQuery query) {
        return reads.listOutbox(query);
    }

    @Override
    public Mono<OutboxCounts> countByRoute(Instant dueBy, Instant claimedBefore, int cap) {
        return reads.countByRoute(dueBy, claimedBefore, cap);
    }

    @Override
    public Mono<OutboxRowState> rowState(String dispatchKey) {
        return reads.rowState(dispatchKey);
    }

    @Override
    public Mono<Void> commitStep(WorkflowStep step) {
        return history.commitStep(step);
    }

    @Override
    public Mono<Void> complete(OutboxRow claimed) {
        return writes.fenced(claimed, WorkflowStep.Settlement.COMPLETE, 0, null, "complete");
    }

    @Override
    public Mono<Void> retry(OutboxRow claimed, int nextAttempt, Instant visibleAfter) {
        return writes.fenced(claimed, WorkflowStep.Settlement.RETRY, nextAttempt, visibleAfter, "retry");
    }

    @Override
    public Mono<Void> fail(OutboxRow claimed) {
        return writes.fenced(claimed, WorkflowStep.Settlement.FAIL, 0, null, "fail");
    }

    @Override
    public Mono<Void> settleCancelled(OutboxRow claimed) {
        return writes.fenced(claimed, WorkflowStep.Settlement.CANCEL, 0, null, "settleCancelled");
    }

    /**
     * Ends the claim streams (waiting up to 10 s for their claims in flight and releases), answers
     * queued reads with {@link StoreClosedException}, lets every queued write finish (waiting up to
     * 30 s), then closes the write connection and the store's threads.
     */
    @Override
    public Mono<Void> closeAsync() {
        return closing;
    }

    /**
     * Closes as {@link #closeAsync()} does and waits; on a non-blocking thread it starts the close
     * and returns at once.
     */
    @Override
    public void close() {
        Wakeups.closeOrStart(closing, this);
    }

    private Mono<Void> shutdown() {
        StoreClosedException closedError = new StoreClosedException("claim stream ended: store " + name + " is closed");
        return wakeups.close(closedError, STREAMS_WAIT)
                // readers first: the writer's connection is then the last one, which checkpoints the WAL
                .then(readers.closeAsync())
                .then(writer.closeAsync(WRITES_WAIT))
                // let the signals of the last operations reach their subscribers before the threads stop
                .then(emit.disposeGracefully().timeout(Duration.ofSeconds(10)).onErrorResume(e -> Mono.empty()));
    }

    /** Wakes the claim streams on the emit scheduler; once the store is closing there are none to wake. */
    private static void wake(Scheduler emit, Wakeups wakeups) {
        try {
            emit.schedule(wakeups);
        } catch (RejectedExecutionException e) {
            // the store is closing: no claim stream is left to wake
        }
    }

    private static void settled(Scheduler emit, Wakeups wakeups) {
        if (!wakeups.waitsForSettles()) {
            return; // no stream claims under a dispatch policy: the usual case costs one read
        }
        try {
            emit.schedule(wakeups::settled);
        } catch (RejectedExecutionException e) {
            // the store is closing: no claim stream is left to wake
        }
    }

    @Override
    public String toString() {
        return "SqliteReactiveStore[" + name + "]";
    }
}
