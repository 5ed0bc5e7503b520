package dev.durablestore.micrometer.observation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.DispatchPolicy;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.Payload;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.WorkflowStep;
import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
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

    /** @return what a test compares of a settle observation, on one line */
    private static String settleSpan(String contextualName, String operation, String destination, String messageId) {
        return contextualName + " | " + operation + " | " + destination + " | " + messageId;
    }

    private static String settleSpan(Observation.Context context) {
        return settleSpan(
                context.getContextualName(),
                valueOf(context.getLowCardinalityKeyValue(StoreObservations.OPERATION_NAME_KEY)),
                valueOf(context.getLowCardinalityKeyValue(StoreObservations.DESTINATION_KEY)),
                valueOf(context.getHighCardinalityKeyValue(StoreObservations.MESSAGE_ID_KEY)));
    }

    private static String valueOf(KeyValue keyValue) {
        return keyValue == null ? "(none)" : keyValue.getValue();
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
        List<OutboxRow> claimed = store.claim(ClaimRequest.of(10)).block();
        StepVerifier.create(store.complete(claimed.get(0))).verifyComplete();
        StepVerifier.create(store.settleKeys(List.of(claimed.get(1).dispatchKey()), Settlement.complete()))
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
                .hasLowCardinalityKeyValue(StoreObservations.OPERATION_NAME_KEY, "claim")
                .hasLowCardinalityKeyValue(StoreObservations.DESTINATION_KEY, StoreObservations.ANY_ROUTE)
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
    @DisplayName("given a claim of one route with a hold and a policy, it is observed as claim on that route")
    void aScopedClaimIsObservedAsClaimOnItsRoute() {
        WorkflowId w = WorkflowId.random();
        StepVerifier.create(store.appendOutboxBatch(List.of(row(w, 0)))).verifyComplete();

        StepVerifier.create(store.claim(ClaimRequest.of(10)
                        .withScope(ClaimScope.of("orders", "payments"))
                        .withHeldWorkflows(Set.of(WorkflowId.random()))
                        .withPolicy(DispatchPolicy.none())))
                .assertNext(claimed -> assertThat(claimed).hasSize(1))
                .verifyComplete();

        TestObservationRegistryAssert.assertThat(registry)
                .hasObservationWithNameEqualTo(StoreObservations.CLAIM)
                .that()
                .hasContextualNameEqualTo("claim orders/payments")
                .hasLowCardinalityKeyValue(StoreObservations.OPERATION_TYPE_KEY, "receive")
                .hasLowCardinalityKeyValue(StoreObservations.OPERATION_NAME_KEY, "claim")
                .hasLowCardinalityKeyValue(StoreObservations.DESTINATION_KEY, "orders/payments")
                .doesNotHaveHighCardinalityKeyValueWithKey(StoreObservations.BATCH_COUNT_KEY)
                .hasBeenStopped();
    }

    @Test
    @DisplayName(
            "given each settlement, a fenced settle and a settle by key are observed under its kind in lower case: "
                    + "the fenced one on the row's route, the one by key on every route")
    void settlesAreObservedUnderTheirKind() {
        // given five claimed rows for fenced settles and five more to settle by key
        WorkflowId w = WorkflowId.random();
        List<Settlement> settlements = List.of(
                Settlement.complete(),
                Settlement.retryAt(1, Instant.EPOCH),
                Settlement.retryAfter(1, Duration.ZERO),
                Settlement.fail(),
                Settlement.cancel());
        List<OutboxRow> staged = new ArrayList<>();
        for (int i = 0; i < 2 * settlements.size(); i++) {
            staged.add(row(w, i));
        }
        StepVerifier.create(store.appendOutboxBatch(staged)).verifyComplete();
        List<OutboxRow> claimed = store.claim(ClaimRequest.of(staged.size())).block();
        assertThat(claimed).hasSize(staged.size());

        // when each settlement settles one row fenced and one by its key
        for (int i = 0; i < settlements.size(); i++) {
            OutboxRow fenced = claimed.get(i);
            String byKey = claimed.get(settlements.size() + i).dispatchKey();
            StepVerifier.create(store.settle(fenced, settlements.get(i))).verifyComplete();
            StepVerifier.create(store.settleKeys(List.of(byKey), settlements.get(i)))
                    .verifyComplete();
        }

        // then each settle is one observation named by the kind, with the row's key as message id
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < settlements.size(); i++) {
            String kind = settlements.get(i).kind().name().toLowerCase(Locale.ROOT);
            expected.add(settleSpan(
                    kind + " orders/payments",
                    kind,
                    "orders/payments",
                    claimed.get(i).dispatchKey()));
            expected.add(settleSpan(
                    kind,
                    kind,
                    StoreObservations.ANY_ROUTE,
                    claimed.get(settlements.size() + i).dispatchKey()));
        }
        TestObservationRegistryAssert.assertThat(registry)
                .forAllObservationsWithNameEqualTo(
                        StoreObservations.SETTLE,
                        settle -> settle.hasLowCardinalityKeyValue(StoreObservations.OPERATION_TYPE_KEY, "settle"))
                .hasHandledContextsThatSatisfy(contexts -> assertThat(contexts.stream()
                                .filter(context -> StoreObservations.SETTLE.equals(context.getName()))
                                .map(ObservedStoreTest::settleSpan))
                        .containsExactlyInAnyOrderElementsOf(expected));
    }

    @Test
    @DisplayName("given a settle of several keys, it is one observation of the kind, counting the keys")
    void aSettleOfSeveralKeysIsOneObservation() {
        WorkflowId w = WorkflowId.random();
        StepVerifier.create(store.appendOutboxBatch(List.of(row(w, 0), row(w, 1), row(w, 2))))
                .verifyComplete();
        List<String> keys = store.claim(ClaimRequest.of(3)).block().stream()
                .map(OutboxRow::dispatchKey)
                .toList();

        StepVerifier.create(store.settleKeys(keys, Settlement.cancel())).verifyComplete();

        TestObservationRegistryAssert.assertThat(registry)
                .hasNumberOfObservationsWithNameEqualTo(StoreObservations.SETTLE, 1)
                .hasObservationWithNameEqualTo(StoreObservations.SETTLE)
                .that()
                .hasContextualNameEqualTo("cancel")
                .hasLowCardinalityKeyValue(StoreObservations.OPERATION_NAME_KEY, "cancel")
                .hasLowCardinalityKeyValue(StoreObservations.DESTINATION_KEY, StoreObservations.ANY_ROUTE)
                .hasHighCardinalityKeyValue(StoreObservations.BATCH_COUNT_KEY, "3")
                .doesNotHaveHighCardinalityKeyValueWithKey(StoreObservations.MESSAGE_ID_KEY)
                .hasBeenStopped();
        assertThat(sqlite.rowState(keys.get(2)).block().status()).hasToString("CANCELLED");
    }

    @Test
    @DisplayName("given a step, it is one observation that stages and settles, with the workflow id")
    void stepIsObserved() {
        WorkflowId w = WorkflowId.random();
        StepVerifier.create(store.appendOutboxBatch(List.of(row(w, 0)))).verifyComplete();
        OutboxRow claimed = store.claim(ClaimRequest.of(1)).block().get(0);

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

        assertThat(sqlite.claim(ClaimRequest.of(1)).block().get(0).traceContext())
                .isNull();
    }
}
