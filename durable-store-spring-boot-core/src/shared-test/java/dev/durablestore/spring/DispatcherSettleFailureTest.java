package dev.durablestore.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.BackendException;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import java.lang.reflect.InvocationTargetException;
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
        Set<String> otherSettles = ConcurrentHashMap.newKeySet();
        // the store as the dispatcher sees it: complete(row) waits for the test, retry and fail are recorded
        ReactiveStore store = (ReactiveStore) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {ReactiveStore.class}, (proxy, method, args) -> {
                    boolean fenced = args != null && args.length > 0 && args[0] instanceof OutboxRow;
                    if (fenced && method.getName().equals("complete")) {
                        completeCalled.tryEmitValue(true);
                        return completeOutcome.asMono();
                    }
                    if (fenced
                            && (method.getName().equals("retry")
                                    || method.getName().equals("fail"))) {
                        otherSettles.add(method.getName());
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
}
