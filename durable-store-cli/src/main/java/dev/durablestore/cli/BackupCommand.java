package dev.durablestore.cli;

import dev.durablestore.sqlite.BackupResult;
import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code backup}: a consistent copy of a SQLite store's file, taken while it runs. */
@Command(
        name = "backup",
        mixinStandardHelpOptions = true,
        description = "Writes a consistent, checked copy of a SQLite store's file to a new file while applications"
                + " go on using the store (docs/operations.md#backups).")
final class BackupCommand implements Callable<Integer> {

    private static final Duration LIMIT = Duration.ofDays(1);

    @Option(names = "--sqlite", paramLabel = "FILE", required = true, description = "the store's SQLite file")
    Path sqlite;

    @Option(
            names = "--to",
            paramLabel = "FILE",
            required = true,
            description = "where the copy goes: a file that does not exist, in a directory that does")
    Path to;

    @Override
    public Integer call() {
        try (SqliteReactiveStore store =
                SqliteReactiveStore.open(SqliteStoreConfig.of(StoreOptions.existingFile(sqlite)))) {
            System.err.println("backup: copying " + store + " to " + to.toAbsolutePath() + " …");
            BackupResult result = store.backup(to).block(LIMIT);
            System.out.printf(
                    Locale.ROOT,
                    "backup %s: %,d bytes in %.1f s%n",
                    result.target(),
                    result.sizeBytes(),
                    result.duration().toNanos() / 1e9);
        }
        return ExitCode.OK;
    }
}
