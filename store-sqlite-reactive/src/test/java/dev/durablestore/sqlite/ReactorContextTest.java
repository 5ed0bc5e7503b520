package dev.durablestore.sqlite;

import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.Payload;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.tck.TestClock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;
import reactor.util.context.Context;

/**
 * Reactor {@link Context} written by the caller reaches operators on both sides of a store call
 * (tracing ids, tenant ids), for writes, reads and the claim stream alike.
 */
class ReactorContextTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private SqliteTestHarness harness;
    private ReactiveStore store;

    @BeforeEach
    void open() {
        harness = new SqliteTestHarness(TestClock.atDefaultStart());
        store = harness.open();
    }

    @AfterEach
    void close() {
        harness.close();
    }

    private static <T> Mono<String> traceAfter(Mono<T> call) {
        return call.then(Mono.deferContextual(ctx -> Mono.just(ctx.<String>get("trace"))));
    }

    @Test
    void context_passes_through_writes_reads_and_the_claim_stream() {
        // given a row to claim
        WorkflowId w = WorkflowId.random();
        OutboxRow row =
                OutboxRow.pending(w, 1, "a", Payload.json("{}"), harness.clock().instant());

        // when each call runs under a caller's context, then operators after it still see it
        StepVerifier.create(traceAfter(store.appendOutboxBatch(List.of(row))).contextWrite(Context.of("trace", "t-1")))
                .expectNext("t-1")
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(traceAfter(store.readHead(w)).contextWrite(Context.of("trace", "t-2")))
                .expectNext("t-2")
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(traceAfter(
                                store.claimStream(ClaimStreamOptions.defaults()).next())
                        .contextWrite(Context.of("trace", "t-3")))
                .expectNext("t-3")
                .expectComplete()
                .verify(TIMEOUT);
    }
}
