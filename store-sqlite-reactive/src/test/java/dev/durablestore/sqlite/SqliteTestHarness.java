package dev.durablestore.sqlite;

import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.tck.StoreHarness;
import dev.durablestore.tck.TestClock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** The SQLite backend's harness for the contract kit: one temporary database file per test. */
final class SqliteTestHarness implements StoreHarness {

    private final TestClock clock;
    private final Path dir;
    private final Path file;
    private final List<SqliteReactiveStore> opened = new ArrayList<>();

    SqliteTestHarness(TestClock clock) {
        this.clock = clock;
        try {
            this.dir = Files.createTempDirectory("durable-store-tck-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.file = dir.resolve("store.db");
    }

    /** @return the database file */
    Path file() {
        return file;
    }

    @Override
    public synchronized ReactiveStore open() {
        SqliteReactiveStore store =
                SqliteReactiveStore.open(SqliteStoreConfig.of(file).withClock(clock));
        opened.add(store);
        return store;
    }

    @Override
    public TestClock clock() {
        return clock;
    }

    @Override
    public void corruptEvent(WorkflowId workflowId, long seq) {
        update(
                "UPDATE events SET event = ? WHERE workflow_id = ? AND seq = ?",
                "{\"type\":\"WorkflowStarted\",\"data\":{",
                workflowId.toString(),
                seq);
    }

    @Override
    public void corruptOutboxInput(String dispatchKey) {
        update("UPDATE outbox SET input = ? WHERE dispatch_key = ?", "not json at all", dispatchKey, null);
    }

    private void update(String sql, String bytes, String key, Long seq) {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
                PreparedStatement ps = c.prepareStatement(sql)) {
            c.createStatement().execute("PRAGMA busy_timeout=10000");
            ps.setBytes(1, bytes.getBytes(StandardCharsets.UTF_8));
            ps.setString(2, key);
            if (seq != null) {
                ps.setLong(3, seq);
            }
            if (ps.executeUpdate() != 1) {
                throw new IllegalStateException("no row to corrupt for " + key + (seq == null ? "" : "#" + seq));
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public synchronized void close() {
        for (SqliteReactiveStore s : opened) {
            s.close();
        }
        opened.clear();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
