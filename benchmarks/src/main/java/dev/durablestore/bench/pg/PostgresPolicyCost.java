package dev.durablestore.bench.pg;

import com.zaxxer.hikari.HikariDataSource;
import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.DispatchPolicy;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.bench.CommitCounter;
import dev.durablestore.bench.RunContext;
import dev.durablestore.bench.Section;
import dev.durablestore.bench.Target;
import dev.durablestore.bench.Target.Comparison;
import dev.durablestore.bench.TargetResult;
import dev.durablestore.bench.Workload;
import dev.durablestore.bench.raw.RawRows;
import dev.durablestore.core.codec.EventCodec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code POLPG} (issue 20): the dispatch policies on PostgreSQL, four nodes (separate stores and
 * pools) draining one outbox of 5-activity workflows staged at once, each node 64 completes in
 * flight; no policy, {@code withSerialPerWorkflow(true)} (every serial claim takes the one advisory
 * lock), and a cap of 256 on the route (the four nodes' concurrency together, every capped claim
 * takes the route's advisory lock and counts the claimed rows), taking turns going first. In the
 * same runs, on the same server and tables, the ceiling of the serial target: a raw JDBC drain in
 * the store's shape on four connections (one per node) with the store's serial claim statement and
 * with its plain one ({@link RawPgClaimDrain}), taking turns going first.
 */
public final class PostgresPolicyCost implements Workload {

    private static final int NODES = 4;
    private static final int ACTIVITIES = 5;
    /** The nodes and their listeners, the raw drain's connections (one per node), and room for set-up. */
    private static final int MAX_CONNECTIONS = (NODES + 1) * (PostgresComparison.POOL_SIZE + 1) + NODES + 10;

    static final Target SERIAL = Target.ratio(
            "POLPG-serial-vs-none",
            "PostgreSQL drain, 4 nodes, 5-activity workflows staged at once: serial per workflow vs no policy",
            "rows/s",
            "no policy",
            Comparison.AT_LEAST,
            0.7);
    static final Target CAPPED = Target.ratio(
            "POLPG-capped-vs-none",
            "PostgreSQL drain, 4 nodes: a cap of 256 on the route (= the nodes' concurrency) vs no policy",
            "rows/s",
            "no policy",
            Comparison.AT_LEAST,
            0.7);

    @Override
    public String id() {
        return "POLPG";
    }

    @Override
    public List<Target> targets() {
        return List.of(SERIAL, CAPPED);
    }

    @Override
    public Section run(RunContext ctx) throws Exception {
        int rows = Math.max(1_000, ctx.sizes().outboxRows() / PostgresComparison.SCALE_DOWN) / ACTIVITIES * ACTIVITIES;
        TargetResult.Builder serial = SERIAL.builder();
        TargetResult.Builder capped = CAPPED.builder();
        ClaimScope route = ClaimScope.of(OutboxRow.DEFAULT_ROUTE, OutboxRow.DEFAULT_ROUTE);
        DispatchPolicy[] policies = {
            DispatchPolicy.none(),
            DispatchPolicy.none().withSerialPerWorkflow(true),
            DispatchPolicy.none().withConcurrencyCap(NODES * PostgresComparison.CONCURRENCY)
        };
        List<Double> storeNone = new ArrayList<>();
        List<Double> storeSerial = new ArrayList<>();
        List<Double> storeNonePerClaim = new ArrayList<>();
        List<Double> storeSerialPerClaim = new ArrayList<>();
        // the ceiling of POLPG-serial-vs-none: the store's own claim statement, serial and not, by raw JDBC
        List<Double> rawSerial = new ArrayList<>();
        List<Double> rawPlain = new ArrayList<>();
        List<Double> rawSerialPerClaim = new ArrayList<>();
        List<Double> rawPlainPerClaim = new ArrayList<>();
        List<Double> rawSerialEmpty = new ArrayList<>();
        List<Double> rawPlainEmpty = new ArrayList<>();
        List<Double> rawSerialRetries = new ArrayList<>();
        RawPgClaimDrain raw = new RawPgClaimDrain(new RawRows(EventCodec.create()));
        CommitCounter node0 = new CommitCounter();
        try (PgServer server = PgServer.start(ctx.dir(), MAX_CONNECTIONS);
                PgNodes nodes = PgNodes.open(server, NODES, PostgresComparison.POOL_SIZE, "off", node0);
                HikariDataSource pool = JdbcPool.open(server, nodes.schema(), NODES, "off")) {
            checkSerialIndex(server, nodes);
            ctx.log("POLPG warm-up");
            for (DispatchPolicy p : policies) {
                drain(nodes, node0, rows, route, p);
            }
            rawDrain(nodes, raw, pool, rows, false);
            rawDrain(nodes, raw, pool, rows, true);
            for (int run = 1; run <= ctx.runs(); run++) {
                ctx.log("POLPG run " + run + "/" + ctx.runs());
                double[] rate = new double[policies.length];
                double[] perClaim = new double[policies.length];
                for (int turn = 0; turn < policies.length; turn++) {
                    int m = (turn + run - 1) % policies.length;
                    rate[m] = drain(nodes, node0, rows, route, policies[m]);
                    perClaim[m] = node0.rowsPerClaim();
                }
                boolean serialFirst = run % 2 == 0;
                RawPgClaimDrain.Result first = rawDrain(nodes, raw, pool, rows, serialFirst);
                RawPgClaimDrain.Result second = rawDrain(nodes, raw, pool, rows, !serialFirst);
                RawPgClaimDrain.Result serialRaw = serialFirst ? first : second;
                RawPgClaimDrain.Result plainRaw = serialFirst ? second : first;
                ctx.log(String.format(
                        "POLPG   none %.0f rows/s, serial %.0f rows/s, capped %.0f rows/s; raw in the store's shape: "
                                + "serial %.0f rows/s (%.1f rows per claim, %d empty claims, %d retries), "
                                + "plain %.0f rows/s (%.1f rows per claim, %d empty claims)",
                        rate[0],
                        rate[1],
                        rate[2],
                        serialRaw.rowsPerSecond(),
                        serialRaw.rowsPerClaim(),
                        serialRaw.emptyClaims(),
                        serialRaw.retries(),
                        plainRaw.rowsPerSecond(),
                        plainRaw.rowsPerClaim(),
                        plainRaw.emptyClaims()));
                serial.run(rate[1], rate[0]);
                capped.run(rate[2], rate[0]);
                storeNone.add(rate[0]);
                storeSerial.add(rate[1]);
                storeNonePerClaim.add(perClaim[0]);
                storeSerialPerClaim.add(perClaim[1]);
                rawSerial.add(serialRaw.rowsPerSecond());
                rawPlain.add(plainRaw.rowsPerSecond());
                rawSerialPerClaim.add(serialRaw.rowsPerClaim());
                rawPlainPerClaim.add(plainRaw.rowsPerClaim());
                rawSerialEmpty.add((double) serialRaw.emptyClaims());
                rawPlainEmpty.add((double) plainRaw.emptyClaims());
                rawSerialRetries.add((double) serialRaw.retries());
            }
        }
        String shape = "raw JDBC in the store's shape (" + NODES + " connections, each claims " + RawPgClaimDrain.CLAIM
                + " with the store's claim statement, then completes them in one statement)";
        return new Section("POLPG", "Dispatch policy cost on PostgreSQL", method(rows))
                .target(serial.build())
                .target(capped.build())
                .sideBySide(
                        "drained rows/s, " + shape + ": the store's serial claim vs its plain claim (the ceiling of "
                                + "POLPG-serial-vs-none)",
                        "rows/s",
                        "raw serial",
                        rawSerial,
                        "raw, no policy",
                        rawPlain)
                .sideBySide(
                        "drained rows/s, serial per workflow: the store (" + NODES + " nodes) vs " + shape,
                        "rows/s",
                        "store, serial",
                        storeSerial,
                        "raw serial",
                        rawSerial)
                .sideBySide(
                        "drained rows/s, no policy: the store (" + NODES + " nodes) vs " + shape,
                        "rows/s",
                        "store, no policy",
                        storeNone,
                        "raw, no policy",
                        rawPlain)
                .figure("rows per claim, store node 0, serial per workflow", storeSerialPerClaim, "")
                .figure("rows per claim, store node 0, no policy", storeNonePerClaim, "")
                .figure("rows per claim, raw serial (claims that took rows)", rawSerialPerClaim, "")
                .figure("rows per claim, raw, no policy (claims that took rows)", rawPlainPerClaim, "")
                .figure(
                        "empty claims per drain, raw serial (each followed by a " + RawPgClaimDrain.EMPTY_BACKOFF_MICROS
                                + " µs pause)",
                        rawSerialEmpty,
                        "")
                .figure("empty claims per drain, raw, no policy", rawPlainEmpty, "")
                .figure(
                        "serial claims refused by outbox_serial_claimed and tried again, per raw drain",
                        rawSerialRetries,
                        "");
    }

    private static String method(int rows) {
        return "One PostgreSQL server on this machine (see PG), four nodes (stores with pools of "
                + PostgresComparison.POOL_SIZE
                + ", `synchronous_commit=off`) on one fresh schema. Each "
                + "measurement stages " + rows + " rows (" + ACTIVITIES
                + " per workflow, untimed) and times "
                + "the four nodes draining them together (`claimStream(maxBatch 100)` on the default route → "
                + "`complete`, 64 in flight per node), with no policy, serial per workflow, and a cap of "
                + NODES * PostgresComparison.CONCURRENCY
                + " on the route, taking turns going first; a row "
                + "handed out twice, or any row not `done` at the end (counted by status in SQL), fails the "
                + "workload. The ceiling of the serial target, in the same runs on the same server and the "
                + "store's tables: the same " + rows + " rows (staged the same way) drained by plain JDBC with no "
                + "store, in the store's shape: " + NODES + " threads, one per node, each with its own "
                + "connection (pgjdbc over HikariCP, `synchronous_commit=off`, autocommit), each claiming up to "
                + RawPgClaimDrain.CLAIM + " rows (the store's 64 in flight per node) with the statement the store's "
                + "claim stream sends (the prioritized arm, then the others, `FOR UPDATE SKIP LOCKED`, setting "
                + "`claimed_at` and a claim token, the route's next due time read in the same statement; every "
                + "column read, the input decoded), then completing them all with one `UPDATE … SET "
                + "status='done' … WHERE dispatch_key = ANY(?)`; once with the store's serial claim (its "
                + "`NOT EXISTS` predicate on both arms and the next-due read, a negative claim token, so the "
                + "unique partial index `outbox_serial_claimed` admits one serially claimed row per workflow, "
                + "a claim it refuses tried again up to " + RawPgClaimDrain.SERIAL_RETRIES + " times as the "
                + "store does) and once with its plain claim, taking turns going first. A serial claim can "
                + "come back empty while the rows left wait behind the workflows the other connections have "
                + "in flight, so the threads stop when the rows they completed together reach the staged "
                + "total, pausing " + RawPgClaimDrain.EMPTY_BACKOFF_MICROS + " µs after an empty claim; every "
                + "row must be claimed once and end `done`. The raw serial ÷ raw plain ratio is the ceiling of "
                + "`POLPG-serial-vs-none`: what the serial claim costs the store's SQL with no store around it. "
                + "Rows per claim: node 0's, through the store's metrics.";
    }

    private static double drain(PgNodes nodes, CommitCounter node0, int rows, ClaimScope route, DispatchPolicy policy) {
        nodes.stage(rows, ACTIVITIES);
        node0.reset();
        Drives.Drain d = Drives.drain(
                nodes.stores(),
                rows,
                PostgresComparison.CONCURRENCY,
                Drives.options().withScope(route).withPolicy(policy));
        Map<String, Long> statuses = nodes.outboxStatusCounts();
        if (d.duplicates() != 0 || !statuses.equals(Map.of("done", (long) rows))) {
            throw new IllegalStateException("drain under " + policy + " not exactly-once: " + d.duplicates()
                    + " rows handed out twice; outbox rows by status " + statuses + ", expected {done=" + rows + "}");
        }
        return d.rowsPerSecond();
    }

    /** The raw drain of {@link RawPgClaimDrain} on freshly staged rows, checked: every row done. */
    private static RawPgClaimDrain.Result rawDrain(
            PgNodes nodes, RawPgClaimDrain raw, HikariDataSource pool, int rows, boolean serial) {
        nodes.stage(rows, ACTIVITIES);
        RawPgClaimDrain.Result r = raw.drain(pool, NODES, rows, serial);
        Map<String, Long> statuses = nodes.outboxStatusCounts();
        if (!statuses.equals(Map.of("done", (long) rows))) {
            throw new IllegalStateException("raw " + (serial ? "serial " : "") + "drain left outbox rows by status "
                    + statuses + ", expected {done=" + rows + "}");
        }
        return r;
    }

    /** The raw serial drain relies on the store's unique index, as the store's serial claims do. */
    private static void checkSerialIndex(PgServer server, PgNodes nodes) {
        List<List<String>> found = server.query("SELECT indexdef FROM pg_indexes WHERE schemaname = '" + nodes.schema()
                + "' AND indexname = 'outbox_serial_claimed'");
        if (found.size() != 1 || !found.get(0).get(0).contains("UNIQUE")) {
            throw new IllegalStateException("the store's schema has no unique index outbox_serial_claimed: " + found);
        }
    }
}
