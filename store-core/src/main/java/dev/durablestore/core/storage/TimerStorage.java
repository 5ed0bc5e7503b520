package dev.durablestore.core.storage;

import dev.durablestore.api.TimerEntry;
import dev.durablestore.api.TimerId;
import dev.durablestore.api.WorkflowId;
import java.time.Instant;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** The timers of a backend (T1–T8). */
public interface TimerStorage {

    /**
     * @param workflowId the workflow
     * @param timerId the timer
     * @param fireAt when it fires
     * @return completes once committed
     */
    Mono<Void> scheduleTimer(WorkflowId workflowId, TimerId timerId, Instant fireAt);

    /**
     * @param asOf the instant
     * @return the timers due at {@code asOf}
     */
    Flux<TimerEntry> expiredTimers(Instant asOf);
}
