package dev.durablestore.bench.pg;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * CPU time spent by this JVM ({@code com.sun.management.OperatingSystemMXBean#getProcessCpuTime})
 * and by the PostgreSQL server: the postmaster and its children, the sum of {@code utime + stime}
 * from {@code /proc/<pid>/stat}, plus the postmaster's {@code cutime + cstime} (the time of children
 * that already exited, such as backends of closed connections). The server's time is unknown (NaN)
 * when its postmaster is not a process of this machine that {@code /proc} shows.
 */
final class CpuMeter {

    private static final Path PROC = Path.of("/proc");
    private static final long NANOS_PER_TICK = 1_000_000_000L / clockTicks();

    /**
     * A reading.
     *
     * @param jvmNanos this JVM's CPU time so far
     * @param serverNanos the server's CPU time so far, or -1 when unknown
     */
    record Sample(long jvmNanos, long serverNanos) {}

    /**
     * CPU milliseconds per 1,000 rows (or appends, or executions) of one measurement.
     *
     * @param jvm this JVM's
     * @param server the server's, NaN when unknown
     */
    record Cost(double jvm, double server) {}

    private final OptionalLong postmaster;
    private final com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    /** @param postmaster the server's postmaster process id, empty when the server is elsewhere */
    CpuMeter(OptionalLong postmaster) {
        this.postmaster = postmaster;
    }

    /** @return the CPU times now */
    Sample sample() {
        return new Sample(os.getProcessCpuTime(), postmaster.isPresent() ? serverNanos(postmaster.getAsLong()) : -1);
    }

    /**
     * @param before a sample taken when the measurement began
     * @param rows what the measurement did
     * @return the CPU spent since {@code before}, per 1,000 of {@code rows}
     */
    Cost since(Sample before, long rows) {
        Sample now = sample();
        double perThousandRows = 1_000.0 / rows / 1e6;
        double server = before.serverNanos() < 0 || now.serverNanos() < 0
                ? Double.NaN
                : (now.serverNanos() - before.serverNanos()) * perThousandRows;
        return new Cost((now.jvmNanos() - before.jvmNanos()) * perThousandRows, server);
    }

    private static long serverNanos(long postmasterPid) {
        long ticks = 0;
        long[] own = stat(PROC.resolve(Long.toString(postmasterPid)).resolve("stat"));
        if (own == null) {
            return -1;
        }
        ticks += own[1] + own[2] + own[3] + own[4];
        try (DirectoryStream<Path> all = Files.newDirectoryStream(
                PROC, p -> p.getFileName().toString().chars().allMatch(Character::isDigit))) {
            for (Path process : all) {
                long[] s = stat(process.resolve("stat"));
                if (s != null && s[0] == postmasterPid) {
                    ticks += s[1] + s[2];
                }
            }
        } catch (IOException e) {
            return -1;
        }
        return ticks * NANOS_PER_TICK;
    }

    /** @return ppid, utime, stime, cutime, cstime of a {@code /proc/<pid>/stat}, or null when it is gone */
    private static long[] stat(Path file) {
        try {
            return parseStat(Files.readString(file));
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * @param text the content of a {@code /proc/<pid>/stat}
     * @return its ppid, utime, stime, cutime and cstime (the last four in clock ticks)
     */
    static long[] parseStat(String text) {
        // the command name (field 2) is in parentheses and may hold spaces: split after its last ')'
        String[] f = text.substring(text.lastIndexOf(')') + 2).trim().split(" ");
        // f[0] is field 3 (state); ppid is field 4, utime..cstime fields 14..17
        return new long[] {
            Long.parseLong(f[1]),
            Long.parseLong(f[11]),
            Long.parseLong(f[12]),
            Long.parseLong(f[13]),
            Long.parseLong(f[14])
        };
    }

    private static long clockTicks() {
        try {
            Process p = new ProcessBuilder("getconf", "CLK_TCK")
                    .redirectErrorStream(true)
                    .start();
            String out = new String(p.getInputStream().readAllBytes()).trim();
            return p.waitFor() == 0 ? Long.parseLong(out) : 100;
        } catch (IOException | NumberFormatException e) {
            return 100;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 100;
        }
    }
}
