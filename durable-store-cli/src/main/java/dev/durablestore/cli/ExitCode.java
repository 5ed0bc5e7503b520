package dev.durablestore.cli;

/** The exit statuses of every command, for scripts ({@code docs/cli.md}). */
final class ExitCode {

    /** The command did what it was asked and found nothing wrong. */
    static final int OK = 0;

    /**
     * The command ran and found a problem: a migration's copy differs from its source, stored events
     * do not decode, nothing was redriven.
     */
    static final int PROBLEM = 1;

    /** Bad usage: an unknown command or option, a missing or invalid argument, a refused target. */
    static final int USAGE = 2;

    /** The store could not be used: no such file, no connection, a schema too new, a failed read or write. */
    static final int UNAVAILABLE = 3;

    private ExitCode() {}
}
