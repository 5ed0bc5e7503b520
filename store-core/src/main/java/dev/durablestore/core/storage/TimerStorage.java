package dev.durablestore.core.storage;

import dev.durablestore.api.WorkflowId;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** The timers of a backend (T1–T8). */
public interface TimerStorage {

    /**
     * T1, T2: creates or replaces the timer.
     *
     * @param workflowId the workflow
     * @param timerId the timer's canonical, storable id text
     * @param fireAtNanos when it fires, epoch nanoseconds
     * @return completes once committed
     */
    Mono<Void> scheduleTimer(WorkflowId workflowId, String timerId, long fireAtNanos);

    /**
     * T3: the store decodes and orders them (T4, T5).
     *
     * @param asOfNanos the bound, epoch nanoseconds
     * @return the timers firing at or before it, as stored
     */
    Flux<StoredTimer> expiredTimers(long asOfNanos);
}
