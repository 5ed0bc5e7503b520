package dev.durablestore.bench.pg;

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
import java.util.List;

/**
 * {@code POLPG} (issue 20): the dispatch policies on PostgreSQL, four nodes (separate stores and
 * pools) draining one outbox of 5-activity workflows staged at once, each node 64 completes in
 * flight; no policy, {@code withSerialPerWorkflow(true)} (every serial claim takes the one advisory
 * lock), and a cap of 256 on the route (the four nodes' concurrency together, every capped claim
 * takes the route's advisory lock and counts the claimed rows), taking turns going first.
 */
public final class PostgresPolicyCost implements Workload {

    private static final int NODES = 4;
    private static final int ACTIVITIES = 5;
    private static final int MAX_CONNECTIONS = (NODES + 1) * (PostgresComparison.POOL_SIZE + 1) + 10;

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
        try (PgServer server = PgServer.start(ctx.dir(), MAX_CONNECTIONS);
                PgNodes nodes = PgNodes.open(server, NODES, PostgresComparison.POOL_SIZE, "off", new CommitCounter())) {
            ctx.log("POLPG warm-up");
            for (DispatchPolicy p : policies) {
                drain(nodes, rows, route, p);
            }
            for (int run = 1; run <= ctx.runs(); run++) {
                ctx.log("POLPG run " + run + "/" + ctx.runs());
                double[] rate = new double[policies.length];
                for (int turn = 0; turn < policies.length; turn++) {
                    int m = (turn + run - 1) % policies.length;
                    rate[m] = drain(nodes, rows, route, policies[m]);
                }
                ctx.log(String.format(
                        "POLPG   none %.0f rows/s, serial %.0f rows/s, capped %.0f rows/s", rate[0], rate[1], rate[2]));
                serial.run(rate[1], rate[0]);
                capped.run(rate[2], rate[0]);
            }
        }
        return new Section(
                        "POLPG",
                        "Dispatch policy cost on PostgreSQL",
                        "One PostgreSQL server on this machine (see PG), four nodes (stores with pools of "
                                + PostgresComparison.POOL_SIZE
                                + ", `synchronous_commit=off`) on one fresh schema. Each "
                                + "measurement stages " + rows + " rows (" + ACTIVITIES
                                + " per workflow, untimed) and times "
                                + "the four nodes draining them together (`claimStream(maxBatch 100)` on the default route → "
                                + "`complete`, 64 in flight per node), with no policy, serial per workflow, and a cap of "
                                + NODES * PostgresComparison.CONCURRENCY
                                + " on the route, taking turns going first; a row "
                                + "handed out twice fails the workload.")
                .target(serial.build())
                .target(capped.build());
    }

    private static double drain(PgNodes nodes, int rows, ClaimScope route, DispatchPolicy policy) {
        nodes.stage(rows, ACTIVITIES);
        Drives.Drain d = Drives.drain(
                nodes.stores(),
                rows,
                PostgresComparison.CONCURRENCY,
                Drives.options().withScope(route).withPolicy(policy));
        if (d.duplicates() != 0) {
            throw new IllegalStateException(d.duplicates() + " rows handed out twice under " + policy);
        }
        return d.rowsPerSecond();
    }
}
