package dev.durablestore.sqlite.reliability;

import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.Payload;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.event.EventEnvelope;
import dev.durablestore.api.event.SignalReceived;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Shared pieces of the reliability tests: the long-variant switch, event and row builders whose
 * payloads describe the batch they belong to, raw JDBC access to a store's file, and the shell
 * commands the fault tests use (with probes for what the sandbox allows).
 */
final class Reliability {

    /** {@code -Ddurablestore.longTests=true} selects the long variant (more trials, more rows). */
    static final boolean LONG = Boolean.getBoolean("durablestore.longTests");

    /** Bound on every single store call in these tests: a hang fails, it never blocks the suite. */
    static final Duration TIMEOUT = Duration.ofSeconds(30);

    /** The id text of every workflow the crash worker closes for its retention sweeper to delete. */
    static final String CLOSED_PREFIX = "cccccccc-cccc-4ccc-8ccc-";

    /**
     * @param n a positive number
     * @return the n-th closed workflow of the crash worker
     */
    static WorkflowId closedWorkflow(long n) {
        return WorkflowId.parse(CLOSED_PREFIX + String.format("%012d", n));
    }

    private static final Pattern BATCH = Pattern.compile("\\{\"first\":(\\d+),\"events\":(\\d+),\"rows\":(\\d+)}");

    private Reliability() {}

    /** What a crash-test event says about the append that wrote it. */
    record Batch(long first, int events, int rows) {}

    /**
     * The events of one append of the crash test: {@code events} signals from {@code first} on, each
     * carrying the batch description, so a reader can tell which batch an event belongs to and what
     * else that batch wrote.
     */
    static List<Event> batchEvents(WorkflowId w, long first, int events, int rows, Instant at) {
        return batchEvents(w, first, events, rows, at, "crash");
    }

    /** The signal name of a step's events: it names the row the step completed ({@link #settledBy}). */
    static String stepSignal(String settledKey) {
        return "step:" + settledKey;
    }

    /** @return the key a step's event says the step completed, or null for an event of a plain append */
    static String settledBy(Event e) {
        return e instanceof SignalReceived s && s.name().startsWith("step:")
                ? s.name().substring(5)
                : null;
    }

    /** The timer a crash-test step whose first event has {@code first} schedules. */
    static String stepTimer(long first) {
        return "step-" + first;
    }

    /** Like {@link #batchEvents(WorkflowId, long, int, int, Instant)}, each signal named {@code name}. */
    static List<Event> batchEvents(WorkflowId w, long first, int events, int rows, Instant at, String name) {
        String description = "{\"first\":" + first + ",\"events\":" + events + ",\"rows\":" + rows + "}";
        List<Event> out = new ArrayList<>(events);
        for (int i = 0; i < events; i++) {
            out.add(new SignalReceived(new EventEnvelope(first + i, at, w), name, Payload.json(description)));
        }
        return out;
    }

    /** Ordinal of the {@code j}th row of the append whose first event has {@code first}. */
    static long rowOrdinal(long first, int j) {
        return first * 100 + j;
    }

    /** The rows of one crash-test append. */
    static List<OutboxRow> batchRows(WorkflowId w, long first, int rows, Instant at) {
        List<OutboxRow> out = new ArrayList<>(rows);
        for (int j = 0; j < rows; j++) {
            out.add(OutboxRow.pending(
                    w,
                    rowOrdinal(first, j),
                    "crash-test",
                    Payload.json("{\"first\":" + first + ",\"j\":" + j + "}"),
                    at));
        }
        return out;
    }

    /** @return the batch description carried by a crash-test event */
    static Batch batchOf(Event e) {
        if (!(e instanceof SignalReceived s)) {
            throw new AssertionError("not a crash-test event: " + e);
        }
        Matcher m = BATCH.matcher(s.payload().asString());
        if (!m.matches()) {
            throw new AssertionError("not a crash-test payload: " + s.payload().asString());
        }
        return new Batch(Long.parseLong(m.group(1)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3)));
    }

    /** A signal event with a name (used to tell attempts apart) and a payload of {@code padBytes}. */
    static Event signal(WorkflowId w, long seq, String name, int padBytes) {
        String pad = "x".repeat(Math.max(0, padBytes));
        return new SignalReceived(
                new EventEnvelope(seq, Instant.parse("2026-01-01T00:00:00Z"), w),
                name,
                Payload.json("{\"pad\":\"" + pad + "\"}"));
    }

    /** @return a raw JDBC connection on the file, beside the store's own */
    static Connection raw(Path db) throws SQLException {
        Connection c = DriverManager.getConnection("jdbc:sqlite:" + db.toAbsolutePath());
        try (Statement s = c.createStatement()) {
            s.execute("PRAGMA busy_timeout=10000");
        }
        return c;
    }

    /** Runs one statement on a fresh raw connection. */
    static void rawExecute(Path db, String sql) {
        try (Connection c = raw(db);
                Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    // ------------------------------------------------------------------ shell and sandbox probes

    /** Result of a shell command. */
    record Shell(int exitCode, String output) {
        boolean ok() {
            return exitCode == 0;
        }
    }

    /** Runs a command (no shell), waiting up to 30 s. */
    static Shell run(String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return new Shell(-1, "timed out: " + String.join(" ", command));
            }
            return new Shell(p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            return new Shell(-1, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Shell(-1, e.toString());
        }
    }

    private static volatile Boolean chattr;
    private static volatile Boolean tmpfs;

    /**
     * The tests run as root, and root ignores file permissions, so "read-only" is made with the
     * immutable attribute ({@code chattr +i}), which binds root too. Needs CAP_LINUX_IMMUTABLE.
     *
     * @return whether {@code chattr +i} works here
     */
    static boolean chattrWorks() {
        if (chattr == null) {
            try {
                Path probe = Files.createTempFile("durable-store-chattr-", ".probe");
                boolean works = run("chattr", "+i", probe.toString()).ok();
                if (works) {
                    works = !probe.toFile().canWrite() || !tryWrite(probe);
                    run("chattr", "-i", probe.toString());
                }
                Files.deleteIfExists(probe);
                chattr = works;
            } catch (IOException e) {
                chattr = false;
            }
        }
        return chattr;
    }

    private static boolean tryWrite(Path p) {
        try {
            Files.writeString(p, "x");
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** @return whether a small tmpfs can be mounted here (root with CAP_SYS_ADMIN) */
    static boolean tmpfsWorks() {
        if (tmpfs == null) {
            try {
                Path probe = Files.createTempDirectory("durable-store-tmpfs-probe-");
                boolean works = run("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", probe.toString())
                        .ok();
                if (works) {
                    run("umount", probe.toString());
                }
                Files.deleteIfExists(probe);
                tmpfs = works;
            } catch (IOException e) {
                tmpfs = false;
            }
        }
        return tmpfs;
    }

    /** Sets or clears the immutable attribute on each existing path; throws when it fails. */
    static void immutable(boolean on, Path... paths) {
        for (Path p : paths) {
            if (Files.exists(p)) {
                Shell r = run("chattr", on ? "+i" : "-i", p.toString());
                if (!r.ok()) {
                    throw new IllegalStateException("chattr failed on " + p + ": " + r.output());
                }
            }
        }
    }

    /** Fills the file system holding {@code dir} with a filler file until the disk is full. */
    static Path fillDisk(Path dir) {
        Path filler = dir.resolve("filler.bin");
        byte[] chunk = new byte[4096];
        try (var out = Files.newOutputStream(filler)) {
            for (int i = 0; i < 1_000_000; i++) {
                out.write(chunk);
                out.flush();
            }
            throw new IllegalStateException("the disk under " + dir + " did not fill up");
        } catch (IOException expected) {
            return filler; // ENOSPC: full
        }
    }

    static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Lines of a child's stdout that start with {@code prefix}, split by blanks, marker dropped. */
    static List<String[]> records(List<String> lines, String prefix) {
        List<String[]> out = new ArrayList<>();
        for (String line : lines) {
            if (line.startsWith(prefix + " ") && line.endsWith(" #")) {
                out.add(line.substring(0, line.length() - 2).split(" "));
            }
        }
        return out;
    }

    static <K> void increment(Map<K, Integer> counts, K key) {
        counts.merge(key, 1, Integer::sum);
    }
}
