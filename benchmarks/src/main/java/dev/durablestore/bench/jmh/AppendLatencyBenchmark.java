package dev.durablestore.bench.jmh;

import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.Event;
import dev.durablestore.bench.Fixtures;
import dev.durablestore.bench.raw.RawDb;
import dev.durablestore.bench.raw.RawRows;
import dev.durablestore.bench.raw.RawSql;
import dev.durablestore.core.codec.EventCodec;
import dev.durablestore.sqlite.SqliteReactiveStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The latency of one append with nothing else in flight: the store (submit to the writer thread,
 * one transaction, the signal back through the emit scheduler) against a raw JDBC transaction doing
 * the same SQL on the calling thread. The difference is the store's fixed per-command overhead,
 * which group commit amortises under load but a lone caller pays in full.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class AppendLatencyBenchmark {

    /** The {@code synchronous} pragma of both connections. */
    @Param({"NORMAL"})
    public String synchronous;

    private Path dir;
    private SqliteReactiveStore store;
    private RawDb raw;
    private RawRows rows;
    private PreparedStatement head;
    private PreparedStatement insert;
    private Instant now;

    /**
     * Opens the store and the raw connection on two fresh files.
     *
     * @throws IOException when the folder cannot be made
     * @throws SQLException when the raw connection fails
     */
    @Setup(Level.Trial)
    public void open() throws IOException, SQLException {
        dir = Files.createTempDirectory("durable-store-jmh-");
        store = Fixtures.openStore(dir.resolve("store.db"), synchronous);
        raw = RawDb.create(dir.resolve("raw.db"), synchronous);
        rows = new RawRows(EventCodec.create());
        head = raw.connection().prepareStatement(RawSql.HEAD);
        insert = raw.connection().prepareStatement(RawSql.INSERT_EVENT);
        now = Instant.now();
    }

    /**
     * Closes both and deletes the files.
     *
     * @throws Exception on failure
     */
    @TearDown(Level.Trial)
    public void close() throws Exception {
        store.close();
        head.close();
        insert.close();
        raw.close();
        try (var files = Files.list(dir)) {
            for (Path p : files.toList()) {
                Files.deleteIfExists(p);
            }
        }
        Files.deleteIfExists(dir);
    }

    /** One {@code store.append} of a new workflow's first event, awaited. */
    @Benchmark
    public void storeAppend() {
        WorkflowId w = WorkflowId.random();
        store.append(w, List.of(Fixtures.started(w, now)), 0).block(Duration.ofSeconds(30));
    }

    /**
     * The same append as one raw {@code BEGIN IMMEDIATE} transaction.
     *
     * @throws SQLException on failure
     */
    @Benchmark
    public void rawAppend() throws SQLException {
        WorkflowId w = WorkflowId.random();
        Event e = Fixtures.started(w, now);
        raw.begin();
        head.setString(1, w.toString());
        try (ResultSet rs = head.executeQuery()) {
            rs.next();
        }
        rows.bindEvent(insert, e);
        insert.executeUpdate();
        raw.commit();
    }
}
