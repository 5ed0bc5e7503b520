package dev.durablestore.console;

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
        return workflowId("workflowId", text);
    }

    /**
     * @param name the parameter, for the message
     * @param text a workflow id
     * @return the id
     * @throws ConsoleException naming the parameter when the text is no UUID
     */
    static WorkflowId workflowId(String name, String text) {
        try {
            return WorkflowId.parse(text.trim());
        } catch (RuntimeException e) {
            throw ConsoleException.badRequest(name + " must be a UUID, was '" + abbreviate(text) + "'");
        }
    }

    private static Instant olderThan(String age, Instant now, Duration lease) {
        if (age.equals("lease")) {
            return now.minus(lease);
        }
        return instant("olderThan", age, now, ", lease");
    }

    /**
     * @param name the parameter, for the message
     * @param text an age counted back from {@code now} ({@code 30s}, {@code 10m}, {@code 2h},
     *     {@code 1d}, {@code PT5M}) or an instant ({@code 2026-01-02T03:04:05Z})
     * @param now the current instant
     * @return the instant
     * @throws ConsoleException naming the parameter when the text is neither, or the age reaches past
     *     the instants Java can count back to
     */
    static Instant instant(String name, String text, Instant now) {
        return instant(name, text, now, "");
    }

    private static Instant instant(String name, String text, Instant now, String more) {
        try {
            Duration d = duration(text);
            return d == null ? Instant.parse(text) : now.minus(d);
        } catch (DateTimeException | ArithmeticException e) {
            // DateTimeException: an age past the instants Java can count back to (P99999999999999D)
            throw ConsoleException.badRequest(name + " must be an age (30s, 10m, 2h, 1d, PT5M" + more
                    + ") or an instant (2026-01-02T03:04:05Z), was '" + abbreviate(text) + "'");
        }
    }

    /**
     * @param name the parameter, for the message
     * @param text a duration ({@code 0s}, {@code 30s}, {@code 10m}, {@code 2h}, {@code 1d}, {@code PT5M})
     * @param now the instant it counts forward from
     * @param latest the latest instant accepted
     * @return {@code now} plus the duration
     * @throws ConsoleException naming the parameter when the text is no such duration or it reaches
     *     past {@code latest}
     */
    static Instant ahead(String name, String text, Instant now, Instant latest) {
        try {
            Duration d = duration(text);
            if (d != null) {
                Instant at = now.plus(d);
                if (!at.isAfter(latest)) {
                    return at;
                }
            }
        } catch (DateTimeException | ArithmeticException e) {
            // reported below
        }
        throw ConsoleException.badRequest(name + " must be a duration (0s, 30s, 10m, 2h, 1d, PT5M) reaching no"
                + " later than " + latest + ", was '" + abbreviate(text) + "'");
    }

    /** @return the duration the text names (30s, 10m, PT5M), or null when it names none; never negative */
    private static Duration duration(String text) {
        Matcher m = AGE.matcher(text);
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            return switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            };
        }
        if (text.startsWith("P") || text.startsWith("p")) {
            Duration d = Duration.parse(text);
            if (d.isNegative()) {
                throw new DateTimeParseException("negative", text, 0);
            }
            return d;
        }
        return null;
    }

    static String text(Map<String, String> params, String name) {
        String v = blankToNull(params.get(name));
        if (v != null && v.length() > MAX_TEXT) {
            throw ConsoleException.badRequest(name + " is longer than " + MAX_TEXT + " characters");
        }
        return v;
    }

    static String blankToNull(String v) {
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
