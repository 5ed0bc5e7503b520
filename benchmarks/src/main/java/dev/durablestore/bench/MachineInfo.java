package dev.durablestore.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** What the figures were measured on: processors, memory, Java, SQLite, the data folder's file system, the date. */
public final class MachineInfo {

    private MachineInfo() {}

    /**
     * @param dataDir where the database files are written
     * @return labelled facts, in display order
     */
    public static Map<String, String> describe(Path dataDir) {
        Map<String, String> facts = new LinkedHashMap<>();
        facts.put(
                "date",
                DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss 'UTC'", Locale.ROOT)
                        .format(Instant.now().atZone(ZoneOffset.UTC)));
        facts.put("processors (nproc)", Integer.toString(Runtime.getRuntime().availableProcessors()));
        facts.put("CPU", firstValue(Path.of("/proc/cpuinfo"), "model name"));
        facts.put("memory", memory());
        facts.put(
                "load average at start",
                String.format(
                        Locale.ROOT,
                        "%.2f",
                        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage()));
        facts.put(
                "OS",
                System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                        + System.getProperty("os.arch"));
        facts.put(
                "Java",
                System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version") + " ("
                        + System.getProperty("java.vendor") + ")");
        facts.put(
                "JVM options",
                String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()));
        facts.put("SQLite", sqliteVersion());
        facts.put("data folder", dataDir + " (" + fileSystem(dataDir) + ")");
        return facts;
    }

    private static String memory() {
        String total = firstValue(Path.of("/proc/meminfo"), "MemTotal");
        if (total.endsWith("kB")) {
            long kb = Long.parseLong(total.replace("kB", "").trim());
            return String.format(Locale.ROOT, "%.1f GiB", kb / 1024.0 / 1024.0);
        }
        return total;
    }

    private static String firstValue(Path file, String key) {
        try {
            List<String> lines = Files.readAllLines(file);
            for (String line : lines) {
                int colon = line.indexOf(':');
                if (colon > 0 && line.substring(0, colon).trim().equals(key)) {
                    return line.substring(colon + 1).trim();
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or not readable
        }
        return "unknown";
    }

    private static String sqliteVersion() {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite::memory:");
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT sqlite_version()")) {
            rs.next();
            return rs.getString(1) + " (sqlite-jdbc " + c.getMetaData().getDriverVersion() + ")";
        } catch (SQLException e) {
            return "unknown: " + e.getMessage();
        }
    }

    private static String fileSystem(Path dir) {
        try {
            return Files.getFileStore(dir).type();
        } catch (IOException e) {
            return "unknown file system";
        }
    }
}
