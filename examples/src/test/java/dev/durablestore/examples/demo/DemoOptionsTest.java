package dev.durablestore.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DemoOptionsTest {

    @Test
    void noArgumentsGiveTheDefaults() throws Exception {
        DemoOptions o = DemoOptions.parse();
        assertThat(o).isEqualTo(DemoOptions.defaults());
        assertThat(o.db()).isEqualTo(Path.of("./durable-store-demo.db"));
        assertThat(o.workflows()).isEqualTo(2_000);
        assertThat(o.activities()).isEqualTo(5);
        assertThat(o.concurrency()).isEqualTo(64);
        assertThat(o.failureRate()).isEqualTo(0.1);
        assertThat(o.poisonRate()).isEqualTo(0.01);
        assertThat(o.maxAttempts()).isEqualTo(4);
        assertThat(o.help()).isFalse();
    }

    @Test
    void everyFlagIsParsedInBothForms() throws Exception {
        DemoOptions o = DemoOptions.parse(
                "--db",
                "/tmp/x.db",
                "--workflows=50",
                "--activities",
                "3",
                "--work-ms",
                "0",
                "--failure-rate=0.25",
                "--poison-rate",
                "0",
                "--max-attempts",
                "2",
                "--backoff-ms",
                "7",
                "--concurrency=8",
                "--seed",
                "-9");
        assertThat(o).isEqualTo(new DemoOptions(Path.of("/tmp/x.db"), 50, 3, 0, 0.25, 0.0, 2, 7, 8, -9L, false));
    }

    @Test
    void serialIsAFlagWithoutAValue() throws Exception {
        assertThat(DemoOptions.parse().serial()).isFalse();
        assertThat(DemoOptions.parse("--serial", "--workflows", "3").serial()).isTrue();
        assertThat(DemoOptions.usage()).contains("--serial");
        assertThatThrownBy(() -> DemoOptions.parse("--serial=yes"))
                .isInstanceOf(DemoOptions.UsageException.class)
                .hasMessage("--serial takes no value");
        assertThatThrownBy(() -> DemoOptions.parse("--serial", "--serial"))
                .isInstanceOf(DemoOptions.UsageException.class)
                .hasMessageContaining("more than once");
    }

    @Test
    void helpWinsWhereverItStands() throws Exception {
        assertThat(DemoOptions.parse("--help").help()).isTrue();
        assertThat(DemoOptions.parse("--workflows", "10", "-h").help()).isTrue();
        assertThat(DemoOptions.parse("--bogus", "--help").help()).isTrue();
        assertThat(DemoOptions.usage())
                .contains(
                        "--workflows", "--db", "--failure-rate", "--poison-rate", "--max-attempts", "--seed", "--help");
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "--bogus                      | unknown option --bogus",
                "--bogus=1                    | unknown option --bogus",
                "--workflows                  | --workflows needs a value",
                "--workflows --activities 3   | --workflows needs a value",
                "--workflows abc              | --workflows expects a whole number, got 'abc'",
                "--workflows 0                | --workflows must be between 1 and 10000000, got 0",
                "--workflows 99999999999      | --workflows must be between 1 and 10000000",
                "--activities -1              | --activities must be between 1 and 1000, got -1",
                "--work-ms 1.5                | --work-ms expects a whole number",
                "--failure-rate x             | --failure-rate expects a number between 0 and 1, got 'x'",
                "--failure-rate 1.5           | --failure-rate must be between 0 and 1, got 1.5",
                "--poison-rate -0.1           | --poison-rate must be between 0 and 1",
                "--poison-rate NaN            | --poison-rate must be between 0 and 1",
                "--max-attempts 0             | --max-attempts must be between 1 and 100, got 0",
                "--backoff-ms 0               | --backoff-ms must be between 1 and 60000",
                "--concurrency 5000           | --concurrency must be between 1 and 1024",
                "--seed twelve                | --seed expects a whole number, got 'twelve'",
                "--db=                        | --db needs a file path",
                "--workflows 5 --workflows 6  | --workflows is given more than once",
                "stray                        | unexpected argument 'stray'",
            })
    void badFlagsAreRejectedNamingTheFlag(String line, String message) {
        String[] args = line.trim().split("\\s+");
        assertThatThrownBy(() -> DemoOptions.parse(args))
                .isInstanceOf(DemoOptions.UsageException.class)
                .hasMessageContaining(message);
    }

    @Test
    void aBadFlagExitsWithCodeTwoAndAHint() {
        Captured c = run("--workflows", "lots");
        assertThat(c.code).isEqualTo(2);
        assertThat(c.err).contains("--workflows").contains("lots").contains("--help");
        assertThat(c.out).isEmpty();
    }

    @Test
    void helpPrintsUsageAndExitsZero() {
        Captured c = run("--help");
        assertThat(c.code).isZero();
        assertThat(c.out).startsWith("Usage:").contains("--workflows N");
        assertThat(c.err).isEmpty();
    }

    private record Captured(int code, String out, String err) {}

    private static Captured run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Demo.run(
                args,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Captured(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
