package dev.durablestore.migration;

import static dev.durablestore.migration.Sources.WAIT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.OutboxLeaseReaper;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.examples.demo.DemoOptions;
import dev.durablestore.examples.demo.DemoStats;
import dev.durablestore.examples.demo.Dispatcher;
import dev.durablestore.examples.demo.FaultPlan;
import dev.durablestore.examples.demo.Verifier;
import dev.durablestore.examples.demo.Workload;
import dev.durablestore.r2dbc.R2dbcReactiveStore;
import dev.durablestore.r2dbc.R2dbcStoreConfig;
import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;

/**
 * The cut-over of the docs on the demo: the demo runs on SQLite and is stopped half-way, its file
 * is migrated, and on PostgreSQL its dispatcher finishes the work and its verifier passes.
 */
@Timeout(120)
class DemoMigrationTest {

    private static final int WORKFLOWS = 40;
    private static final int ACTIVITIES = 3;

    @TempDir
    Path dir;

    @Test
    void theDemosStoreMigratedHalfWayIsFinishedAndVerifiedOnPostgres() {
        // given the demo's store, stopped with work left: pending, retried, claimed and settled rows
        Path file = dir.resolve("demo.db");
        // 5 ms of work, retries and some poison rows, so failures and dead letters are in the copy
        DemoOptions options = new DemoOptions(file, WORKFLOWS, ACTIVITIES, 5, 0.2, 0.05, 3, 1, 8, 7L, false);
        try (SqliteReactiveStore sqlite = SqliteReactiveStore.open(SqliteStoreConfig.of(file))) {
            Workload.stage(sqlite, WORKFLOWS, ACTIVITIES, 4, new DemoStats()).block(WAIT);
            Disposable dispatching = new Dispatcher(sqlite, FaultPlan.of(options), new DemoStats(), options).start();
            long live = awaitInflightBelow(sqlite, WORKFLOWS * ACTIVITIES / 2);
            dispatching.dispose();
            assertThat(live).isPositive();
        }

        try (PgSchema pg = new PgSchema()) {
            // when it is migrated (the dispatchers stopped)
            MigrationReport report =
                    SqliteToPostgresMigration.from(file).to(pg.factory()).run().block(WAIT);
            assertThat(report.verified())
                    .as("%s", report.verification().mismatches())
                    .isTrue();
            assertThat(report.verification().workflows()).isEqualTo(WORKFLOWS);

            // then on PostgreSQL the demo's dispatcher finishes the work and its verifier passes
            try (R2dbcReactiveStore postgres =
                    R2dbcStoreConfig.of(pg.factory()).open().block(WAIT)) {
                // rows the stopped dispatcher held are re-armed at once, as the demo does on start
                OutboxLeaseReaper.of(postgres)
                        .withLease(Duration.ofNanos(1))
                        .reapOnce()
                        .block(WAIT);
                Disposable dispatching =
                        new Dispatcher(postgres, FaultPlan.of(options), new DemoStats(), options).start();
                try {
                    assertThat(awaitInflightBelow(postgres, 1)).isZero();
                } finally {
                    dispatching.dispose();
                }
                Verifier.Result result =
                        Verifier.check(Verifier.collect(postgres).block(WAIT));
                assertThat(result.verified()).as("%s", result.firstProblem()).isTrue();
            }
        }
    }

    /** Polls the live rows (pending or claimed) until fewer than {@code below}; returns their count. */
    private static long awaitInflightBelow(ReactiveStore store, long below) {
        return Flux.interval(Duration.ofMillis(20))
                .onBackpressureDrop()
                .concatMap(tick -> store.countInflight(Workload.NAMESPACE))
                .filter(live -> live < below)
                .blockFirst(Duration.ofSeconds(60));
    }
}
