package dev.durablestore.examples.demo;

import dev.durablestore.api.ActivityId;
import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStore;
import dev.durablestore.examples.demo.HistoryRecorder.Outcome;
import dev.durablestore.examples.demo.HistoryRecorder.Recorded;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * The reactive dispatcher: subscribes to the outbox claim stream and runs each claimed activity.
 *
 * <p>{@code flatMap(handle, concurrency)} is the demand bound: it requests {@code concurrency} rows
 * and asks for more only as handled rows finish, and the claim stream claims only what was
 * requested, so at most {@code concurrency} rows are claimed and not yet settled at any time.
 *
 * <p>Each row: simulated work (a non-blocking {@link Mono#delay}), an outcome chosen by the
 * {@link FaultPlan}, the outcome recorded in the workflow's history by the {@link HistoryRecorder},
 * and only then the row settled — {@code complete}, {@code retry} with exponential backoff, or
 * {@code fail} (dead-letter) — as the history's verdict says. History first, row second: a crash
 * in between leaves the row claimed, the lease reaper re-arms it, and the redelivery finds its
 * outcome already in the history and only settles the row (at-least-once, never counted twice).
 */
public final class Dispatcher {

    private static final Logger log = LoggerFactory.getLogger(Dispatcher.class);
    private static final long MAX_BACKOFF_MS = 60_000;
    private static final Duration ERROR_BACKOFF = Duration.ofSeconds(1);

    private final OutboxStore outbox;
    private final HistoryRecorder recorder;
    private final FaultPlan plan;
    private final DemoStats stats;
    private final Duration work;
    private final long backoffMs;
    private final int concurrency;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    /**
     * @param outbox the outbox to claim from
     * @param recorder records outcomes in the histories
     * @param plan decides which attempts fail
     * @param stats receives counts and latencies
     * @param options work time, backoff and concurrency
     */
    public Dispatcher(OutboxStore outbox, HistoryRecorder recorder, FaultPlan plan, DemoStats stats,
            DemoOptions options) {
        this.outbox = outbox;
        this.recorder = recorder;
        this.plan = plan;
        this.stats = stats;
        this.work = Duration.ofMillis(options.workMs());
        this.backoffMs = options.backoffMs();
        this.concurrency = options.concurrency();
    }

    /**
     * Subscribes to the claim stream and dispatches until disposed.
     *
     * @return disposing it cancels the stream (rows claimed but not delivered return to pending)
     */
    public Disposable start() {
        ClaimStreamOptions options = ClaimStreamOptions.defaults()
                .maxBatch(concurrency)
                .pollInterval(Duration.ofMillis(250));
        return outbox.claimStream(options)
                .flatMap(this::handle, concurrency)
                .subscribe(null, e -> {
                    failure.set(e);
                    log.error("the claim stream failed", e);
                });
    }

    /** @return the error that ended the claim stream, or null while it runs */
    public Throwable failure() {
        return failure.get();
    }

    private Mono<Void> handle(OutboxRow row) {
        stats.onDelivered();
        if (row.attempt() == 0 && row.claimedAt() != null && stats.stagedByThisRun(row.workflowId())) {
            stats.recordStageToClaim(micros(row.visibleAfter(), row.claimedAt()));
        }
        String key = row.dispatchKey();
        int attempt = row.attempt() + 1; // row.attempt() counts earlier dispatches; activities count from 1
        ActivityId activity = Workload.activityId(row.ordinal());
        return Mono.delay(work)
                .then(Mono.defer(() -> {
                    boolean failed = plan.fails(key, attempt);
                    Outcome outcome = new Outcome(activity, attempt, !failed, failed && plan.isLastAttempt(attempt),
                            !failed ? null : plan.isPoison(key) ? "poison activity" : "transient failure");
                    return recorder.record(row.workflowId(), outcome);
                }))
                .flatMap(recorded -> settle(row, recorded))
                .onErrorResume(e -> onError(row, e))
                .doFinally(signal -> stats.onReleased());
    }

    private Mono<Void> settle(OutboxRow row, Recorded recorded) {
        String key = row.dispatchKey();
        Mono<Void> settled = switch (recorded.settle()) {
            case COMPLETE -> outbox.complete(key).doOnSuccess(v -> {
                if (recorded.fresh()) {
                    stats.onCompleted();
                    if (row.claimedAt() != null) {
                        stats.recordClaimToComplete(micros(row.claimedAt(), Instant.now()));
                    }
                }
            });
            case RETRY -> outbox.retry(key, row.attempt() + 1, Instant.now().plusMillis(backoffMillis(row.attempt())))
                    .doOnSuccess(v -> {
                        if (recorded.fresh()) {
                            stats.onRetried();
                        }
                    });
            case FAIL -> outbox.fail(key).doOnSuccess(v -> {
                if (recorded.fresh()) {
                    stats.onDeadLettered();
                }
            });
        };
        return settled.doOnSuccess(v -> {
            if (!recorded.fresh()) {
                stats.onRedelivered();
            }
            if (recorded.ended() != HistoryRecorder.Ended.NO) {
                stats.onWorkflowEnded(recorded.ended() == HistoryRecorder.Ended.FAILED);
            }
        });
    }

    /** Exponential backoff: {@code backoffMs * 2^dispatches}, capped at a minute. */
    private long backoffMillis(int dispatches) {
        return Math.min(MAX_BACKOFF_MS, backoffMs << Math.min(dispatches, 20));
    }

    private Mono<Void> onError(OutboxRow row, Throwable e) {
        stats.onError();
        log.warn("dispatch of {} failed; returning it to pending in {}", row.dispatchKey(), ERROR_BACKOFF, e);
        return outbox.retry(row.dispatchKey(), row.attempt(), Instant.now().plus(ERROR_BACKOFF))
                .onErrorResume(again -> {
                    log.warn("could not return {} to pending; the lease reaper will", row.dispatchKey(), again);
                    return Mono.empty();
                });
    }

    private static long micros(Instant from, Instant to) {
        return Math.max(0, Duration.between(from, to).toNanos() / 1_000);
    }
}
