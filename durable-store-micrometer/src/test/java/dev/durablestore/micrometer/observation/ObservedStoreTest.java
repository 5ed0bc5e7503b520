package dev.durablestore.micrometer.observation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.Payload;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.WorkflowStep;
import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.test.StepVerifier;

/** The observations an {@link ObservedStore} reports, their names and key values (issue 21). */
class ObservedStoreTest {

    @TempDir
    Path dir;

    private SqliteReactiveStore sqlite;
    private TestObservationRegistry registry;
    private ReactiveStore store;

    @BeforeEach
    void open() {
        sqlite = SqliteReactiveStore.open(SqliteStoreConfig.of(dir.resolve("observed.db")));
        registry = TestObservationRegistry.create();
        store = ObservedStore.wrap(sqlite, registry);
    }

    @AfterEach
    void close() {
        sqlite.close();
    }

    private static OutboxRow row(WorkflowId w, long ordinal) {
        return OutboxRow.pending(w, ordinal, "charge", Payload.json("{}"), Instant.EPOCH)
                .withRoute("orders", "payments", null);
    }

    @Test
    @DisplayName("given no observation registry, wrap returns the store itself: nothing observed, nothing paid")
    void noopRegistryWrapsNothing() {
        assertThat(ObservedStore.wrap(sqlite, ObservationRegistry.NOOP)).isSameAs(sqlite);
        assertThat(ObservedStore.wrap(store, registry)).isSameAs(store);
    }

    @Test
    @DisplayName("given an observed store, staging, claiming and settling report create, receive and settle")
    void stageClaimSettle() {
        WorkflowId w = WorkflowId.random();

        StepVerifier.create(store.appendOutboxBatch(List.of(row(w, 0), row(w, 1))))
                .verifyComplete();
        List<OutboxRow> claimed = store.claim(10).block();
        StepVerifier.create(store.complete(claimed.get(0))).verifyComplete();
        StepVerifier.create(store.complete(List.of(claimed.get(1).dispatchKey())))
                .verifyComplete();

        TestObservationRegistryAssert.assertThat(registry)
                .hasObservationWithNameEqualTo(StoreObservations.STAGE)
                .that()
                .hasContextualNameEqualTo("appendOutboxBatch orders/payments")
                .hasLowCardinalityKeyValue(StoreObservations.SYSTEM_KEY, StoreObservations.SYSTEM)
                .hasLowCardinalityKeyValue(StoreObservations.OPERATION_TYPE_KEY, "create")
                .hasLowCardinalityKeyValue(StoreObservations.OPERATION_NAME_KEY, "appendOutboxBatch")
                .hasLowCardinalityKeyValue(StoreObservations.DESTINATION_KEY, "orders/payments")
                .hasHighCardinalityKeyValue(StoreObservations.BATCH_COUNT_KEY, "2")
                .hasBeenStopped();
        TestObservationRegistryAssert.assertThat(registry)
                .hasObservationWithNameEqualTo(StoreObservations.CLAIM)
                .that()
                .hasContextualNameEqualTo("claim")
                .hasLowCardinalityKeyValue(StoreObservations.OPERATION_TYPE_KEY, "receive")
                .hasHighCardinalityKeyValue(StoreObservations.BATCH_COUNT_KEY, "2")
                .hasBeenStopped();
        TestObservationRegistryAssert.assertThat(registry)
                .hasNumberOfObservationsWithNameEqualTo(StoreObservations.SETTLE, 2)
                .hasObservationWithNameEqualTo(StoreObservations.SETTLE)
                .that()
                .hasLowCardinalityKeyValue(StoreObservations.OPERATION_TYPE_KEY, "settle")
                .hasLowCardinalityKeyValue(StoreObservations.OPERATION_NAME_KEY, "complete");
    }

    @Test
    @DisplayName("given a step, it is one observation that stages and settles, with the workflow id")
    void stepIsObserved() {
        WorkflowId w = WorkflowId.random();
        StepVerifier.create(store.appendOutboxBatch(List.of(row(w, 0)))).verifyComplete();
        OutboxRow claimed = store.claim(1).block().get(0);

        StepVerifier.create(store.commitStep(WorkflowStep.builder(w, 0)
                        .stage(row(w, 1))
                        .complete(claimed)
                        .build()))
                .verifyComplete();

        TestObservationRegistryAssert.assertThat(registry)
                .hasObservationWithNameEqualTo(StoreObservations.STEP)
                .that()
                .hasLowCardinalityKeyValue(StoreObservations.OPERATION_TYPE_KEY, "settle")
                .hasLowCardinalityKeyValue(StoreObservations.OPERATION_NAME_KEY, "commitStep")
                .hasHighCardinalityKeyValue(StoreObservations.WORKFLOW_KEY, w.toString())
                .hasBeenStopped();
        assertThat(sqlite.rowState(claimed.dispatchKey()).block().status()).hasToString("DONE");
    }

    @Test
    @DisplayName("given a failing write, its observation records the error and the caller still gets it")
    void errorsAreRecorded() {
        WorkflowId w = WorkflowId.random();
        StepVerifier.create(store.appendWithOutbox(w, List.of(), 5, List.of(row(w, 0))))
                .expectError()
                .verify();

        TestObservationRegistryAssert.assertThat(registry)
                .hasObservationWithNameEqualTo(StoreObservations.STAGE)
                .that()
                .hasError()
                .hasBeenStopped();
    }

    @Test
    @DisplayName("given no tracer, rows are staged without a trace context")
    void noTracerNoContext() {
        WorkflowId w = WorkflowId.random();
        StepVerifier.create(store.appendOutboxBatch(List.of(row(w, 0)))).verifyComplete();

        assertThat(sqlite.claim(1).block().get(0).traceContext()).isNull();
    }
}
