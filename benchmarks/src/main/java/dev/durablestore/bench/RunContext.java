package dev.durablestore.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * What every workload gets: the sizes, the number of runs, a folder for its database files, and a
 * progress log (standard error, so the table on standard output stays clean).
 */
public final class RunContext implements AutoCloseable {

    private final Sizes sizes;
    private final int runs;
    private final Path dir;
    private final PrintStream log;
    private final AtomicInteger files = new AtomicInteger();

    /**
     * @param sizes workload sizes
     * @param runs measured runs per target
     * @param parent where to create this run's temporary folder
     * @param log progress output
     */
    public RunContext(Sizes sizes, int runs, Path parent, PrintStream log) {
        this.sizes = sizes;
        this.runs = runs;
        this.log = log;
        try {
            Files.createDirectories(parent);
            this.dir = Files.createTempDirectory(parent, "durable-store-bench-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return the workload sizes */
    public Sizes sizes() {
        return sizes;
    }

    /** @return how many measured runs each target gets */
    public int runs() {
        return runs;
    }

    /** @return the folder holding this runner's database files */
    public Path dir() {
        return dir;
    }

    /**
     * @param label a hint for the file name
     * @return a path for a fresh database file that does not exist yet
     */
    public Path freshDb(String label) {
        return dir.resolve(String.format(Locale.ROOT, "%03d-%s.db", files.incrementAndGet(), label));
    }

    /**
     * Deletes a database file with its {@code -wal} and {@code -shm} companions.
     *
     * @param db the database file
     */
    public void delete(Path db) {
        for (String suffix : new String[] {"", "-wal", "-shm", "-journal"}) {
            try {
                Files.deleteIfExists(Path.of(db + suffix));
            } catch (IOException e) {
                log("could not delete " + db + suffix + ": " + e.getMessage());
            }
        }
    }

    /**
     * Prints a progress line.
     *
     * @param message the text
     */
    public void log(String message) {
        log.println("[bench] " + message);
        log.flush();
    }

    /** Deletes the temporary folder and everything in it. */
    @Override
    public void close() {
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            log("could not delete " + dir + ": " + e.getMessage());
        }
    }
}
