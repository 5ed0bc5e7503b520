package dev.durablestore.sqlite.process;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A child JVM running a main class of the test class path, whose stdout lines are collected (and
 * optionally observed as they arrive). Used to prove behaviour across processes on one file (also by
 * the crash and contention tests of {@code dev.durablestore.sqlite.reliability}).
 */
public final class ChildJvm implements AutoCloseable {

    private final Process process;
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final Thread pump;

    private ChildJvm(Process process, Consumer<String> onLine) {
        this.process = process;
        this.pump = new Thread(
                () -> {
                    try (BufferedReader r = new BufferedReader(
                            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                        String line;
                        while ((line = r.readLine()) != null) {
                            lines.add(line);
                            onLine.accept(line);
                        }
                    } catch (IOException e) {
                        // the child died: its lines so far are what it acknowledged
                    }
                },
                "child-stdout");
        pump.setDaemon(true);
        pump.start();
    }

    public static ChildJvm start(Class<?> main, Path log, Consumer<String> onLine, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx256m");
        // short-lived, like the test JVMs (see surefire.argLine in the parent pom): no C2, no G1 threads
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-XX:+UseSerialGC");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(main.getName());
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectError(log.toFile()).start();
        return new ChildJvm(p, onLine);
    }

    /**
     * Writes one line to the child's standard input.
     *
     * @param line the line
     */
    public void send(String line) throws IOException {
        process.getOutputStream().write((line + "\n").getBytes(StandardCharsets.UTF_8));
        process.getOutputStream().flush();
    }

    /** @return the stdout lines read so far */
    public List<String> lines() {
        return lines;
    }

    /** Kills the child at once (SIGKILL), as a crash would. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
        pump.join(10_000);
    }

    /** @return completes with the exit code when the child has ended */
    public CompletableFuture<Integer> exit() {
        return process.onExit().thenApply(Process::exitValue);
    }

    /**
     * @param seconds how long to wait
     * @return the exit code
     */
    public int await(long seconds) throws InterruptedException {
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("child JVM " + process.pid() + " did not finish within " + seconds + " s");
        }
        pump.join(10_000);
        return process.exitValue();
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill();
        }
    }
}
