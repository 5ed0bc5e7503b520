package dev.durablestore.bench.workload;

import com.github.kagkarlsson.scheduler.task.TaskInstance;
import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.bench.CommitCounter;
import dev.durablestore.bench.Fixtures;
import dev.durablestore.bench.RunContext;
import dev.durablestore.bench.Section;
import dev.durablestore.bench.Stats;
import dev.durablestore.bench.Target;
import dev.durablestore.bench.Target.Comparison;
import dev.durablestore.bench.TargetResult;
import dev.durablestore.bench.Workload;
import dev.durablestore.bench.raw.RawDb;
import dev.durablestore.bench.raw.RawOutboxLoop;
import dev.durablestore.bench.raw.RawRows;
import dev.durablestore.core.codec.EventCodec;
import dev.durablestore.sqlite.SqliteReactiveStore;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import reactor.core.publisher.Flux;

/**
 * P9: staging throughput against db-scheduler on SQLite with the same settings. db-scheduler stages
 * with its fastest path, {@code scheduleBatch} of {@value DbSchedulerSqlite#BATCH} executions per
 * call and transaction; the store stages the same number of rows with {@code appendOutboxBatch}
 * ({@value DbSchedulerSqlite#BATCH} rows per call, one call after another), and with
 * {@code appendWithOutbox} (a {@code WorkflowStarted} and 10 rows per workflow, 64 in flight).
 * Each staged table is then drained, as context: db-scheduler by its scheduler with a no-op task,
 * the store's by the drain of P2 ({@code claimStream} → {@code complete}, 64 in flight).
 */
public final class StagingVsDbScheduler implements Workload {

    private static final String MODE = "FULL";
    private static final int FAN_OUT = 10;
    private static final int IN_FLIGHT = 64;
    private static final int MAX_BATCH = 100;
    private static final String VERSION = DbSchedulerSqlite.version();

    private final RawOutboxLoop raw = new RawOutboxLoop(new RawRows(EventCodec.create()));
    private final List<String> notes = new ArrayList<>();

    static final Target BATCH_VS_PEER = Target.ratio(
            "P9-batch-vs-db-scheduler",
            "rows staged/s, FULL: store appendOutboxBatch (5,000 rows per call) vs db-scheduler " + VERSION
                    + " scheduleBatch (5,000 per call and transaction) on the same SQLite settings",
            "rows/s",
            "db-scheduler scheduleBatch",
            Comparison.AT_LEAST,
            1.0);
    static final Target FANOUT_VS_PEER = Target.ratio(
            "P9-fanout10-vs-db-scheduler",
            "rows staged/s, FULL: store appendWithOutbox (WorkflowStarted + 10 rows per workflow, 64 in flight) vs "
                    + "db-scheduler " + VERSION + " scheduleBatch (5,000 per transaction)",
            "rows/s",
            "db-scheduler scheduleBatch",
            Comparison.AT_LEAST,
            0.5);

    @Override
    public String id() {
        return "P9";
    }

    @Override
    public List<Target> targets() {
        return List.of(BATCH_VS_PEER, FANOUT_VS_PEER);
    }

    @Override
    public Section run(RunContext ctx) throws Exception {
        int rows = ctx.sizes().stagedRows() / DbSchedulerSqlite.BATCH * DbSchedulerSqlite.BATCH;
        int drainRows = Math.min(rows, ctx.sizes().peerDrainRows());
        TargetResult.Builder batchResult = BATCH_VS_PEER.builder();
        TargetResult.Builder fanOutResult = FANOUT_VS_PEER.builder();
        List<Double> peerStage = new ArrayList<>();
        List<Double> peerSequential = new ArrayList<>();
        List<Double> peerDrain = new ArrayList<>();
        List<Double> storeDrain = new ArrayList<>();
        List<Double> storeBatchDrain = new ArrayList<>();
        List<Double> perCommit = new ArrayList<>();
        List<Double> txnMicros = new ArrayList<>();
        List<Double> busy = new ArrayList<>();
        List<Double> rawShape = new ArrayList<>();
        List<Double> inShape = new ArrayList<>();
        List<Double> rawPerRow = new ArrayList<>();
        List<Double> rawBatched = new ArrayList<>();
        List<Double> batchInShape = new ArrayList<>();
        List<Double> batchCeiling = new ArrayList<>();
        List<Double> fanOutCeiling = new ArrayList<>();

        ctx.log("P9 warm-up");
        peer(ctx, Math.max(DbSchedulerSqlite.BATCH, rows / 5), Math.max(1_000, drainRows / 5), new double[3]);
        storeBatch(ctx, Math.max(DbSchedulerSqlite.BATCH, rows / 5), new double[2]);
        storeFanOut(ctx, Math.max(DbSchedulerSqlite.BATCH, rows / 5), new double[5]);
        rawFanOut(ctx, Math.max(DbSchedulerSqlite.BATCH, rows / 5));
        rawBatch(ctx, Math.max(DbSchedulerSqlite.BATCH, rows / 5), false);
        rawBatch(ctx, Math.max(DbSchedulerSqlite.BATCH, rows / 5), true);

        for (int run = 1; run <= ctx.runs(); run++) {
            ctx.log("P9 run " + run + "/" + ctx.runs() + " synchronous=" + MODE);
            double[] peer = new double[3];
            double[] batch = new double[2];
            double[] fanOut = new double[5];
            // the three stagers take turns going first
            for (int turn = 0; turn < 3; turn++) {
                switch ((turn + run - 1) % 3) {
                    case 0 -> peer(ctx, rows, drainRows, peer);
                    case 1 -> storeBatch(ctx, rows, batch);
                    default -> storeFanOut(ctx, rows, fanOut);
                }
            }
            double shaped = rawFanOut(ctx, rows);
            double rawRows = rawBatch(ctx, rows, false);
            double rawJdbcBatch = rawBatch(ctx, rows, true);
            rawPerRow.add(rawRows);
            rawBatched.add(rawJdbcBatch);
            batchInShape.add(batch[0] / rawRows);
            batchCeiling.add(rawJdbcBatch / peer[0]);
            fanOutCeiling.add(shaped / peer[0]);
            ctx.log(String.format(
                    "P9   staging: db-scheduler %.0f rows/s (%.0f/s with ids i1…iN), store "
                            + "appendOutboxBatch %.0f/s (%.2f×), appendWithOutbox %.0f/s (%.2f×; %.1f appends per commit, "
                            + "%.0f µs per transaction, writer busy %.0f%%), raw in its shape %.0f/s, raw row inserts of "
                            + "5,000 per transaction %.0f/s (as one JDBC batch %.0f/s); drain: db-scheduler %.0f "
                            + "executions/s, store %.0f rows/s (after appendWithOutbox), %.0f rows/s (after appendOutboxBatch)",
                    peer[0],
                    peer[2],
                    batch[0],
                    batch[0] / peer[0],
                    fanOut[0],
                    fanOut[0] / peer[0],
                    fanOut[2],
                    fanOut[3],
                    fanOut[4] * 100,
                    shaped,
                    rawRows,
                    rawJdbcBatch,
                    peer[1],
                    fanOut[1],
                    batch[1]));
            perCommit.add(fanOut[2]);
            txnMicros.add(fanOut[3]);
            busy.add(fanOut[4]);
            rawShape.add(shaped);
            inShape.add(fanOut[0] / shaped);
            batchResult.run(batch[0], peer[0]);
            fanOutResult.run(fanOut[0], peer[0]);
            peerStage.add(peer[0]);
            peerSequential.add(peer[2]);
            peerDrain.add(peer[1]);
            storeDrain.add(fanOut[1]);
            storeBatchDrain.add(batch[1]);
        }
        Section section = new Section(
                        "P9",
                        "Staging against db-scheduler",
                        "db-scheduler " + VERSION
                                + " (com.github.kagkarlsson:db-scheduler) on SQLite beside the store, on "
                                + "the same SQLite settings: WAL, `synchronous=FULL`, 10 s busy timeout, the store's "
                                + "checkpoint threshold and page cache, temporary storage in memory, a fresh file per "
                                + "measurement. Its `scheduled_tasks` table comes from its own SQLite DDL (with its three "
                                + "indexes) and it runs with its `SqliteJdbcCustomization`. Each run stages " + rows
                                + " rows three ways, taking turns going first, and times each: db-scheduler's fastest "
                                + "path, `scheduleBatch` of " + DbSchedulerSqlite.BATCH + " one-time executions of a "
                                + "no-op task per call (instance ids: the dispatch keys the store's rows have, "
                                + "`<workflow UUID>:<ordinal>`, " + FAN_OUT
                                + " per workflow; no task data; due at once), "
                                + "each call one transaction (a pool of "
                                + "one connection with autocommit off and `commitWhenAutocommitDisabled(true)`: its JDBC "
                                + "batch insert, then one commit); the store's `appendOutboxBatch` of the same number of "
                                + "rows, " + DbSchedulerSqlite.BATCH + " per call, one call after another (rows of "
                                + rows / FAN_OUT + " workflows, " + FAN_OUT + " each, as P2's); and the store's "
                                + "`appendWithOutbox` with fan-out " + FAN_OUT + " (a `WorkflowStarted` and " + FAN_OUT
                                + " rows per workflow), " + IN_FLIGHT + " in flight, as P2 stages. The task instances "
                                + "and the batch rows are built before the timer starts; `appendWithOutbox`'s are built "
                                + "as it goes, as in P2. Context: each staged table is then drained. db-scheduler drains "
                                + drainRows + " executions (staged as above, untimed, on a file of their own: it runs "
                                + "each execution in transactions of its own, so draining all " + rows + " would take "
                                + "minutes): one scheduler, " + DbSchedulerSqlite.THREADS + " threads (the 20 of the "
                                + "PostgreSQL peer row drained no faster in trials here and starved connections past "
                                + "the busy timeout: `SQLITE_BUSY`, an execution left picked), a HikariCP pool "
                                + "of threads + 2 connections, polling interval " + DbSchedulerSqlite.POLL_MILLIS
                                + " ms, its default polling strategy (fetch, then lock each execution as it runs; SQLite "
                                + "has neither of its lock-and-fetch strategies), timed from `start()` until every "
                                + "execution ran and was deleted. The same executions with sequential ids (`i1 … iN`) "
                                + "are staged too, as context: each of its inserts then lands on the last page of its "
                                + "primary key. The store drains every staged row as P2 does: "
                                + "`claimStream(maxBatch " + MAX_BATCH + ")` → `flatMap(complete, " + IN_FLIGHT + ")`.")
                .target(batchResult.build())
                .target(fanOutResult.build())
                .sideBySide(
                        "FULL drain: store (claimStream → complete, 64 in flight, P2; rows staged by "
                                + "appendWithOutbox) vs db-scheduler (scheduler, no-op task)",
                        "rows/s",
                        "store drain",
                        storeDrain,
                        "db-scheduler drain",
                        peerDrain)
                .figure("store drain after appendOutboxBatch staging, FULL", storeBatchDrain, "rows/s")
                .figure(
                        "raw JDBC, the store's row insert on its schema, " + DbSchedulerSqlite.BATCH + " rows per "
                                + "transaction, one executeUpdate per row, FULL",
                        rawPerRow,
                        "rows/s")
                .figure(
                        "raw JDBC, the same, each transaction's rows as one JDBC batch (executeBatch, as "
                                + "db-scheduler's scheduleBatch runs its insert)",
                        rawBatched,
                        "rows/s")
                .figure(
                        "store appendOutboxBatch ÷ raw, one executeUpdate per row (what the store itself costs)",
                        batchInShape,
                        "×")
                .figure("store appendWithOutbox staging: appends per group commit", perCommit, "")
                .figure("store appendWithOutbox staging: mean BEGIN…COMMIT time per group commit", txnMicros, "µs")
                .figure(
                        "store appendWithOutbox staging: writer busy inside transactions (share of wall time)",
                        busy,
                        "")
                .figure(
                        "raw JDBC staging in the store's shape (" + IN_FLIGHT + " workflows of a WorkflowStarted and "
                                + FAN_OUT + " rows per transaction, one thread, FULL)",
                        rawShape,
                        "rows/s")
                .figure("store appendWithOutbox ÷ raw in its shape (what the store itself costs)", inShape, "×")
                .figure(
                        "ceiling of P9-batch-vs-db-scheduler: raw JDBC, the store's row insert as one JDBC batch per "
                                + "transaction, ÷ db-scheduler scheduleBatch",
                        batchCeiling,
                        "×")
                .figure(
                        "ceiling of P9-fanout10-vs-db-scheduler: raw JDBC staging in the store's shape ÷ db-scheduler "
                                + "scheduleBatch",
                        fanOutCeiling,
                        "×");
        notes.forEach(section::note);
        notes.clear();
        return section;
    }

    /**
     * db-scheduler: times the staging of {@code rows} executions, then the drain of {@code drainRows}
     * (staged untimed on another file).
     *
     * @param out receives staged rows/s and drained executions/s
     */
    private void peer(RunContext ctx, int rows, int drainRows, double[] out) throws Exception {
        out[0] = peerStage(ctx, keys(rows));
        List<String> sequential = new ArrayList<>(rows);
        for (int i = 1; i <= rows; i++) {
            sequential.add("i" + i);
        }
        out[2] = peerStage(ctx, sequential);
        Path drainDb = ctx.freshDb("p9-dbscheduler-drain");
        try {
            DbSchedulerSqlite.create(drainDb, MODE);
            DbSchedulerSqlite.stage(drainDb, MODE, DbSchedulerSqlite.instances(keys(drainRows)));
            out[1] = Stats.perSecond(drainRows, DbSchedulerSqlite.drain(drainDb, MODE, drainRows));
        } catch (IllegalStateException e) {
            // context only: a failed peer drain leaves the staging targets standing
            ctx.log("P9   db-scheduler drain failed: " + e.getMessage());
            notes.add("A db-scheduler drain failed: " + e.getMessage() + " (its figure is then unknown).");
            out[1] = Double.NaN;
        } finally {
            ctx.delete(drainDb);
        }
    }

    /** @return rows/s of db-scheduler's staging of executions with these instance ids on a fresh file */
    private double peerStage(RunContext ctx, List<String> ids) throws SQLException {
        List<List<TaskInstance<?>>> instances = DbSchedulerSqlite.instances(ids);
        Path db = ctx.freshDb("p9-dbscheduler");
        try {
            DbSchedulerSqlite.create(db, MODE);
            double rate = Stats.perSecond(ids.size(), DbSchedulerSqlite.stage(db, MODE, instances));
            long staged = DbSchedulerSqlite.count(db);
            if (staged != ids.size()) {
                throw new IllegalStateException("db-scheduler staged " + staged + " of " + ids.size() + " executions");
            }
            return rate;
        } finally {
            ctx.delete(db);
        }
    }

    /** @return the dispatch keys of {@code rows} rows of new workflows, {@value #FAN_OUT} each, as the store stages */
    private static List<String> keys(int rows) {
        List<String> keys = new ArrayList<>(rows);
        for (WorkflowId w : Fixtures.workflows(rows / FAN_OUT)) {
            for (int i = 1; i <= FAN_OUT; i++) {
                keys.add(OutboxRow.dispatchKey(w, i));
            }
        }
        return keys;
    }

    /** @return the pending rows of {@code rows / 10} new workflows, 10 each, visible now */
    private static List<OutboxRow> pendingRows(int rows) {
        Instant now = Instant.now();
        List<OutboxRow> all = new ArrayList<>(rows);
        for (WorkflowId w : Fixtures.workflows(rows / FAN_OUT)) {
            all.addAll(Fixtures.pendingRows(w, FAN_OUT, now));
        }
        return all;
    }

    /** The store's {@code appendOutboxBatch}: out[0] staged rows/s, out[1] drained rows/s. */
    private void storeBatch(RunContext ctx, int rows, double[] out) {
        List<OutboxRow> all = pendingRows(rows);
        List<List<OutboxRow>> batches = new ArrayList<>();
        for (int i = 0; i < all.size(); i += DbSchedulerSqlite.BATCH) {
            batches.add(all.subList(i, Math.min(all.size(), i + DbSchedulerSqlite.BATCH)));
        }
        Path db = ctx.freshDb("p9-store-batch");
        try (SqliteReactiveStore store = Fixtures.openStore(db, MODE)) {
            long began = System.nanoTime();
            Flux.fromIterable(batches)
                    .concatMap(store::appendOutboxBatch)
                    .then()
                    .block(Duration.ofMinutes(10));
            out[0] = Stats.perSecond(rows, System.nanoTime() - began);
            out[1] = drain(store, rows);
        } finally {
            ctx.delete(db);
        }
    }

    /**
     * The store's {@code appendWithOutbox}, fan-out 10: out[0] staged rows/s, out[1] drained rows/s,
     * out[2] appends per group commit, out[3] µs per transaction, out[4] the writer's busy share, all
     * of the staging.
     */
    private void storeFanOut(RunContext ctx, int rows, double[] out) {
        Instant now = Instant.now();
        List<WorkflowId> workflows = Fixtures.workflows(rows / FAN_OUT);
        Path db = ctx.freshDb("p9-store-fanout");
        CommitCounter commits = new CommitCounter();
        try (SqliteReactiveStore store = Fixtures.openStore(db, MODE, commits)) {
            long began = System.nanoTime();
            Flux.fromIterable(workflows)
                    .flatMap(
                            w -> store.appendWithOutbox(
                                    w, List.of(Fixtures.started(w, now)), 0, Fixtures.pendingRows(w, FAN_OUT, now)),
                            IN_FLIGHT)
                    .then()
                    .block(Duration.ofMinutes(10));
            long nanos = System.nanoTime() - began;
            out[0] = Stats.perSecond(rows, nanos);
            out[2] = commits.commandsPerCommit();
            out[3] = commits.microsPerTransaction();
            out[4] = commits.writerBusy(nanos);
            out[1] = drain(store, rows);
        } finally {
            ctx.delete(db);
        }
    }

    /**
     * Raw JDBC: the store's row insert on its schema and writer settings, {@value DbSchedulerSqlite#BATCH}
     * rows per transaction, one thread.
     *
     * @param jdbcBatch whether each transaction's rows go as one JDBC batch, as db-scheduler's do
     * @return staged rows/s
     */
    private double rawBatch(RunContext ctx, int rows, boolean jdbcBatch) throws SQLException {
        List<OutboxRow> all = pendingRows(rows);
        Path db = ctx.freshDb("p9-raw-batch");
        try (RawDb rawDb = RawDb.create(db, MODE)) {
            return Stats.perSecond(rows, raw.insertRows(rawDb, all, DbSchedulerSqlite.BATCH, jdbcBatch));
        } finally {
            ctx.delete(db);
        }
    }

    /**
     * Raw JDBC staging in the transaction shape of {@code appendWithOutbox} at 64 in flight: 64
     * workflows' events and rows per transaction, on one thread, the store's SQL and writer settings.
     *
     * @return staged rows/s
     */
    private double rawFanOut(RunContext ctx, int rows) throws SQLException {
        Path db = ctx.freshDb("p9-raw-fanout");
        try (RawDb rawDb = RawDb.create(db, MODE)) {
            List<WorkflowId> workflows = Fixtures.workflows(rows / FAN_OUT);
            long began = System.nanoTime();
            raw.stage(rawDb, workflows, FAN_OUT, Instant.now(), IN_FLIGHT);
            return Stats.perSecond(rows, System.nanoTime() - began);
        } finally {
            ctx.delete(db);
        }
    }

    /** P2's drain of every staged row: claimStream → complete, 64 in flight; rows/s. */
    private static double drain(SqliteReactiveStore store, int rows) {
        ClaimStreamOptions options =
                ClaimStreamOptions.defaults().withMaxBatch(MAX_BATCH).withPollInterval(Duration.ofMillis(50));
        long began = System.nanoTime();
        store.claimStream(options)
                .flatMap(
                        row -> store.settleKeys(List.of(row.dispatchKey()), Settlement.complete())
                                .thenReturn(Boolean.TRUE),
                        IN_FLIGHT)
                .take(rows)
                .then()
                .block(Duration.ofMinutes(10));
        return Stats.perSecond(rows, System.nanoTime() - began);
    }
}
