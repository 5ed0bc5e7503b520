package dev.durablestore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.FailureReason;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.PackageVersion;
import dev.durablestore.api.Payload;
import dev.durablestore.api.RunId;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.EventEnvelope;
import dev.durablestore.api.event.WorkflowStarted;
import dev.durablestore.r2dbc.PostgresServer;
import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import io.r2dbc.spi.ConnectionFactoryOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The command line as operators and scripts use it: the shaded jar run as a separate process
 * ({@code java -jar}), its output and exit status checked.
 */
@Timeout(180)
class CliProcessTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Path JAR = Path.of(System.getProperty("durablestore.cli.jar", "missing"));

    @TempDir
    Path dir;

    private Path file;
    private String deadLetter;
    private WorkflowId workflow;

    /** Output and exit status of one run. */
    record Run(int exit, String out, String err) {}

    @BeforeEach
    void aStoreWithADeadLetter() {
        // given a SQLite store: 3 workflows with 2 rows each, one row dead-lettered with a reason
        file = dir.resolve("app.db");
        Instant now = Instant.now().minusSeconds(60);
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(file))) {
            for (int i = 0; i < 3; i++) {
                WorkflowId id = WorkflowId.parse("00000000-0000-4000-8000-00000000000" + i);
                List<OutboxRow> rows = new ArrayList<>();
                for (int o = 1; o <= 2; o++) {
                    rows.add(OutboxRow.pending(id, o, "charge", Payload.json("{\"o\":" + o + "}"), now));
                }
                store.appendWithOutbox(
                                id,
                                List.of(new WorkflowStarted(
                                        new EventEnvelope(1, now, id),
                                        "order",
                                        Payload.json("{}"),
                                        RunId.random(),
                                        null,
                                        new PackageVersion("ab" + "0".repeat(62)))),
                                0,
                                rows)
                        .block(WAIT);
            }
            OutboxRow claimed = store.claim(ClaimRequest.of(1)).block(WAIT).get(0);
            store.settle(claimed, Settlement.fail().withReason(FailureReason.of("the card was declined")))
                    .block(WAIT);
            deadLetter = claimed.dispatchKey();
            workflow = claimed.workflowId();
        }
    }

    @Test
    void helpListsEveryCommandAndTheExitStatuses() throws Exception {
        Run run = cli("--help");
        assertThat(run.exit()).isZero();
        assertThat(run.out())
                .contains("migrate", "backup", "verify", "routes", "dead-letters", "redrive")
                .contains("Exit status:");
        Run sub = cli("redrive", "--help");
        assertThat(sub.exit()).isZero();
        assertThat(sub.out()).contains("--key=DISPATCH_KEY", "--workflow=ID", "--reset-attempt");
    }

    @Test
    void badUsageExitsWith2AndAMissingStoreWith3() throws Exception {
        Run both = cli("verify", "--sqlite", file.toString(), "--postgres", "r2dbc:postgresql://x/y");
        assertThat(both.exit()).isEqualTo(2);
        assertThat(both.err()).contains("mutually exclusive");
        Run unknown = cli("prune");
        assertThat(unknown.exit()).isEqualTo(2);
        assertThat(unknown.err()).contains("Unmatched argument");

        Path missing = dir.resolve("missing.db");
        Run absent = cli("verify", "--sqlite", missing.toString());
        assertThat(absent.exit()).isEqualTo(3);
        assertThat(absent.err()).contains("no SQLite file at " + missing.toAbsolutePath());
        assertThat(Files.exists(missing)).isFalse();
    }

    @Test
    void verifyRoutesAndDeadLettersReportTheStore() throws Exception {
        Run verify = cli("verify", "--sqlite", file.toString());
        assertThat(verify.exit()).as(verify.err()).isZero();
        assertThat(verify.out())
                .contains("workflows: 3")
                .contains("outbox rows: 5 pending, 0 claimed, 0 done, 1 failed, 0 cancelled")
                .contains("undecodable events: 0")
                .endsWith("VERIFIED" + System.lineSeparator());
        assertThat(verify.err()).contains("verify: decoding every event");

        Run routes = cli("routes", "--sqlite", file.toString());
        assertThat(routes.exit()).isZero();
        assertThat(routes.out()).containsPattern("default\\s+default\\s+-\\s+5\\s+5\\s+0\\s+0\\s+0\\s+1\\s+0");

        Run deadLetters = cli("dead-letters", "--sqlite", file.toString());
        assertThat(deadLetters.exit()).isZero();
        assertThat(deadLetters.out())
                .contains(deadLetter + "  workflow " + workflow + "  charge  route default/default")
                .contains("    attempt 1 at ")
                .contains(": the card was declined")
                .contains("1 dead letter");
    }

    @Test
    void redriveReturnsTheDeadLetterThenFindsNothingMore() throws Exception {
        Run first = cli("redrive", "--sqlite", file.toString(), "--key", deadLetter);
        assertThat(first.exit()).as(first.err()).isZero();
        assertThat(first.out()).isEqualTo("redriven " + deadLetter + System.lineSeparator());

        Run again = cli("redrive", "--sqlite", file.toString(), "--workflow", workflow.toString());
        assertThat(again.exit()).isEqualTo(1);
        assertThat(again.out()).contains("nothing redriven: no failed row in workflow " + workflow);
    }

    @Test
    void backupWritesACopyThatVerifies() throws Exception {
        Path copy = dir.resolve("copy.db");
        Run backup = cli("backup", "--sqlite", file.toString(), "--to", copy.toString());
        assertThat(backup.exit()).as(backup.err()).isZero();
        assertThat(backup.out()).startsWith("backup " + copy.toAbsolutePath() + ": ");
        assertThat(cli("verify", "--sqlite", copy.toString()).out()).contains("workflows: 3");
    }

    @Test
    void migrateCopiesToPostgresAndRefusesATargetHoldingAnotherStore() throws Exception {
        String schema = "cli_" + ProcessHandle.current().pid();
        execute("CREATE SCHEMA " + schema);
        try {
            String url = url(PostgresServer.options());
            Run migrate = cli("migrate", "--from", file.toString(), "--to", url, "--schema", schema);
            assertThat(migrate.exit()).as(migrate.err()).isZero();
            assertThat(migrate.out())
                    .contains("3 events, 0 timers, 6 outbox rows copied (0 there already)")
                    .contains("compared 3 workflows, 6 outbox rows, 0 timers: VERIFIED");
            assertThat(migrate.err()).contains("migrate: events 3/3 (100%)", "migrate: verifying the copy");

            Run onPostgres = cli("dead-letters", "--postgres", url, "--schema", schema);
            assertThat(onPostgres.exit()).as(onPostgres.err()).isZero();
            assertThat(onPostgres.out()).contains(deadLetter, ": the card was declined");

            Path other = dir.resolve("other.db");
            SqliteReactiveStore.open(SqliteStoreConfig.of(other)).close();
            Run refused = cli("migrate", "--from", other.toString(), "--to", url, "--schema", schema);
            assertThat(refused.exit()).isEqualTo(2);
            assertThat(refused.err()).contains("holds a migration of another source");
        } finally {
            execute("DROP SCHEMA " + schema + " CASCADE");
        }
    }

    private Run cli(String... args) throws IOException, InterruptedException {
        assertThat(JAR).as("the shaded jar (built in package)").exists();
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-jar",
                JAR.toString()));
        command.addAll(List.of(args));
        Path out = dir.resolve("out.txt");
        Path err = dir.resolve("err.txt");
        Process p = new ProcessBuilder(command)
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("exited within 60 s").isTrue();
        return new Run(
                p.exitValue(),
                Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    private static String url(ConnectionFactoryOptions o) {
        return "r2dbc:postgresql://" + o.getValue(ConnectionFactoryOptions.USER) + "@"
                + o.getValue(ConnectionFactoryOptions.HOST) + ":" + o.getValue(ConnectionFactoryOptions.PORT) + "/"
                + o.getValue(ConnectionFactoryOptions.DATABASE);
    }

    private static void execute(String sql) {
        Mono.usingWhen(
                        Mono.from(PostgresServer.admin().create()),
                        c -> Flux.from(c.createStatement(sql).execute())
                                .concatMap(r -> r.getRowsUpdated())
                                .then(),
                        c -> c.close())
                .block(WAIT);
    }
}
