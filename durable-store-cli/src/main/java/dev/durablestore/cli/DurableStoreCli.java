package dev.durablestore.cli;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.SchemaVersionException;
import dev.durablestore.api.StoreException;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The operator command line of durable-store: {@code java -jar durable-store-cli-<version>-all.jar
 * <command> [options]}. Every command has {@code --help}; the exit statuses are those of
 * {@link ExitCode} ({@code docs/cli.md}).
 */
@Command(
        name = "durable-store",
        mixinStandardHelpOptions = true,
        versionProvider = DurableStoreCli.Version.class,
        description = "Operates a durable-store store: a SQLite file (--sqlite FILE) or a PostgreSQL database"
                + " (--postgres URL [--schema NAME]).",
        subcommands = {
            MigrateCommand.class,
            BackupCommand.class,
            VerifyCommand.class,
            RoutesCommand.class,
            DeadLettersCommand.class,
            RedriveCommand.class
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            "0:done, nothing wrong found",
            "1:the command found a problem (a copy that differs, undecodable events, nothing redriven)",
            "2:bad usage (unknown command or option, invalid argument, a refused migration target)",
            "3:the store is unavailable (no such file, no connection, a newer schema, a failed read or write)"
        })
public final class DurableStoreCli implements Runnable {

    private DurableStoreCli() {}

    /**
     * Runs a command and exits the JVM with its status.
     *
     * @param args the command line
     */
    public static void main(String[] args) {
        System.exit(run(args));
    }

    /**
     * Runs a command.
     *
     * @param args the command line
     * @return its exit status
     */
    static int run(String... args) {
        // the store's own warnings go to stderr; its info lines would bury a command's output
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
        CommandLine cli = new CommandLine(new DurableStoreCli());
        cli.setExecutionExceptionHandler((e, line, parsed) -> {
            PrintWriter err = line.getErr();
            int code = exitCode(e);
            err.println("durable-store " + line.getCommandName() + ": " + message(e));
            err.flush();
            return code;
        });
        return cli.execute(args);
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(new CommandLine(this), "name a command (see --help)");
    }

    private static int exitCode(Throwable e) {
        if (e instanceof CliFailure f) {
            return f.exitCode();
        }
        if (e instanceof InvalidArgumentException) {
            return ExitCode.USAGE;
        }
        if (e instanceof SchemaVersionException || e instanceof StoreException) {
            return ExitCode.UNAVAILABLE;
        }
        // a driver's failure to connect, reach or authenticate, as R2DBC reports it
        return ExitCode.UNAVAILABLE;
    }

    private static String message(Throwable e) {
        String message = e.getMessage() == null ? e.toString() : e.getMessage();
        Throwable cause = e.getCause();
        if (!(e instanceof StoreException) && !(e instanceof CliFailure) && cause != null && cause != e) {
            message += " (" + cause + ")";
        }
        return message;
    }

    /** The version of the jar's manifest. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = DurableStoreCli.class.getPackage().getImplementationVersion();
            return new String[] {"durable-store " + (version == null ? "(development build)" : version)};
        }
    }
}
