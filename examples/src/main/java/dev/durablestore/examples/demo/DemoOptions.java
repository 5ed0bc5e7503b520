package dev.durablestore.examples.demo;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * The demo's command-line options, parsed and range-checked.
 *
 * <p>Flags take their value either as the next argument ({@code --workflows 500}) or after an
 * equals sign ({@code --workflows=500}). Anything wrong — an unknown flag, a missing or
 * non-numeric value, a value out of range, a flag given twice, a stray argument — is reported by
 * {@link UsageException}, whose message names the flag; the demo prints it with a hint to use
 * {@code --help} and exits with {@link UsageException#EXIT_CODE}.
 *
 * @param db the SQLite database file
 * @param workflows how many workflows the file should hold ({@code demo-0} … {@code demo-(N-1)})
 * @param activities activities (outbox rows) per newly staged workflow
 * @param workMs simulated work per activity attempt, in milliseconds
 * @param failureRate probability that one attempt fails transiently
 * @param poisonRate probability that an activity always fails (and is dead-lettered)
 * @param maxAttempts attempts before a failing activity is dead-lettered
 * @param backoffMs first retry delay; doubled on each further attempt
 * @param concurrency activities in flight at once, and outcomes being committed at once (the
 *     {@link Dispatcher}'s two stages)
 * @param seed seed of the deterministic failure choice
 * @param serial true to claim with {@code DispatchPolicy.withSerialPerWorkflow(true)}: one activity
 *     of a workflow in flight at a time, in ordinal order ({@code --serial})
 * @param help true when {@code --help} was asked for
 */
public record DemoOptions(
        Path db,
        int workflows,
        int activities,
        int workMs,
        double failureRate,
        double poisonRate,
        int maxAttempts,
        int backoffMs,
        int concurrency,
        long seed,
        boolean serial,
        boolean help) {

    /**
     * Options without serial dispatch (see the record's description).
     *
     * @param db see the record component
     * @param workflows see the record component
     * @param activities see the record component
     * @param workMs see the record component
     * @param failureRate see the record component
     * @param poisonRate see the record component
     * @param maxAttempts see the record component
     * @param backoffMs see the record component
     * @param concurrency see the record component
     * @param seed see the record component
     * @param help see the record component
     */
    public DemoOptions(
            Path db,
            int workflows,
            int activities,
            int workMs,
            double failureRate,
            double poisonRate,
            int maxAttempts,
            int backoffMs,
            int concurrency,
            long seed,
            boolean help) {
        this(
                db,
                workflows,
                activities,
                workMs,
                failureRate,
                poisonRate,
                maxAttempts,
                backoffMs,
                concurrency,
                seed,
                false,
                help);
    }

    /** The default database file, relative to the working directory. */
    public static final String DEFAULT_DB = "./durable-store-demo.db";

    /** @return every option at its default */
    public static DemoOptions defaults() {
        return new DemoOptions(Path.of(DEFAULT_DB), 2_000, 5, 5, 0.1, 0.01, 4, 10, 64, 42L, false);
    }

    /** A bad command line: the message names the flag; the process should exit with code 2. */
    public static final class UsageException extends Exception {
        /** The exit code for a bad command line. */
        public static final int EXIT_CODE = 2;

        /** @param message what is wrong, naming the flag */
        public UsageException(String message) {
            super(message);
        }
    }

    /**
     * Parses a command line.
     *
     * @param args the arguments
     * @return the options; {@link #help()} is true when {@code --help} or {@code -h} appears
     * @throws UsageException when an argument is unknown, malformed or out of range
     */
    public static DemoOptions parse(String... args) throws UsageException {
        for (String a : args) {
            if (a.equals("--help") || a.equals("-h")) {
                return defaults().withHelp();
            }
        }
        DemoOptions d = defaults();
        Path db = d.db;
        int workflows = d.workflows;
        int activities = d.activities;
        int workMs = d.workMs;
        double failureRate = d.failureRate;
        double poisonRate = d.poisonRate;
        int maxAttempts = d.maxAttempts;
        int backoffMs = d.backoffMs;
        int concurrency = d.concurrency;
        long seed = d.seed;
        boolean serial = d.serial;
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (!arg.startsWith("--")) {
                throw new UsageException("unexpected argument '" + arg + "' (every option is a --flag)");
            }
            String flag = arg;
            String value = null;
            int eq = arg.indexOf('=');
            if (eq >= 0) {
                flag = arg.substring(0, eq);
                value = arg.substring(eq + 1);
            }
            if (!FLAGS.contains(flag)) {
                throw new UsageException("unknown option " + flag);
            }
            if (!seen.add(flag)) {
                throw new UsageException(flag + " is given more than once");
            }
            if (flag.equals("--serial")) {
                if (value != null) {
                    throw new UsageException("--serial takes no value");
                }
                serial = true;
                continue;
            }
            if (value == null) {
                if (i + 1 >= args.length || args[i + 1].startsWith("--")) {
                    throw new UsageException(flag + " needs a value");
                }
                value = args[++i];
            }
            switch (flag) {
                case "--db" -> db = path(flag, value);
                case "--workflows" -> workflows = integer(flag, value, 1, 10_000_000);
                case "--activities" -> activities = integer(flag, value, 1, 1_000);
                case "--work-ms" -> workMs = integer(flag, value, 0, 60_000);
                case "--failure-rate" -> failureRate = rate(flag, value);
                case "--poison-rate" -> poisonRate = rate(flag, value);
                case "--max-attempts" -> maxAttempts = integer(flag, value, 1, 100);
                case "--backoff-ms" -> backoffMs = integer(flag, value, 1, 60_000);
                case "--concurrency" -> concurrency = integer(flag, value, 1, 1_024);
                case "--seed" -> seed = seed(flag, value);
                default -> throw new IllegalStateException(flag);
            }
        }
        return new DemoOptions(
                db,
                workflows,
                activities,
                workMs,
                failureRate,
                poisonRate,
                maxAttempts,
                backoffMs,
                concurrency,
                seed,
                serial,
                false);
    }

    private static final Set<String> FLAGS = Set.of(
            "--db",
            "--workflows",
            "--activities",
            "--work-ms",
            "--failure-rate",
            "--poison-rate",
            "--max-attempts",
            "--backoff-ms",
            "--concurrency",
            "--seed",
            "--serial");

    /** @return the usage text printed by {@code --help} */
    public static String usage() {
        DemoOptions d = defaults();
        return String.join(
                System.lineSeparator(),
                "Usage: demo.sh [options]",
                "",
                "Runs a fan-out workload on an embedded SQLite file: each workflow records WorkflowStarted and",
                "K ActivityScheduled events with their outbox rows in one transaction; a reactive dispatcher",
                "claims the rows, runs each activity (some fail and are retried with backoff, poison ones are",
                "dead-lettered), records the outcome in the workflow's history and settles the row. Ends with a",
                "report and a verification of every history and row in the file. Running it again on the same",
                "file resumes: existing workflows are skipped, unfinished rows are processed.",
                "",
                "Options:",
                "  --db PATH            database file (default " + DEFAULT_DB + ")",
                "  --workflows N        workflows the file should hold, 1..10000000 (default " + d.workflows + ")",
                "  --activities K       activities per new workflow, 1..1000 (default " + d.activities + ")",
                "  --work-ms MS         simulated work per attempt, 0..60000 ms (default " + d.workMs + ")",
                "  --failure-rate R     share of attempts that fail and are retried, 0..1 (default " + d.failureRate
                        + ")",
                "  --poison-rate R      share of activities that always fail, 0..1 (default " + d.poisonRate + ")",
                "  --max-attempts N     attempts before dead-lettering, 1..100 (default " + d.maxAttempts + ")",
                "  --backoff-ms MS      first retry delay, doubled per attempt, 1..60000 (default " + d.backoffMs + ")",
                "  --concurrency N      activities in flight, 1..1024 (default " + d.concurrency + ")",
                "  --seed N             seed of the failure choice (default " + d.seed + ")",
                "  --serial             one activity per workflow in flight, in order (serial dispatch per",
                "                       workflow, enforced by the store's claims)",
                "  -h, --help           print this help and exit",
                "",
                "Exit status: 0 verified, 1 verification failed or the run broke, 2 bad command line.");
    }

    private DemoOptions withHelp() {
        return new DemoOptions(
                db,
                workflows,
                activities,
                workMs,
                failureRate,
                poisonRate,
                maxAttempts,
                backoffMs,
                concurrency,
                seed,
                serial,
                true);
    }

    private static Path path(String flag, String value) throws UsageException {
        if (value.isBlank()) {
            throw new UsageException(flag + " needs a file path, got an empty value");
        }
        try {
            return Path.of(value);
        } catch (RuntimeException e) {
            throw new UsageException(flag + ": '" + value + "' is not a valid path (" + e.getMessage() + ")");
        }
    }

    private static int integer(String flag, String value, int min, int max) throws UsageException {
        long n;
        try {
            n = Long.parseLong(value.trim().replace("_", ""));
        } catch (NumberFormatException e) {
            throw new UsageException(flag + " expects a whole number, got '" + value + "'");
        }
        if (n < min || n > max) {
            throw new UsageException(flag + " must be between " + min + " and " + max + ", got " + value);
        }
        return (int) n;
    }

    private static double rate(String flag, String value) throws UsageException {
        double r;
        try {
            r = Double.parseDouble(value.trim());
        } catch (NumberFormatException e) {
            throw new UsageException(flag + " expects a number between 0 and 1, got '" + value + "'");
        }
        if (Double.isNaN(r) || r < 0.0 || r > 1.0) {
            throw new UsageException(flag + " must be between 0 and 1, got " + value);
        }
        return r;
    }

    private static long seed(String flag, String value) throws UsageException {
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw new UsageException(flag + " expects a whole number, got '" + value + "'");
        }
    }

    /** @return a one-line description of the failure settings, for the report */
    public String describeFailures() {
        return String.format(
                Locale.ROOT,
                "%.1f%% of attempts fail, %.1f%% poison, dead-letter after %d attempts, " + "backoff %d ms x2, seed %d",
                failureRate * 100,
                poisonRate * 100,
                maxAttempts,
                backoffMs,
                seed);
    }
}
