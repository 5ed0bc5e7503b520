package dev.durablestore.examples.demo;

import dev.durablestore.api.ActivityId;
import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.DispatchPolicy;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.StaleClaimException;
import dev.durablestore.examples.demo.WorkflowSteps.Settled;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * The reactive dispatcher: subscribes to the outbox claim stream, runs each claimed activity and
 * commits its outcome as one workflow step.
 *
 * <p>Two stages, each a {@code flatMap} with {@code concurrency} as its bound: at most
 * {@code concurrency} activities run at once, and at most {@code concurrency} outcomes are being
 * committed. A row's activity slot is free as soon as its work is done, so the next row is claimed
 * while the outcome is committed, and an activity slot does not wait out a commit; when the second
 * stage is full, finished activities wait for it and no more rows are claimed. The claim stream
 * claims only what was requested, so at most {@code 2 × concurrency} rows are claimed and not yet
 * settled at any time.
 *
 * <p>Each row: simulated work (a non-blocking {@link Mono#delay}), an outcome chosen by the
 * {@link FaultPlan}, then one {@link ReactiveStore#commitStep step} built by {@link WorkflowSteps}:
 * the outcome event, the row settled as the outcome says ({@code complete},
 * {@code Settlement.retryAfter} with exponential backoff, or {@code Settlement.fail()} to
 * dead-letter it) and fenced by the row's claim, and the workflow's end when this was its last
 * open activity. All of it commits or none of it: a crash before the commit leaves the row claimed
 * with no outcome recorded, the lease reaper re-arms it and the activity runs again
 * (at-least-once), never recorded twice.
 *
 * <p>Fencing: if the row's claim was taken away meanwhile (the lease reaper re-armed it because
 * this dispatcher looked dead, and another claim now owns it), the step fails with
 * {@link StaleClaimException} and writes nothing; the dispatcher drops the row and leaves it to its
 * new owner. Any other failure returns the row to pending, fenced as well, after a second.
 */
public final class Dispatcher {

    private static final Logger log = LoggerFactory.getLogger(Dispatcher.class);
    private static final Duration ERROR_BACKOFF = Duration.ofSeconds(1);

    private final ReactiveStore store;
    private final WorkflowSteps steps;
    private final FaultPlan plan;
    private final DemoStats stats;
    private final Duration work;
    private final int concurrency;
    private final DispatchPolicy policy;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    /**
     * @param store the store to claim from and commit steps to
     * @param plan decides which attempts fail
     * @param stats receives counts and latencies
     * @param options work time, backoff and concurrency
     */
    public Dispatcher(ReactiveStore store, FaultPlan plan, DemoStats stats, DemoOptions options) {
        this.store = store;
        this.steps = new WorkflowSteps(store, stats, options.backoffMs());
        this.plan = plan;
        this.stats = stats;
        this.work = Duration.ofMillis(options.workMs());
        this.concurrency = options.concurrency();
        this.policy = options.serial() ? DispatchPolicy.none().withSerialPerWorkflow(true) : DispatchPolicy.none();
    }

    /**
     * Subscribes to the claim stream and dispatches until disposed.
     *
     * @return disposing it cancels the stream (rows claimed but not delivered return to pending)
     */
    public Disposable start() {
        ClaimStreamOptions options = ClaimStreamOptions.defaults()
                .withMaxBatch(concurrency)
                .withPolicy(policy)
                .withPollInterval(Duration.ofMillis(250));
        return store.claimStream(options)
                .flatMap(this::work, concurrency)
                .flatMap(this::record, concurrency)
                .subscribe(null, e -> {
                    failure.set(e);
                    log.error("the claim stream failed", e);
                });
    }

    /** @return the error that ended the claim stream, or null while it runs */
    public Throwable failure() {
        return failure.get();
    }

    /** A row whose activity ran, with what the attempt did. */
    private record Attempted(OutboxRow row, Outcome outcome) {}

    private Mono<Attempted> work(OutboxRow row) {
        stats.onDelivered();
        if (row.attempt() == 0 && row.claimedAt() != null && stats.stagedByThisRun(row.workflowId())) {
            stats.recordStageToClaim(micros(row.visibleAfter(), row.claimedAt()));
        }
        return Mono.delay(work).map(tick -> new Attempted(row, outcome(row)));
    }

    private Mono<Void> record(Attempted attempted) {
        OutboxRow row = attempted.row();
        return steps.commit(row, attempted.outcome())
                .doOnNext(settled -> count(row, settled))
                .then()
                .onErrorResume(e -> onError(row, e))
                .doFinally(signal -> stats.onReleased());
    }

    private Outcome outcome(OutboxRow row) {
        String key = row.dispatchKey();
        int attempt = row.attempt() + 1; // row.attempt() counts earlier dispatches; activities count from 1
        ActivityId activity = Workload.activityId(row.ordinal());
        boolean failed = plan.fails(key, attempt);
        return new Outcome(
                activity,
                attempt,
                !failed,
                failed && plan.isLastAttempt(attempt),
                !failed ? null : plan.isPoison(key) ? "poison activity" : "transient failure");
    }

    private void count(OutboxRow row, Settled settled) {
        if (!settled.fresh()) {
            stats.onRedelivered();
        } else {
            switch (settled.settlement()) {
                case COMPLETE -> {
                    stats.onCompleted();
                    if (row.claimedAt() != null) {
                        stats.recordClaimToComplete(micros(row.claimedAt(), Instant.now()));
                    }
                }
                case RETRY -> stats.onRetried();
                default -> stats.onDeadLettered();
            }
        }
        if (settled.settlement() != Settlement.Kind.RETRY) {
            stats.onSettled();
        }
        if (settled.ended() != WorkflowSteps.Ended.NO) {
            stats.onWorkflowEnded(settled.ended() == WorkflowSteps.Ended.FAILED);
        }
    }

    private Mono<Void> onError(OutboxRow row, Throwable e) {
        if (e instanceof StaleClaimException) {
            stats.onStale();
            log.info("the claim of {} was taken over; its new owner settles it", row.dispatchKey());
            return Mono.empty();
        }
        stats.onError();
        log.warn("dispatch of {} failed; returning it to pending in {}", row.dispatchKey(), ERROR_BACKOFF, e);
        return store.settle(row, Settlement.retryAt(row.attempt(), Instant.now().plus(ERROR_BACKOFF)))
                .onErrorResume(again -> {
                    log.warn("could not return {} to pending; the lease reaper will", row.dispatchKey(), again);
                    return Mono.empty();
                });
    }

    private static long micros(Instant from, Instant to) {
        return Math.max(0, Duration.between(from, to).toNanos() / 1_000);
    }
}
