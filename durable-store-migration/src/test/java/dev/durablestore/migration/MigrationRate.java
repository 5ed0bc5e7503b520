package dev.durablestore.migration;

import dev.durablestore.examples.demo.DemoStats;
import dev.durablestore.examples.demo.Workload;
import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Measures the rows per second a migration copies (BENCHMARKS.md, docs/migration.md): a SQLite
 * store of the demo's shape ({@code workflows} x ({@code activities} + 1) events and
 * {@code workflows} x {@code activities} outbox rows) migrated into a fresh schema of the test
 * PostgreSQL server, {@code runs} times, the median printed. Not a test; run it with the test
 * classpath (the command is in BENCHMARKS.md).
 */
public final class MigrationRate {

    private MigrationRate() {}

    /**
     * @param args workflows (default 20000), activities per workflow (default 5), runs (default 3),
     *     batch size (default {@value SqliteToPostgresMigration#DEFAULT_BATCH_SIZE})
     * @throws Exception when a run fails
     */
    public static void main(String[] args) throws Exception {
        int workflows = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        int activities = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        int runs = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        int batch = args.length > 3 ? Integer.parseInt(args[3]) : SqliteToPostgresMigration.DEFAULT_BATCH_SIZE;
        Path dir = Files.createTempDirectory("migration-rate");
        Path file = dir.resolve("source.db");
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(file))) {
            Workload.stage(store, workflows, activities, 16, new DemoStats()).block(Duration.ofMinutes(10));
        }
        List<Double> rates = new ArrayList<>();
        for (int run = 1; run <= runs; run++) {
            try (PgSchema pg = new PgSchema()) {
                MigrationReport report = SqliteToPostgresMigration.from(file)
                        .to(pg.factory())
                        .withBatchSize(batch)
                        .run()
                        .block(Duration.ofMinutes(30));
                if (!report.verified()) {
                    throw new IllegalStateException("run " + run + " not verified: " + report.verification());
                }
                rates.add(report.rowsPerSecond());
                System.out.printf(
                        Locale.ROOT,
                        "run %d: %,d rows (%,d events, %,d outbox rows) copied in %.2f s: %,.0f rows/s%n",
                        run,
                        report.rowsCopied(),
                        report.eventsCopied(),
                        report.outboxRowsCopied(),
                        report.copyTime().toNanos() / 1e9,
                        report.rowsPerSecond());
            }
        }
        rates.sort(Double::compare);
        System.out.printf(
                Locale.ROOT, "median of %d runs, batch %d: %,.0f rows/s%n", runs, batch, rates.get(rates.size() / 2));
        Files.deleteIfExists(file);
    }
}
