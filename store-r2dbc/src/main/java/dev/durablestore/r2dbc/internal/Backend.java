package dev.durablestore.r2dbc.internal;

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
import dev.durablestore.api.StoreMetrics;
import dev.durablestore.api.TimerEntry;
import dev.durablestore.api.TimerId;
import dev.durablestore.api.UndecodableEvent;
import dev.durablestore.api.WorkflowFilter;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.WorkflowStep;
import dev.durablestore.api.WorkflowSummary;
import dev.durablestore.api.codec.EventCodec;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.spi.ClaimBatch;
import dev.durablestore.api.spi.ClaimStreams;
import dev.durablestore.api.spi.Wakeups;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The whole R2DBC store behind {@code dev.durablestore.r2dbc.R2dbcReactiveStore}: wires the
 * history, timer and outbox parts to one {@link Db}, applies the schema on open, and owns the
 * listener and (for a blocking driver) the scheduler. Not part of the public API.
 */
public final class Backend implements ReactiveStore {

    private static final Logger log = LoggerFactory.getLogger(Backend.class);
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(30);
    private static final Duration STREAMS_WAIT = Duration.ofSeconds(10);

    private final String name;
    private final Db db;
    private final Scheduler scheduler;
    private final Wakeups wakeups;
    private final R2dbcHistory history;
    private final R2dbcTimers timers;
    private final OutboxWrites writes;
    private final OutboxReads reads;
    private final Claims claims;
    private final Clock clock;
    private final Mono<Void> closing = Mono.defer(this::shutdown).cache();
    private volatile Disposable listener;
    /** Tells the other nodes that this one settled rows (see {@link #freeing}). */
    private final Runnable settleNotify;
    /** Set once this store claims under a constraining dispatch policy (see {@link #freeing}). */
    private volatile boolean claimsUnderPolicy;

    private Backend(String name, Db db, Scheduler scheduler, Clock clock, StoreMetrics metrics) {
        this.name = name;
        this.db = db;
        this.scheduler = scheduler;
        this.clock = clock;
        this.wakeups = new Wakeups();
        // after a commit that made rows claimable: this instance's streams, then the other nodes
        Runnable notify = db.notifyChannel() == null
                ? () -> {}
                : new ClaimNotifier(db, db.notifyChannel(), PgNotifications.STAGED);
        this.settleNotify = db.notifyChannel() == null
                ? () -> {}
                : new ClaimNotifier(db, db.notifyChannel(), PgNotifications.SETTLED);
        Runnable wake = () -> {
            Schedulers.parallel().schedule(wakeups);
            notify.run();
        };
        EventCodec codec = EventCodec.create();
        OutboxRows outboxRows = new OutboxRows(codec);
        this.history = new R2dbcHistory(db, new EventRows(codec), outboxRows, clock, wake);
        this.timers = new R2dbcTimers(db);
        this.writes = new OutboxWrites(db, outboxRows, clock, wake);
        this.reads = new OutboxReads(db, outboxRows, clock);
        this.claims = new Claims(db, outboxRows, clock, metrics);
    }

    /**
     * Applies the schema (S6–S9, S20), then, on PostgreSQL with a channel, starts listening.
     *
     * @param factory the connection factory (not owned)
     * @param postgres true for PostgreSQL, false for H2
     * @param clock the store clock
     * @param notifyChannel the {@code LISTEN/NOTIFY} channel, or {@code null} for none
     * @param metrics the metrics sink
     * @param operationTimeout the longest one operation may take
     * @param name the store's name, for threads, logs and errors
     * @return the open backend; fails with {@link BackendException} when the schema cannot be applied
     */
    public static Mono<Backend> open(
            ConnectionFactory factory,
            boolean postgres,
            Clock clock,
            String notifyChannel,
            StoreMetrics metrics,
            Duration operationTimeout,
            String name) {
        return Mono.defer(() -> {
            SqlDialect dialect = postgres ? SqlDialect.POSTGRES : SqlDialect.H2;
            String channel = postgres ? notifyChannel : null;
            if (channel != null && !PgNotifications.driverPresent()) {
                log.warn("store {}: r2dbc-postgresql is not on the class path; NOTIFY wake-ups are off", name);
                channel = null;
            }
            Scheduler scheduler = dialect.blockingDriver()
                    ? Schedulers.newBoundedElastic(
                            Math.max(4, 2 * Runtime.getRuntime().availableProcessors()),
                            100_000,
                            "durable-store-r2dbc-" + name,
                            60,
                            true)
                    : null;
            Db db = new Db(factory, dialect, scheduler, metrics, name, channel, operationTimeout);
            Backend backend = new Backend(name, db, scheduler, clock, metrics);
            Mono<Void> schema = Mono.usingWhen(
                    Mono.from(factory.create()), c -> Schema.apply(c, dialect), c -> Mono.from(c.close()));
            if (scheduler != null) {
                schema = schema.subscribeOn(scheduler);
            }
            String listenChannel = channel;
            return schema.onErrorMap(
                            e -> !(e instanceof StoreException),
                            e -> new BackendException(
                                    "cannot apply the schema to the " + dialect.name() + " database of store " + name
                                            + ": " + e.getMessage(),
                                    e))
                    .then(Mono.defer(
                            () -> listenChannel == null ? Mono.empty() : backend.listen(factory, listenChannel)))
                    .thenReturn(backend)
                    .doOnError(e -> {
                        if (scheduler != null) {
                            scheduler.dispose();
                        }
                    });
        });
    }

    private Mono<Void> listen(ConnectionFactory factory, String channel) {
        PgNotifications notifications = new PgNotifications(
                factory, channel, () -> Schedulers.parallel().schedule(wakeups), this::wakeSettleStreams, name);
        listener = notifications;
        return notifications.start();
    }

    /**
     * Validates a channel name: a lower-case SQL identifier, so {@code LISTEN} and {@code pg_notify}
     * agree on it without quoting.
     *
     * @param channel the name
     * @return the name
     */
    public static String requireChannel(String channel) {
        InvalidArgumentException.requireNonNull(channel, "notifyChannel");
        if (!channel.matches("[a-z_][a-z0-9_]{0,62}")) {
            throw new InvalidArgumentException(
                    "notifyChannel",
                    "must be a lower-case identifier of 1 to 63 letters, digits or '_', was '" + channel + "'");
        }
        return channel;
    }

    @Override
    public Mono<Void> append(WorkflowId w, List<Event> events, long expectedSeq) {
        return history.append(w, events, expectedSeq, List.of());
    }

    @Override
    public Mono<Void> appendWithOutbox(WorkflowId w, List<Event> events, long expectedSeq, List<OutboxRow> rows) {
        return history.append(w, events, expectedSeq, rows);
    }

    @Override
    public Flux<Event> readHistory(WorkflowId w) {
        return history.readHistory(w);
    }

    @Override
    public Flux<Event> readHistoryFrom(WorkflowId w, long fromSeq) {
        return history.readHistoryFrom(w, fromSeq);
    }

    @Override
    public Mono<Long> readHead(WorkflowId w) {
        return history.readHead(w);
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
    public Mono<WorkflowSummary> readSummary(WorkflowId w) {
        return history.readSummary(w);
    }

    @Override
    public Mono<List<RunSummary>> readRunChain(WorkflowId w) {
        return history.readRunChain(w);
    }

    @Override
    public Flux<UndecodableEvent> findUndecodableEvents() {
        return history.findUndecodableEvents();
    }

    @Override
    public Mono<Void> validateStoredEvents() {
        return history.validateStoredEvents();
    }

    @Override
    public Mono<Void> scheduleTimer(WorkflowId w, TimerId t, Instant fireAt) {
        return timers.scheduleTimer(w, t, fireAt);
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
        return Mono.defer(() -> claims.claim(InvalidArgumentException.requireNonNull(scope, "scope"), limit, Set.of()));
    }

    @Override
    public Mono<List<OutboxRow>> claimScopedExcluding(ClaimScope scope, int limit, Set<WorkflowId> held) {
        return Mono.defer(() -> claims.claim(InvalidArgumentException.requireNonNull(scope, "scope"), limit, held));
    }

    @Override
    public Mono<List<OutboxRow>> claim(ClaimScope scope, int limit, Set<WorkflowId> held, DispatchPolicy policy) {
        return claims.claim(scope, limit, held, policy).doOnSubscribe(s -> claimingUnder(policy));
    }

    @Override
    public Flux<OutboxRow> claimStream(ClaimStreamOptions options) {
        return Flux.defer(() -> {
            InvalidArgumentException.requireNonNull(options, "options");
            if (db.isClosed()) {
                return Flux.error(db.closedError("claimStream"));
            }
            ClaimStreams.Source source = new ClaimStreams.Source() {
                @Override
                public Mono<ClaimBatch> claimForStream(
                        ClaimScope scope, IntSupplier limit, Set<WorkflowId> held, DispatchPolicy policy) {
                    claimingUnder(policy);
                    return claims.claimForStream(scope, limit, held, policy);
                }

                @Override
                public Mono<Void> release(List<OutboxRow> claimed) {
                    return writes.release(claimed);
                }
            };
            return ClaimStreams.create(source, wakeups, clock, options);
        });
    }

    @Override
    public Mono<Void> complete(String dispatchKey) {
        return freeing(writes.complete(dispatchKey));
    }

    @Override
    public Mono<Void> complete(Collection<String> dispatchKeys) {
        return freeing(writes.complete(dispatchKeys));
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
        return freeing(writes.fail(dispatchKey));
    }

    @Override
    public Mono<Void> fail(Collection<String> dispatchKeys) {
        return freeing(writes.fail(dispatchKeys));
    }

    @Override
    public Mono<Void> settleCancelled(String dispatchKey) {
        return freeing(writes.settleCancelled(dispatchKey));
    }

    @Override
    public Mono<Void> settleCancelled(Collection<String> dispatchKeys) {
        return freeing(writes.settleCancelled(dispatchKeys));
    }

    @Override
    public Mono<List<String>> cancelWorkflowRows(WorkflowId w) {
        return freeing(writes.cancelWorkflowRows(w));
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
    public Mono<List<String>> redriveWorkflow(WorkflowId w, boolean resetAttempt) {
        return writes.redriveWorkflow(w, resetAttempt);
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

    /**
     * Wakes this instance's claim streams that wait for settles, on another thread: after a settle
     * of its own, or another node's {@link PgNotifications#SETTLED} notification. Without such
     * streams it costs one read.
     */
    private void wakeSettleStreams() {
        if (wakeups.waitsForSettles()) {
            Schedulers.parallel().schedule(wakeups::settled);
        }
    }

    /** Remembers that this store claims under a policy a settle can unblock (see {@link #freeing}). */
    private void claimingUnder(DispatchPolicy policy) {
        if (policy != null && policy.constrained() && !claimsUnderPolicy) {
            claimsUnderPolicy = true;
        }
    }

    /**
     * Once {@code settle} succeeded it may have freed a workflow (O63) or a slot of a capped route
     * (O64): wakes this instance's claim streams that claim under a dispatch policy and, on
     * PostgreSQL with notifications, once this store has itself claimed under such a policy, tells
     * the other nodes with a {@link PgNotifications#SETTLED} notification (coalesced: at most one in
     * flight and one pending per store), which wakes only their streams that wait for settles.
     * Rows are settled by the node that claimed them in the usual case, so a node whose dispatchers
     * claim without a policy sends none. Streams without a policy are not woken (a settle makes
     * nothing claimable for them), and with no such stream and no such claim this costs two reads.
     */
    private <T> Mono<T> freeing(Mono<T> settle) {
        return settle.doOnSuccess(v -> {
            wakeSettleStreams();
            if (claimsUnderPolicy) {
                settleNotify.run();
            }
        });
    }

    @Override
    public Mono<Void> commitStep(WorkflowStep step) {
        return freeing(history.commitStep(step));
    }

    @Override
    public Mono<Void> complete(OutboxRow claimed) {
        return freeing(writes.fenced(claimed, WorkflowStep.Settlement.COMPLETE, 0, null, "complete"));
    }

    @Override
    public Mono<Void> retry(OutboxRow claimed, int nextAttempt, Instant visibleAfter) {
        return writes.fenced(claimed, WorkflowStep.Settlement.RETRY, nextAttempt, visibleAfter, "retry");
    }

    @Override
    public Mono<Void> fail(OutboxRow claimed) {
        return freeing(writes.fenced(claimed, WorkflowStep.Settlement.FAIL, 0, null, "fail"));
    }

    @Override
    public Mono<Void> settleCancelled(OutboxRow claimed) {
        return freeing(writes.fenced(claimed, WorkflowStep.Settlement.CANCEL, 0, null, "settleCancelled"));
    }

    /**
     * Ends the claim streams (waiting up to 10 s for their claims in flight and their releases),
     * refuses new operations, waits (up to 30 s) for those in flight, stops listening and releases
     * the store's threads. The connection factory is left open. Idempotent.
     */
    @Override
    public Mono<Void> closeAsync() {
        return closing;
    }

    /** Closes as {@link #closeAsync()} does and waits; on a non-blocking thread it returns at once. */
    @Override
    public void close() {
        Wakeups.closeOrStart(closing, this);
    }

    private Mono<Void> shutdown() {
        StoreClosedException closedError = db.closedError("claimStream");
        return wakeups.close(closedError, STREAMS_WAIT)
                .then(db.closeAsync(CLOSE_WAIT))
                .then(Mono.fromRunnable(() -> {
                    Disposable l = listener;
                    if (l != null) {
                        l.dispose();
                    }
                }))
                .then(
                        scheduler == null
                                ? Mono.empty()
                                : scheduler
                                        .disposeGracefully()
                                        .timeout(Duration.ofSeconds(5))
                                        .onErrorResume(e -> Mono.empty()));
    }

    @Override
    public String toString() {
        return "R2dbcReactiveStore[" + name + ", " + db.dialect().name() + "]";
    }
}
