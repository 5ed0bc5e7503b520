package dev.durablestore.bench.workload;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.jdbc.SqliteJdbcCustomization;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.durablestore.bench.raw.RawDb;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

/**
 * db-scheduler (com.github.kagkarlsson:db-scheduler) on SQLite, on the settings the store's writer
 * uses: WAL, the same {@code synchronous} mode, a 10 s busy timeout, the store's checkpoint
 * threshold and page cache, temporary storage in memory ({@link RawDb.Settings#STORE}). Its
 * {@code scheduled_tasks} table comes from its own SQLite DDL (its test resources'
 * {@code sqlite_tables.sql}, with its three indexes), and it runs with its
 * {@link SqliteJdbcCustomization}.
 *
 * <p>Staging ({@link #stage}): {@code scheduleBatch} of {@value #BATCH} one-time executions of a
 * no-op task (no task data) per call, each call one transaction: a pool of one connection with
 * autocommit off and {@code commitWhenAutocommitDisabled(true)}, so db-scheduler's JDBC batch insert
 * commits once per call. Draining ({@link #drain}): one scheduler with {@value #THREADS} threads on
 * a pool of threads + 2 autocommit connections (the 20 threads of the PostgreSQL peer row drained
 * no faster here and starved connections past the busy timeout: {@code SQLITE_BUSY}, an execution
 * left picked), polling interval {@value #POLL_MILLIS} ms, its
 * default polling strategy (fetch, then lock each execution on execute: SQLite has neither of its
 * lock-and-fetch strategies), timed from {@code start()} until every execution ran and was deleted.
 */
final class DbSchedulerSqlite {

    /** Executions per {@code scheduleBatch} call and transaction. */
    static final int BATCH = 5_000;

    static final int THREADS = 4;
    static final long POLL_MILLIS = 100;

    private static final String TASK = "bench-noop";
    private static final List<String> DDL = List.of(
            """
            create table scheduled_tasks (
                task_name varchar(100),
                task_instance varchar(100),
                task_data blob,
                execution_time TIMESTAMP,
                picked BIT,
                picked_by varchar(50),
                last_success TIMESTAMP,
                last_failure TIMESTAMP,
                consecutive_failures INT,
                last_heartbeat TIMESTAMP,
                version BIGINT,
                priority SMALLINT,
                PRIMARY KEY (task_name, task_instance)
            )""",
            "CREATE INDEX execution_time_idx ON scheduled_tasks (execution_time)",
            "CREATE INDEX last_heartbeat_idx ON scheduled_tasks (last_heartbeat)",
            "CREATE INDEX priority_execution_time_idx on scheduled_tasks (priority desc, execution_time asc)");

    private DbSchedulerSqlite() {}

    /** The db-scheduler version on the class path (its jar's pom.properties). */
    static String version() {
        try (var in = Scheduler.class.getResourceAsStream(
                "/META-INF/maven/com.github.kagkarlsson/db-scheduler/pom.properties")) {
            java.util.Properties p = new java.util.Properties();
            if (in != null) {
                p.load(in);
            }
            return p.getProperty("version", "(version unknown)");
        } catch (java.io.IOException e) {
            return "(version unknown)";
        }
    }

    /**
     * Creates the table on a fresh file.
     *
     * @param db the file
     * @param synchronous the synchronous mode
     * @throws SQLException on failure
     */
    static void create(Path db, String synchronous) throws SQLException {
        try (RawDb raw = RawDb.open(db, synchronous)) {
            for (String sql : DDL) {
                raw.execute(sql);
            }
        }
    }

    /**
     * @param ids the executions' instance ids
     * @return an instance of the no-op task for each id, in lists of {@value #BATCH}
     */
    static List<List<TaskInstance<?>>> instances(List<String> ids) {
        OneTimeTask<Void> task = noop(null);
        List<List<TaskInstance<?>>> batches = new ArrayList<>();
        List<TaskInstance<?>> batch = null;
        for (String id : ids) {
            if (batch == null || batch.size() == BATCH) {
                batch = new ArrayList<>(BATCH);
                batches.add(batch);
            }
            batch.add(task.instance(id));
        }
        return batches;
    }

    /**
     * Schedules the executions, due now, one {@code scheduleBatch} call (and transaction) per list.
     *
     * @param db a file made by {@link #create}
     * @param synchronous the synchronous mode
     * @param batches from {@link #instances}
     * @return elapsed nanoseconds of the calls (pool and scheduler made before)
     */
    static long stage(Path db, String synchronous, List<List<TaskInstance<?>>> batches) {
        try (HikariDataSource pool = pool(db, synchronous, 1, false)) {
            Scheduler client = Scheduler.create(pool, noop(null))
                    .jdbcCustomization(new SqliteJdbcCustomization())
                    .commitWhenAutocommitDisabled(true)
                    .build();
            Instant due = Instant.now().minusSeconds(1);
            long began = System.nanoTime();
            for (List<TaskInstance<?>> batch : batches) {
                client.scheduleBatch(batch, due);
            }
            return System.nanoTime() - began;
        }
    }

    /**
     * Runs every staged execution with one scheduler.
     *
     * @param db a staged file
     * @param synchronous the synchronous mode
     * @param n executions staged
     * @return elapsed nanoseconds from {@code start()} until the last execution ran and was deleted
     */
    static long drain(Path db, String synchronous, int n) {
        CountDownLatch left = new CountDownLatch(n);
        try (HikariDataSource pool = pool(db, synchronous, THREADS + 2, true)) {
            Scheduler scheduler = Scheduler.create(pool, noop(left))
                    .jdbcCustomization(new SqliteJdbcCustomization())
                    .threads(THREADS)
                    .pollingInterval(Duration.ofMillis(POLL_MILLIS))
                    .build();
            long began = System.nanoTime();
            scheduler.start();
            try {
                if (!left.await(10, TimeUnit.MINUTES)) {
                    throw new IllegalStateException("db-scheduler ran " + (n - left.getCount()) + " of " + n);
                }
                awaitEmpty(pool);
                return System.nanoTime() - began;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            } finally {
                scheduler.stop();
            }
        }
    }

    /**
     * @param db a file made by {@link #create}
     * @return the rows in {@code scheduled_tasks}
     * @throws SQLException on failure
     */
    static long count(Path db) throws SQLException {
        try (RawDb raw = RawDb.open(db, "NORMAL")) {
            return count(raw.connection());
        }
    }

    private static long count(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM scheduled_tasks")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static OneTimeTask<Void> noop(CountDownLatch ran) {
        return Tasks.oneTime(TASK).execute((instance, context) -> {
            if (ran != null) {
                ran.countDown();
            }
        });
    }

    /** Waits until the scheduler deleted the last executions that ran (their completion). */
    private static void awaitEmpty(HikariDataSource pool) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        AtomicReference<Long> last = new AtomicReference<>();
        while (true) {
            try (Connection c = pool.getConnection()) {
                last.set(count(c));
            } catch (SQLException e) {
                throw new IllegalStateException("cannot count db-scheduler's executions", e);
            }
            if (last.get() == 0) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("db-scheduler left " + last.get() + " executions");
            }
            Thread.sleep(1);
        }
    }

    /** A pool of {@code size} connections with the store's writer settings, every one opened now. */
    private static HikariDataSource pool(Path db, String synchronous, int size, boolean autoCommit) {
        SQLiteConfig sqlite = new SQLiteConfig();
        sqlite.setJournalMode(SQLiteConfig.JournalMode.WAL);
        sqlite.setPragma(SQLiteConfig.Pragma.SYNCHRONOUS, synchronous);
        sqlite.setBusyTimeout(10_000);
        sqlite.setPragma(
                SQLiteConfig.Pragma.WAL_AUTOCHECKPOINT, Integer.toString(RawDb.Settings.STORE.checkpointPages()));
        sqlite.setCacheSize(-RawDb.Settings.STORE.cacheKib());
        sqlite.setTempStore(SQLiteConfig.TempStore.MEMORY);
        SQLiteDataSource source = new SQLiteDataSource(sqlite);
        source.setUrl("jdbc:sqlite:" + db.toAbsolutePath());
        HikariConfig config = new HikariConfig();
        config.setDataSource(source);
        config.setAutoCommit(autoCommit);
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(size);
        config.setPoolName("bench-dbscheduler-sqlite-" + size);
        HikariDataSource pool = new HikariDataSource(config);
        List<Connection> all = new ArrayList<>(size);
        try {
            for (int i = 0; i < size; i++) {
                all.add(pool.getConnection());
            }
            for (Connection c : all) {
                c.close();
            }
        } catch (SQLException e) {
            pool.close();
            throw new IllegalStateException("cannot open " + size + " SQLite connections: " + e.getMessage(), e);
        }
        return pool;
    }
}
