package dev.durablestore.r2dbc;

import com.google.errorprone.annotations.CanIgnoreReturnValue;
import dev.durablestore.api.ReactiveStore;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.Result;
import io.r2dbc.spi.Statement;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** What both harnesses share: opening stores synchronously, and writing rows behind the store's back. */
final class HarnessSupport {

    /** The bound on every blocking step of a harness. */
    static final Duration TIMEOUT = Duration.ofSeconds(60);

    private HarnessSupport() {}

    /**
     * Runs one statement on a fresh connection and returns the number of rows it changed.
     *
     * @param factory where to connect
     * @param sql the statement, {@code $n} markers
     * @param args positional values
     * @return rows changed
     */
    @CanIgnoreReturnValue // many statements are run for their effect only
    static long execute(ConnectionFactory factory, String sql, Object... args) {
        Long n = Mono.usingWhen(Mono.from(factory.create()), c -> run(c, sql, args), c -> Mono.from(c.close()))
                .block(TIMEOUT);
        return n == null ? 0 : n;
    }

    private static Mono<Long> run(Connection c, String sql, Object... args) {
        Statement s = c.createStatement(sql);
        for (int i = 0; i < args.length; i++) {
            s.bind(i, args[i]);
        }
        return Flux.from(s.execute()).concatMap(Result::getRowsUpdated).reduce(0L, Long::sum);
    }

    /** Overwrites one event's encoding with bytes that are not a valid event. */
    static void corruptEvent(ConnectionFactory factory, String workflowId, long seq) {
        long n = execute(
                factory,
                "UPDATE events SET event = $1 WHERE workflow_id = $2 AND seq = $3",
                "{\"type\":\"WorkflowStarted\",\"data\":{".getBytes(StandardCharsets.UTF_8),
                workflowId,
                seq);
        if (n != 1) {
            throw new IllegalStateException("no event to corrupt for " + workflowId + "#" + seq);
        }
    }

    /** Overwrites one outbox row's input with bytes that cannot be decoded. */
    static void corruptOutboxInput(ConnectionFactory factory, String dispatchKey) {
        long n = execute(
                factory,
                "UPDATE outbox SET input = $1 WHERE dispatch_key = $2",
                "not json at all".getBytes(StandardCharsets.UTF_8),
                dispatchKey);
        if (n != 1) {
            throw new IllegalStateException("no outbox row to corrupt for " + dispatchKey);
        }
    }

    /** Opens a store and blocks (test code on the test thread) until it is ready. */
    static ReactiveStore open(R2dbcStoreConfig config, List<ReactiveStore> opened) {
        R2dbcReactiveStore store = R2dbcReactiveStore.open(config).block(TIMEOUT);
        if (store == null) {
            throw new IllegalStateException("open completed without a store");
        }
        synchronized (opened) {
            opened.add(store);
        }
        return store;
    }

    /** Closes every store a harness opened. */
    static void closeAll(List<ReactiveStore> opened) {
        List<ReactiveStore> copy;
        synchronized (opened) {
            copy = new ArrayList<>(opened);
            opened.clear();
        }
        copy.forEach(ReactiveStore::close);
    }
}
