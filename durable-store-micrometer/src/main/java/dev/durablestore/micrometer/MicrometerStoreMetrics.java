package dev.durablestore.micrometer;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.RetentionBacklog;
import dev.durablestore.api.RetentionSweep;
import dev.durablestore.api.StoreMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;

/**
 * {@link StoreMetrics} recorded into a Micrometer {@link MeterRegistry}. It lives in the optional
 * module {@code durable-store-micrometer}, which brings {@code io.micrometer:micrometer-core}.
 *
 * <p>Meters (all tagged with {@code store}):
 * <ul>
 *   <li>{@code durable.store.operation} — timer per {@code operation} and {@code outcome}
 *       ({@code success}/{@code error}): appends, claims, settles, reads;</li>
 *   <li>{@code durable.store.claimed.rows} — counter of rows handed out by claims;</li>
 *   <li>{@code durable.store.commit.batch.size} — distribution of commands per group commit;</li>
 *   <li>{@code durable.store.commit} — timer of group-commit transactions;</li>
 *   <li>{@code durable.store.writer.queue.depth} — gauge of write commands waiting;</li>
 *   <li>{@code durable.store.retention.deleted} — counter of rows retention deleted, per {@code kind}
 *       ({@code events}, {@code timers}, {@code outbox}, {@code settled} for pruned settled rows);</li>
 *   <li>{@code durable.store.retention.deleted.workflows} — counter of closed workflows deleted;</li>
 *   <li>{@code durable.store.retention.late.appends} — counter of late appends (contract D11);</li>
 *   <li>{@code durable.store.retention.backlog} — gauge of overdue closed workflows after the last
 *       pass, {@code durable.store.retention.backlog.held} of those held by live rows, and
 *       {@code durable.store.retention.oldest.overdue} — time gauge of how long ago the oldest of
 *       them closed (0 when none). The three read 0 until a sweeper reported a backlog.</li>
 * </ul>
 *
 * <p>The queue-depth gauge holds its supplier strongly: a store passes a method reference or a
 * lambda that nothing else keeps, and Micrometer's default weak reference let the collector take it,
 * after which the gauge read {@code NaN}.
 */
public final class MicrometerStoreMetrics implements StoreMetrics {

    private final MeterRegistry registry;
    private final Tags tags;
    private final Map<String, Timer> success = new ConcurrentHashMap<>();
    private final Map<String, Timer> error = new ConcurrentHashMap<>();
    private final Counter claimed;
    private final DistributionSummary batchSize;
    private final Timer commit;
    private final Map<String, Counter> retentionRows = new ConcurrentHashMap<>();
    private final Counter retentionWorkflows;
    private final Counter lateAppends;
    private final AtomicLong backlog = new AtomicLong();
    private final AtomicLong backlogHeld = new AtomicLong();
    private final AtomicLong oldestOverdueMillis = new AtomicLong();

    /**
     * @param registry where to record
     * @param storeName the value of the {@code store} tag, to tell several stores apart
     */
    public MicrometerStoreMetrics(MeterRegistry registry, String storeName) {
        this.registry = InvalidArgumentException.requireNonNull(registry, "registry");
        this.tags = Tags.of("store", InvalidArgumentException.requireNonNull(storeName, "storeName"));
        this.claimed = Counter.builder("durable.store.claimed.rows").tags(tags).register(registry);
        this.batchSize = DistributionSummary.builder("durable.store.commit.batch.size")
                .tags(tags)
                .register(registry);
        this.commit = Timer.builder("durable.store.commit").tags(tags).register(registry);
        this.retentionWorkflows = Counter.builder("durable.store.retention.deleted.workflows")
                .tags(tags)
                .register(registry);
        this.lateAppends = Counter.builder("durable.store.retention.late.appends")
                .tags(tags)
                .register(registry);
        Gauge.builder("durable.store.retention.backlog", backlog, AtomicLong::get)
                .tags(tags)
                .register(registry);
        Gauge.builder("durable.store.retention.backlog.held", backlogHeld, AtomicLong::get)
                .tags(tags)
                .register(registry);
        TimeGauge.builder(
                        "durable.store.retention.oldest.overdue",
                        oldestOverdueMillis,
                        TimeUnit.MILLISECONDS,
                        AtomicLong::get)
                .tags(tags)
                .register(registry);
    }

    @Override
    public void operation(String operation, long nanos, boolean ok) {
        Map<String, Timer> timers = ok ? success : error;
        timers.computeIfAbsent(
                        operation,
                        op -> Timer.builder("durable.store.operation")
                                .tags(tags)
                                .tag("operation", op)
                                .tag("outcome", ok ? "success" : "error")
                                .register(registry))
                .record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void rowsClaimed(int rows) {
        claimed.increment(rows);
    }

    @Override
    public void batchCommitted(int commands, long nanos) {
        batchSize.record(commands);
        commit.record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void registerQueueDepth(IntSupplier depth) {
        Gauge.builder("durable.store.writer.queue.depth", depth, IntSupplier::getAsInt)
                .strongReference(true)
                .tags(tags)
                .register(registry);
    }

    @Override
    public void retentionSwept(RetentionSweep step) {
        retentionWorkflows.increment(step.workflowsDeleted());
        lateAppends.increment(step.lateAppends());
        deleted("events", step.eventsDeleted());
        deleted("timers", step.timersDeleted());
        deleted("outbox", step.outboxRowsDeleted());
        deleted("settled", step.settledRowsPruned());
    }

    private void deleted(String kind, long rows) {
        if (rows > 0) {
            retentionRows
                    .computeIfAbsent(
                            kind,
                            k -> Counter.builder("durable.store.retention.deleted")
                                    .tags(tags)
                                    .tag("kind", k)
                                    .register(registry))
                    .increment(rows);
        }
    }

    @Override
    public void retentionBacklog(RetentionBacklog value) {
        backlog.set(value.overdueWorkflows());
        backlogHeld.set(value.heldByLiveRows());
        oldestOverdueMillis.set(value.oldestAge().toMillis());
    }
}
