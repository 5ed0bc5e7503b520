package dev.durablestore.console;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.OutboxQuery;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.WorkflowId;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses the console's row filters (query parameters or a JSON object of strings) into an {@link OutboxQuery}. */
final class Filters {

    static final Set<String> NAMES = Set.of(
            "status",
            "namespace",
            "taskQueue",
            "node",
            "activityType",
            "workflowId",
            "dispatchKey",
            "olderThan",
            "after",
            "limit");
    private static final Pattern AGE = Pattern.compile("(\\d{1,9})(ms|s|m|h|d)");
    private static final int MAX_TEXT = 1024;

    private Filters() {}

    /**
     * @param params the filter fields; an unknown name, a bad status, age, workflow id or limit is refused
     * @param now the current instant (ages count back from it)
     * @param lease what {@code olderThan=lease} means
     * @param defaultLimit the page size when none is given
     * @param maxLimit the largest page size
     * @return the query
     */
    static OutboxQuery parse(Map<String, String> params, Instant now, Duration lease, int defaultLimit, int maxLimit) {
        for (String name : params.keySet()) {
            if (!NAMES.contains(name)) {
                throw ConsoleException.badRequest(
                        "unknown filter '" + abbreviate(name) + "'; known: " + String.join(", ", new TreeSet<>(NAMES)));
            }
        }
        OutboxQuery q = OutboxQuery.all(defaultLimit);
        String status = blankToNull(params.get("status"));
        if (status != null) {
            try {
                q = q.withStatus(OutboxStatus.fromToken(status.toLowerCase(Locale.ROOT)));
            } catch (RuntimeException e) {
                throw ConsoleException.badRequest(
                        "status must be one of pending, claimed, done, failed, cancelled; was '" + abbreviate(status)
                                + "'");
            }
        }
        q = q.withRoute(text(params, "namespace"), text(params, "taskQueue"), text(params, "node"))
                .withActivityType(text(params, "activityType"))
                .withDispatchKey(text(params, "dispatchKey"))
                .withAfterKey(text(params, "after"));
        String workflow = blankToNull(params.get("workflowId"));
        if (workflow != null) {
            q = q.withWorkflowId(workflowId(workflow));
        }
        String age = blankToNull(params.get("olderThan"));
        if (age != null) {
            q = q.withOlderThan(olderThan(age, now, lease));
        }
        String limit = blankToNull(params.get("limit"));
        if (limit != null) {
            q = q.withLimit((int) wholeNumber("limit", limit, 1, maxLimit));
        }
        return q;
    }

    /**
     * @param name the parameter, for the message
     * @param text its value
     * @param min the smallest accepted
     * @param max the largest accepted
     * @return the number
     * @throws ConsoleException naming the parameter when the text is no whole number from min to max
     */
    static long wholeNumber(String name, String text, long min, long max) {
        try {
            long n = Long.parseLong(text);
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw ConsoleException.badRequest(
                name + " must be a whole number from " + min + " to " + max + ", was '" + abbreviate(text) + "'");
    }

    static WorkflowId workflowId(String text) {
        try {
            return WorkflowId.parse(text.trim());
        } catch (RuntimeException e) {
            throw ConsoleException.badRequest("workflowId must be a UUID, was '" + abbreviate(text) + "'");
        }
    }

    private static Instant olderThan(String age, Instant now, Duration lease) {
        try {
            if (age.equals("lease")) {
                return now.minus(lease);
            }
            Matcher m = AGE.matcher(age);
            if (m.matches()) {
                long n = Long.parseLong(m.group(1));
                Duration d = switch (m.group(2)) {
                    case "ms" -> Duration.ofMillis(n);
                    case "s" -> Duration.ofSeconds(n);
                    case "m" -> Duration.ofMinutes(n);
                    case "h" -> Duration.ofHours(n);
                    default -> Duration.ofDays(n);
                };
                return now.minus(d);
            }
            if (age.startsWith("P") || age.startsWith("p")) {
                Duration d = Duration.parse(age);
                if (d.isNegative()) {
                    throw new DateTimeParseException("negative", age, 0);
                }
                return now.minus(d);
            }
            return Instant.parse(age);
        } catch (DateTimeException | ArithmeticException | InvalidArgumentException e) {
            // DateTimeException: an age past the instants Java can count back to (P99999999999999D)
            throw ConsoleException.badRequest("olderThan must be an age (30s, 10m, 2h, 1d, PT5M, lease) or an instant"
                    + " (2026-01-02T03:04:05Z), was '" + abbreviate(age) + "'");
        }
    }

    private static String text(Map<String, String> params, String name) {
        String v = blankToNull(params.get(name));
        if (v != null && v.length() > MAX_TEXT) {
            throw ConsoleException.badRequest(name + " is longer than " + MAX_TEXT + " characters");
        }
        return v;
    }

    private static String blankToNull(String v) {
        return v == null || v.isBlank() ? null : v;
    }

    /** @return the text, cut at 80 characters, for a message */
    static String abbreviate(String text) {
        return abbreviate(text, 80);
    }

    static String abbreviate(String text, int max) {
        return text.length() <= max ? text : text.substring(0, max) + "…";
    }
}
