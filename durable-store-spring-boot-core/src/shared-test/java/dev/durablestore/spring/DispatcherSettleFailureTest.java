package dev.durablestore.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.BackendException;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.Settlement;
import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

/**
 * Work that succeeded is never retried because its settle failed: the dispatcher retries and
 * dead-letters on the handler's failure only, and leaves a row whose complete failed to the lease
 * reaper.
 */
class DispatcherSettleFailureTest {

    @TempDir
    Path dir;

    @Test
    @DisplayName("given a handler that succeeds and a complete that fails, the row is neither retried nor failed")
    void aFailedCompleteIsNotARetry() {
        SqliteReactiveStore sqlite = SqliteReactiveStore.open(SqliteStoreConfig.of(dir.resolve("s.db")));
        Sinks.One<Void> completeOutcome = Sinks.one();
        Sinks.One<Boolean> completeCalled = Sinks.one();
        Set<Settlement.Kind> otherSettles = ConcurrentHashMap.newKeySet();
        // the store as the dispatcher sees it: a fenced complete waits for the test, any other fenced
        // settle (a retry, a dead letter) is recorded by its kind
        ReactiveStore store = (ReactiveStore) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {ReactiveStore.class}, (proxy, method, args) -> {
                    Settlement.Kind settles = fencedSettle(method, args);
                    if (settles == Settlement.Kind.COMPLETE) {
                        completeCalled.tryEmitValue(true);
                        return completeOutcome.asMono();
                    }
                    if (settles != null) {
                        otherSettles.add(settles);
                    }
                    try {
                        return method.invoke(sqlite, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        new ApplicationContextRunner()
                .withConfiguration(LineFixtures.starter())
                .withBean("store", ReactiveStore.class, () -> store, bd -> bd.setDestroyMethodName("close"))
                .withBean(OutboxDispatchHandler.class, () -> row -> Mono.empty())
                .run(context -> {
                    OutboxRow row = StarterFixtures.rows("charge", 1).get(0);
                    StepVerifier.create(sqlite.appendOutboxBatch(List.of(row))).verifyComplete();
                    StepVerifier.create(completeCalled.asMono().timeout(Duration.ofSeconds(20)))
                            .expectNext(true)
                            .verifyComplete();

                    // when the complete fails (the error reaches the dispatcher on this thread)
                    completeOutcome.tryEmitError(new BackendException("connection lost"));

                    // then nothing retried or dead-lettered the row: it stays claimed for the reaper
                    assertThat(otherSettles).isEmpty();
                    StepVerifier.create(sqlite.rowState(row.dispatchKey()))
                            .assertNext(state -> {
                                assertThat(state.status()).isEqualTo(OutboxStatus.CLAIMED);
                                assertThat(state.attempt()).isZero();
                            })
                            .verifyComplete();
                });
    }

    /**
     * @return the kind of a fenced settle: {@code complete(row)} (a default method, which a proxy
     *     passes to its handler under its own name) or {@code settle(row, settlement)}; null for any
     *     other call
     */
    private static Settlement.Kind fencedSettle(Method method, Object[] args) {
        if (args == null || args.length == 0 || !(args[0] instanceof OutboxRow)) {
            return null;
        }
        return switch (method.getName()) {
            case "complete" -> Settlement.Kind.COMPLETE;
            case "settle" -> args[1] instanceof Settlement settlement ? settlement.kind() : null;
            default -> null;
        };
    }
}
