package dev.durablestore.cli;

import dev.durablestore.migration.MigrationReport;
import dev.durablestore.migration.MigrationVerification;
import dev.durablestore.migration.SqliteToPostgresMigration;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code migrate}: copies a SQLite store to PostgreSQL and verifies the copy (docs/migration.md). */
@Command(
        name = "migrate",
        mixinStandardHelpOptions = true,
        description = {
            "Copies a store's SQLite file to a PostgreSQL database: every history, timer and outbox row with all"
                    + " it carries, in batches, then verifies the copy. Stop the application first.",
            "A target holding data is refused, unless it holds an interrupted copy of the same file: then the"
                    + " copy resumes. Progress goes to stderr, the report to stdout."
        })
final class MigrateCommand implements Callable<Integer> {

    private static final Duration LIMIT = Duration.ofDays(7);

    @Option(names = "--from", paramLabel = "FILE", required = true, description = "the store's SQLite file")
    Path from;

    @Option(
            names = "--to",
            paramLabel = "URL",
            required = true,
            description = "the R2DBC URL of the target PostgreSQL database")
    String to;

    @Option(names = "--schema", paramLabel = "NAME", description = "the target schema (its search_path)")
    String schema;

    @Option(
            names = "--batch-size",
            paramLabel = "N",
            defaultValue = "" + SqliteToPostgresMigration.DEFAULT_BATCH_SIZE,
            description = "rows per insert transaction, 1.." + SqliteToPostgresMigration.MAX_BATCH_SIZE
                    + " (default ${DEFAULT-VALUE})")
    int batchSize;

    @Option(names = "--verify-only", description = "compare the target with the file; copy nothing")
    boolean verifyOnly;

    @Override
    public Integer call() {
        PrintStream out = System.out;
        SqliteToPostgresMigration migration = SqliteToPostgresMigration.from(StoreOptions.existingFile(from))
                .to(StoreOptions.postgres(to, schema))
                .withBatchSize(batchSize)
                .withProgress(new Progress(System.err));
        MigrationVerification verification;
        if (verifyOnly) {
            verification = migration.verify().block(LIMIT);
        } else {
            MigrationReport report = migration.run().block(LIMIT);
            out.printf(
                    Locale.ROOT,
                    "migrated %s%s: %,d events, %,d timers, %,d outbox rows copied (%,d there already) in %.1f s,"
                            + " %,.0f rows/s%n",
                    report.source(),
                    report.resumed() ? " (resumed)" : "",
                    report.eventsCopied(),
                    report.timersCopied(),
                    report.outboxRowsCopied(),
                    report.rowsAlreadyThere(),
                    report.copyTime().toNanos() / 1e9,
                    report.rowsPerSecond());
            verification = report.verification();
        }
        out.printf(
                Locale.ROOT,
                "compared %,d workflows, %,d outbox rows, %,d timers: %s%n",
                verification.workflows(),
                verification.outboxRows(),
                verification.timers(),
                verification.verified() ? "VERIFIED" : verification.mismatchCount() + " MISMATCHES");
        verification.mismatches().forEach(m -> out.println("  " + m));
        if (verification.mismatchCount() > verification.mismatches().size()) {
            out.println("  … and "
                    + (verification.mismatchCount() - verification.mismatches().size()) + " more");
        }
        return verification.verified() ? ExitCode.OK : ExitCode.PROBLEM;
    }
}
