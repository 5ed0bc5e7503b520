package dev.durablestore.api;

import java.time.Instant;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Durable timers, kept beside the history (contract group T). Cold publishers, errors as signals.
 */
public interface TimerStore {

    /**
     * Creates or replaces the timer keyed by (workflow, timer) (T1). The workflow need not have a
     * history (T2). A named timer's name must be storable: no NUL, no unpaired UTF-16 surrogate,
     * at most 1,024 UTF-8 bytes
     * (rule X10); otherwise it fails with
     * {@link InvalidArgumentException} naming {@code timerId.name}.
     *
     * @param workflowId the workflow
     * @param timerId the timer
     * @param fireAt when it becomes due
     * @return completes when the timer is durable
     */
    Mono<Void> scheduleTimer(WorkflowId workflowId, TimerId timerId, Instant fireAt);

    /**
     * Lists due timers without removing them (T3–T5).
     *
     * @param asOf the instant to compare against, inclusive
     * @return every timer with {@code fireAt <= asOf}, ordered by {@code fireAt}, workflow id and
     *     canonical timer-id text
     */
    Flux<TimerEntry> expiredTimers(Instant asOf);
}
