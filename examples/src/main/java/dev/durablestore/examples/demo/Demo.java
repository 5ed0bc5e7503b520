package dev.durablestore.examples.demo;

import java.io.PrintStream;

/**
 * The demo's entry point: a fan-out workload on an embedded SQLite file, dispatched reactively
 * through the transactional outbox, ending with a report and a verification of every history and
 * row in the file.
 *
 * <pre>{@code
 * ./demo.sh                      # 2,000 workflows x 5 activities on ./durable-store-demo.db
 * ./demo.sh --workflows 200      # smaller; run it again to see a clean resume
 * ./demo.sh --help
 * }</pre>
 *
 * <p>Exit status: 0 when verified, 1 when verification failed or the run broke, 2 for a bad
 * command line (the message names the flag).
 */
public final class Demo {

    private Demo() {}

    /**
     * Runs the demo and exits with its status.
     *
     * @param args the command line; see {@link DemoOptions#usage()}
     */
    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /**
     * Runs the demo without exiting.
     *
     * @param args the command line
     * @param out where usage, progress and the report go
     * @param err where command-line errors go
     * @return the exit status: 0 verified or help shown, 1 failed, 2 bad command line
     */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        DemoOptions options;
        try {
            options = DemoOptions.parse(args);
        } catch (DemoOptions.UsageException e) {
            err.println("demo: " + e.getMessage());
            err.println("Run with --help to see the options.");
            return DemoOptions.UsageException.EXIT_CODE;
        }
        if (options.help()) {
            out.println(DemoOptions.usage());
            return 0;
        }
        return DemoRun.run(options, out, System.console() != null);
    }
}
