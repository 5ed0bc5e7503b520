package dev.durablestore.bench.pg;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariDataSource;
import dev.durablestore.bench.Stats;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * db-scheduler (com.github.kagkarlsson:db-scheduler) as a peer on the same server: its
 * {@code scheduled_tasks} table, created by its PostgreSQL DDL in a fresh schema of its own;
 * {@code n} executions of a no-op one-time task staged due (one {@code INSERT … SELECT} from
 * {@code generate_series}, untimed), then one scheduler started with the {@code lock-and-fetch}
 * polling strategy ({@code SELECT … FOR UPDATE SKIP LOCKED}), timed from {@code start()} until the
 * task ran {@code n} times (each execution then deleted by the scheduler, its completion).
 *
 * <p>Settings follow its docs/performance.md, whose best lock-and-fetch figure per 2-core scheduler
 * VM is {@value #THREADS} threads with lower limit {@value #LOWER} and upper limit {@value #UPPER}
 * (fractions of the threads: fetch again when fewer than 80 executions are queued, up to 400 per
 * fetch); polling interval {@value #POLL_MILLIS} ms (only used when a fetch comes back short); a
 * HikariCP pool of threads + 2 connections with {@code synchronous_commit=on}.
 */
final class DbSchedulerDrain {

    /** The db-scheduler version on the class path (its jar's pom.properties). */
    static final String VERSION = version();

    static final int THREADS = 20;
    static final double LOWER = 4.0;
    static final double UPPER = 20.0;
    static final long POLL_MILLIS = 100;
    /** The most executions the scheduler holds picked and not yet done: its threads times its upper limit. */
    static final int PICKED_AT_MOST = (int) (THREADS * UPPER);

    private static final String DDL = "CREATE TABLE %s.scheduled_tasks ("
            + "task_name TEXT NOT NULL, task_instance TEXT NOT NULL, task_data BYTEA, "
            + "execution_time TIMESTAMP WITH TIME ZONE NOT NULL, picked BOOLEAN NOT NULL, picked_by TEXT, "
            + "last_success TIMESTAMP WITH TIME ZONE, last_failure TIMESTAMP WITH TIME ZONE, "
            + "consecutive_failures INT, last_heartbeat TIMESTAMP WITH TIME ZONE, version BIGINT NOT NULL, "
            + "priority SMALLINT, PRIMARY KEY (task_name, task_instance))";
    private static final String[] INDEXES = {
        "CREATE INDEX execution_time_idx ON %s.scheduled_tasks (execution_time)",
        "CREATE INDEX last_heartbeat_idx ON %s.scheduled_tasks (last_heartbeat)",
        "CREATE INDEX priority_execution_time_idx ON %s.scheduled_tasks (priority DESC, execution_time ASC)"
    };
    private static final String TASK = "bench-noop";

    private DbSchedulerDrain() {}

    /**
     * @param server the server
     * @param meter measures the CPU of the drain
     * @param n executions
     * @return executions per second and their CPU
     */
    static Measured drain(PgServer server, CpuMeter meter, int n) {
        String schema =
                "dbsched_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        server.execute("CREATE SCHEMA " + schema);
        server.execute(DDL.formatted(schema));
        for (String index : INDEXES) {
            server.execute(index.formatted(schema));
        }
        server.execute("INSERT INTO " + schema + ".scheduled_tasks (task_name, task_instance, execution_time, "
                + "picked, version) SELECT '" + TASK + "', 'i' || g, now() - interval '1 second', false, 1 "
                + "FROM generate_series(1, " + n + ") g");
        CountDownLatch left = new CountDownLatch(n);
        OneTimeTask<Void> task = Tasks.oneTime(TASK).execute((instance, context) -> left.countDown());
        try (HikariDataSource pool = JdbcPool.open(server, schema, THREADS + 2)) {
            Scheduler scheduler = Scheduler.create(pool, task)
                    .threads(THREADS)
                    .pollUsingLockAndFetch(LOWER, UPPER)
                    .pollingInterval(Duration.ofMillis(POLL_MILLIS))
                    .build();
            CpuMeter.Sample before = meter.sample();
            long began = System.nanoTime();
            scheduler.start();
            try {
                if (!left.await(10, TimeUnit.MINUTES)) {
                    throw new IllegalStateException("db-scheduler ran " + (n - left.getCount()) + " of " + n);
                }
                awaitEmpty(server, schema);
                long nanos = System.nanoTime() - began;
                return new Measured(Stats.perSecond(n, nanos), meter.since(before, n));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            } finally {
                scheduler.stop();
            }
        } finally {
            server.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        }
    }

    private static String version() {
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

    /** Waits until the scheduler deleted the last executions that ran (their completion). */
    private static void awaitEmpty(PgServer server, String schema) throws InterruptedException {
        String count = "SELECT count(*) FROM " + schema + ".scheduled_tasks";
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        while (!server.query(count).get(0).get(0).equals("0")) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("db-scheduler left executions: " + server.query(count));
            }
            Thread.sleep(1);
        }
    }
}
