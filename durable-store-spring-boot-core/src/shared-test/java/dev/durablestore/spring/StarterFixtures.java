package dev.durablestore.spring;

import dev.durablestore.api.OperatorStore;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxRowState;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.Payload;
import dev.durablestore.api.WorkflowId;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.IntStream;
import reactor.core.publisher.Mono;

/** Rows to stage and a way to wait for a row to reach a status, shared by the application tests. */
final class StarterFixtures {

    private StarterFixtures() {}

    /**
     * @param activityType what the handler will see as the row's type
     * @param count how many rows, each of a new workflow
     * @return pending rows, visible now
     */
    static List<OutboxRow> rows(String activityType, int count) {
        Instant now = Instant.now();
        return IntStream.range(0, count)
                .mapToObj(i ->
                        OutboxRow.pending(WorkflowId.random(), 0, activityType, Payload.json("{\"n\":" + i + "}"), now))
                .toList();
    }

    /**
     * Polls the row's state (the dispatcher settles on its own threads) until it has the status.
     *
     * @param store the store
     * @param dispatchKey the row
     * @param status the status waited for
     * @return the state once it has the status; fails after 20 s
     */
    static Mono<OutboxRowState> await(OperatorStore store, String dispatchKey, OutboxStatus status) {
        return Mono.defer(() -> store.rowState(dispatchKey))
                .filter(state -> state.status() == status)
                .repeatWhenEmpty(polls -> polls.delayElements(Duration.ofMillis(20)))
                .timeout(Duration.ofSeconds(20));
    }
}
