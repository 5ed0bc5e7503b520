package dev.durablestore.r2dbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.BackendException;
import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.Payload;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.internal.Rows;
import dev.durablestore.r2dbc.PostgresServer;
import dev.durablestore.r2dbc.R2dbcReactiveStore;
import dev.durablestore.r2dbc.R2dbcStoreConfig;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.ConnectionPoolConfiguration;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactories;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.Option;
import io.r2dbc.spi.Result;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * Staging and re-arm on PostgreSQL as statements of arrays ({@link OutboxStaging}): a batch larger
 * than one statement is still one transaction (O11, O12), each call has its own outcome, and
 * texts an array literal must quote round trip. A failure the store cannot foresee (the
 * server refusing a row) is injected by a trigger on the outbox that refuses the key
 * {@value #POISON}.
 */
class PostgresOutboxStagingTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final String POISON = "poison";
    private static final Instant AT = Instant.parse("2026-01-01T00:00:00Z");

    private final String schema = "staging_" + UUID.randomUUID().toString().substring(0, 8);
    private ConnectionPool pool;
    private ReactiveStore store;

    @BeforeEach
    void open() {
        execute(PostgresServer.admin(), "CREATE SCHEMA " + schema);
        ConnectionFactory factory = ConnectionFactories.get(PostgresServer.options()
                .mutate()
                .option(Option.valueOf("schema"), schema)
                .build());
        pool = new ConnectionPool(ConnectionPoolConfiguration.builder(factory)
                .initialSize(0)
                .maxSize(4)
                .build());
        store = R2dbcReactiveStore.open(R2dbcStoreConfig.of(pool)).block(TIMEOUT);
        execute(
                pool,
                "CREATE FUNCTION refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                        + "IF NEW.dispatch_key = '" + POISON + "' THEN RAISE EXCEPTION 'the row is refused'; END IF; "
                        + "RETURN NEW; END $$");
        execute(
                pool,
                "CREATE TRIGGER refuse_poison BEFORE INSERT OR UPDATE ON outbox FOR EACH ROW "
                        + "EXECUTE FUNCTION refuse_poison()");
    }

    @AfterEach
    void close() {
        store.close();
        pool.disposeLater().block(TIMEOUT);
        execute(PostgresServer.admin(), "DROP SCHEMA " + schema + " CASCADE");
    }

    private static List<OutboxRow> rows(WorkflowId w, int n) {
        List<OutboxRow> rows = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            rows.add(OutboxRow.pending(w, i, "work", Payload.json("{\"n\":" + i + "}"), AT));
        }
        return rows;
    }

    private static OutboxRow keyed(String key, WorkflowId w, long ordinal, String activityType) {
        return Rows.stored(
                key,
                w,
                ordinal,
                null,
                OutboxRow.DEFAULT_ROUTE,
                OutboxRow.DEFAULT_ROUTE,
                null,
                activityType,
                Payload.json("{\"ordinal\":" + ordinal + "}"),
                OutboxStatus.PENDING,
                0,
                AT,
                null,
                0L,
                null,
                OutboxRow.MIN_PRIORITY,
                List.of());
    }

    private static OutboxRow poison(WorkflowId w) {
        return keyed(POISON, w, 999_999, "work");
    }

    private long count(String where) {
        return Mono.usingWhen(
                        pool.create(),
                        c -> Mono.from(c.createStatement("SELECT count(*) FROM outbox WHERE " + where)
                                        .execute())
                                .flatMap(r -> Mono.from(r.map((row, meta) -> row.get(0, Long.class)))),
                        Connection::close)
                .block(TIMEOUT);
    }

    @Test
    void O9_O11_a_batch_larger_than_one_statement_is_stored_whole_each_key_once() {
        // given a batch of more rows than one statement carries, over three statements, whose last
        // row repeats the first row's key with another activity
        WorkflowId w = WorkflowId.random();
        List<OutboxRow> batch = new ArrayList<>(rows(w, 2 * OutboxStaging.MAX_ROWS + 1));
        String first = batch.get(0).dispatchKey();
        batch.add(keyed(first, w, 0, "repeated"));

        // when it is staged
        StepVerifier.create(store.appendOutboxBatch(batch)).expectComplete().verify(TIMEOUT);

        // then every key is stored once, pending, the repeated one with its first row's values
        assertThat(count("status = 'pending'")).isEqualTo(2L * OutboxStaging.MAX_ROWS + 1);
        assertThat(count("dispatch_key = '" + first + "' AND activity_type = 'work'"))
                .isEqualTo(1);
    }

    @Test
    void O11_a_batch_whose_last_statement_is_refused_stores_none_of_its_rows() {
        // given a batch over three statements whose very last row the server refuses
        WorkflowId w = WorkflowId.random();
        List<OutboxRow> batch = new ArrayList<>(rows(w, 2 * OutboxStaging.MAX_ROWS));
        batch.add(poison(w));

        // when it is staged
        // then it fails, and the rows of its first two statements are not stored either
        StepVerifier.create(store.appendOutboxBatch(batch))
                .expectErrorSatisfies(e -> assertThat(e)
                        .isInstanceOf(BackendException.class)
                        .hasMessageContaining("appendOutboxBatch")
                        .hasMessageContaining("the row is refused"))
                .verify(TIMEOUT);
        assertThat(count("true")).isZero();
    }

    @Test
    void O11_a_batch_of_one_statement_that_is_refused_stores_none_of_its_rows() {
        // given a batch of one statement whose last row the server refuses
        WorkflowId w = WorkflowId.random();
        List<OutboxRow> batch = new ArrayList<>(rows(w, 100));
        batch.add(poison(w));

        // when it is staged
        // then it fails, and none of its rows is stored
        StepVerifier.create(store.appendOutboxBatch(batch))
                .expectError(BackendException.class)
                .verify(TIMEOUT);
        assertThat(count("true")).isZero();
    }

    @Test
    void each_batch_staged_at_once_has_its_own_outcome() {
        // given twenty batches, the seventh holding a row the server refuses
        List<Mono<Boolean>> calls = new ArrayList<>();
        for (int b = 0; b < 20; b++) {
            WorkflowId w = WorkflowId.random();
            List<OutboxRow> batch = new ArrayList<>(rows(w, 50));
            if (b == 6) {
                batch.add(poison(w));
            }
            calls.add(store.appendOutboxBatch(batch)
                    .thenReturn(true)
                    .onErrorResume(BackendException.class, e -> Mono.just(false)));
        }

        // when they are all staged at once (outcomes in submission order)
        List<Boolean> succeeded = Flux.mergeSequential(calls).collectList().block(TIMEOUT);

        // then only the seventh failed, and every other batch is stored whole
        List<Boolean> expected = new ArrayList<>();
        for (int b = 0; b < 20; b++) {
            expected.add(b != 6);
        }
        assertThat(succeeded).isEqualTo(expected);
        assertThat(count("true")).isEqualTo(19L * 50);
    }

    @Test
    void O12_a_rearm_larger_than_one_statement_whose_last_statement_is_refused_changes_no_row() {
        // given a stored, completed row, and a re-arm of it and more new rows than one statement carries
        WorkflowId w = WorkflowId.random();
        List<OutboxRow> stored = rows(w, 1);
        store.appendOutboxBatch(stored).block(TIMEOUT);
        store.settleKeys(List.of(stored.get(0).dispatchKey()), Settlement.complete())
                .block(TIMEOUT);
        List<OutboxRow> list = new ArrayList<>(rows(w, 2 * OutboxStaging.MAX_ROWS));
        list.add(poison(w));

        // when they are re-armed
        // then it fails, the stored row is still done and no new row is stored
        StepVerifier.create(store.rearmPending(list))
                .expectError(BackendException.class)
                .verify(TIMEOUT);
        assertThat(count("true")).isEqualTo(1);
        assertThat(count("status = 'done'")).isEqualTo(1);

        // and without the refused row the same list re-arms the stored row and inserts the others
        list.remove(list.size() - 1);
        StepVerifier.create(store.rearmPending(list)).expectComplete().verify(TIMEOUT);
        assertThat(count("status = 'pending'")).isEqualTo(list.size());
    }

    @Test
    void O1_O2_texts_that_need_quoting_in_an_array_round_trip() {
        // given rows whose keys and activity types an array literal would have to quote or escape
        WorkflowId w = WorkflowId.random();
        List<String> texts = List.of("NULL", "a\"b", "back\\slash", "{brace}", "comma,key", " spaced ", "café ☕ 𝄞");
        List<OutboxRow> batch = new ArrayList<>();
        for (int i = 0; i < texts.size(); i++) {
            batch.add(keyed(texts.get(i), w, i, texts.get(i)));
        }

        // when they are staged, and one more such row is re-armed
        store.appendOutboxBatch(batch).block(TIMEOUT);
        OutboxRow rearmed = keyed("x\"y", w, 99, "x\"y");
        store.rearmPending(List.of(rearmed)).block(TIMEOUT);

        // then a claim returns every row as it was given
        List<OutboxRow> claimed = store.claim(ClaimRequest.of(100)).block(TIMEOUT);
        List<OutboxRow> expected = new ArrayList<>(batch);
        expected.add(rearmed);
        assertThat(claimed)
                .extracting(OutboxRow::dispatchKey, OutboxRow::activityType, OutboxRow::input)
                .containsExactlyInAnyOrderElementsOf(expected.stream()
                        .map(r -> org.assertj.core.groups.Tuple.tuple(r.dispatchKey(), r.activityType(), r.input()))
                        .toList());
    }

    private static void execute(ConnectionFactory factory, String sql) {
        Mono.usingWhen(
                        Mono.from(factory.create()),
                        c -> Flux.from(c.createStatement(sql).execute())
                                .concatMap(Result::getRowsUpdated)
                                .then(),
                        c -> Mono.from(c.close()))
                .block(TIMEOUT);
    }
}
