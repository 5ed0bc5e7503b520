package dev.durablestore.console;

/** The actions the console can take on outbox rows, each allowed or refused by the {@link ConsoleAuthorizer}. */
public enum ConsoleAction {
    /** Dead letters ({@code FAILED}) back to {@code PENDING}, visible now: {@code redrive}, {@code redriveWorkflow}. */
    REDRIVE,
    /** Stuck claims back to {@code PENDING}, visible now, attempt kept: a retry fenced by the listed claim. */
    RELEASE,
    /** Live rows ({@code PENDING}, {@code CLAIMED}) to {@code CANCELLED}: {@code settleKeys} with {@code Settlement.cancel()}, {@code cancelWorkflowRows}. */
    CANCEL;

    /** @return the action's name in URLs and JSON, e.g. {@code redrive} */
    public String token() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
