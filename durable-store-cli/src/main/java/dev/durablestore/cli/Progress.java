package dev.durablestore.cli;

import dev.durablestore.migration.MigrationPhase;
import dev.durablestore.migration.MigrationProgress;
import java.io.PrintStream;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * Prints a migration's progress on stderr: at each new phase and at most once a second within one,
 * so a long run shows it is moving and a short one prints a few lines.
 */
final class Progress implements Consumer<MigrationProgress> {

    private static final long INTERVAL_NANOS = 1_000_000_000L;

    private final PrintStream err;
    private MigrationPhase phase;
    private long lastPrinted;

    Progress(PrintStream err) {
        this.err = err;
    }

    @Override
    public synchronized void accept(MigrationProgress p) {
        long now = System.nanoTime();
        boolean last = p.total() > 0 && p.done() == p.total();
        if (p.phase() != phase || last || now - lastPrinted >= INTERVAL_NANOS) {
            phase = p.phase();
            lastPrinted = now;
            err.println(
                    p.phase() == MigrationPhase.VERIFY
                            ? String.format(Locale.ROOT, "migrate: verifying the copy (%.1f s)", seconds(p))
                            : String.format(
                                    Locale.ROOT,
                                    "migrate: %s %,d/%,d (%.0f%%) %.1f s",
                                    p.phase().name().toLowerCase(Locale.ROOT),
                                    p.done(),
                                    p.total(),
                                    p.total() == 0 ? 100.0 : 100.0 * p.done() / p.total(),
                                    seconds(p)));
        }
    }

    private static double seconds(MigrationProgress p) {
        return p.elapsed().toNanos() / 1e9;
    }
}
