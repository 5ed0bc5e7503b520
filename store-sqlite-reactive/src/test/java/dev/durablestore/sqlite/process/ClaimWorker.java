package dev.durablestore.sqlite.process;

import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.Settlement;
import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import dev.durablestore.sqlite.SqliteSynchronous;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A dispatcher process: claims through the claim stream and completes every row, printing
 * {@code DONE <key>} after each completion is acknowledged; exits once no row of namespace
 * {@code default} (where the test stages them) is pending or claimed and its own completions are
 * acknowledged.
 *
 * <p>Arguments: database path.
 */
public final class ClaimWorker {

    private ClaimWorker() {}

    public static void main(String[] args) throws java.io.IOException {
        Path db = Path.of(args[0]);
        try (SqliteReactiveStore store =
                SqliteReactiveStore.open(SqliteStoreConfig.of(db).withSynchronous(SqliteSynchronous.NORMAL))) {
            System.out.println("READY");
            System.out.flush();
            new java.io.BufferedReader(new java.io.InputStreamReader(System.in)).readLine(); // wait for GO
            store.claimStream(ClaimStreamOptions.defaults().withMaxBatch(32).withPollInterval(Duration.ofMillis(10)))
                    .takeUntilOther(TwoWorkers.drained(store, "default"))
                    .flatMap(
                            row -> store.settleKeys(List.of(row.dispatchKey()), Settlement.complete())
                                    .thenReturn(row.dispatchKey()),
                            16)
                    .doOnNext(key -> System.out.println("DONE " + key))
                    .blockLast(Duration.ofMinutes(5));
        }
        System.out.flush();
    }
}
