package dev.durablestore.cli;

/** A failure a command reports in one line with its exit status, without a stack trace. */
final class CliFailure extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int exitCode;

    /**
     * @param exitCode the exit status ({@link ExitCode})
     * @param message what went wrong, as printed
     */
    CliFailure(int exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    /** @return the exit status */
    int exitCode() {
        return exitCode;
    }
}
