package dev.durablestore.console;

import dev.durablestore.api.OutboxQuery;
import dev.durablestore.api.WorkflowId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.server.ServerRequest;

/**
 * A parsed action body: exactly one of keys, filter or workflowId. With {@link #action(String)}
 * and {@link #requireJson(ServerRequest)}, everything an action request is read from, each refused
 * with a message naming what is wrong.
 *
 * @param keys the dispatch keys to act on, without repeats; null unless the body names keys
 * @param filter the rows to act on; null unless the body gives a filter
 * @param workflowId the workflow to act on; null unless the body names one
 * @param resetAttempt whether a redrive starts the attempt count again
 */
record ActionRequest(List<String> keys, OutboxQuery filter, WorkflowId workflowId, boolean resetAttempt) {

    private static final Set<String> FIELDS = Set.of("keys", "filter", "workflowId", "resetAttempt", "confirm");
    /** The filter fields that page a listing, not part of what an action by filter selects. */
    private static final Set<String> PAGING = Set.of("after", "limit");

    /**
     * @param token the action's path segment
     * @return the action it names
     * @throws ConsoleException 404 when it names none
     */
    static ConsoleAction action(String token) {
        for (ConsoleAction a : ConsoleAction.values()) {
            if (a.token().equals(token)) {
                return a;
            }
        }
        throw ConsoleException.notFound(
                "no action '" + Filters.abbreviate(token) + "'; known: redrive, release, cancel");
    }

    /**
     * An action's body is JSON: any other (or no, or an unreadable) Content-Type is a 415 before it
     * is read.
     *
     * @param request the action's request
     */
    static void requireJson(ServerRequest request) {
        String header = request.headers().firstHeader(HttpHeaders.CONTENT_TYPE);
        String problem;
        if (header == null) {
            problem = "none was given";
        } else {
            try {
                if (MediaType.APPLICATION_JSON.equalsTypeAndSubtype(MediaType.parseMediaType(header))) {
                    return;
                }
                problem = "was '" + Filters.abbreviate(header) + "'";
            } catch (InvalidMediaTypeException e) {
                problem = "was '" + Filters.abbreviate(header) + "' (" + e.getMessage() + ")";
            }
        }
        throw ConsoleException.of(
                HttpStatus.UNSUPPORTED_MEDIA_TYPE, "the Content-Type header must be application/json; " + problem);
    }

    /**
     * @param body the JSON object of the request
     * @param maxBulk the most keys one action takes ({@link ConsoleOptions#maxBulk()})
     * @param filters reads a filter's fields into a query, as {@code GET rows} does
     * @return the parsed body
     * @throws ConsoleException 400 naming the field at fault
     */
    static ActionRequest parse(Map<?, ?> body, int maxBulk, Function<Map<String, String>, OutboxQuery> filters) {
        for (Object k : body.keySet()) {
            if (!FIELDS.contains(String.valueOf(k))) {
                throw ConsoleException.badRequest("unknown field '" + Filters.abbreviate(String.valueOf(k))
                        + "'; known: " + new TreeSet<>(FIELDS));
            }
        }
        int targets = (body.containsKey("keys") ? 1 : 0)
                + (body.containsKey("filter") ? 1 : 0)
                + (body.containsKey("workflowId") ? 1 : 0);
        if (targets != 1) {
            throw ConsoleException.badRequest("give exactly one of keys, filter or workflowId");
        }
        boolean reset = bool(body.get("resetAttempt"), "resetAttempt");
        if (body.containsKey("keys")) {
            if (!(body.get("keys") instanceof List<?> list) || list.isEmpty()) {
                throw ConsoleException.badRequest("keys must be a non-empty array of dispatch keys");
            }
            if (list.size() > maxBulk) {
                throw ConsoleException.badRequest("at most " + maxBulk + " keys per action, got " + list.size());
            }
            List<String> keys = new ArrayList<>();
            for (Object k : list) {
                if (!(k instanceof String s) || s.isEmpty() || s.length() > 1024) {
                    throw ConsoleException.badRequest("keys must be non-empty strings of at most 1024 characters");
                }
                if (!keys.contains(s)) {
                    keys.add(s);
                }
            }
            return new ActionRequest(keys, null, null, reset);
        }
        if (body.containsKey("filter")) {
            if (!(body.get("filter") instanceof Map<?, ?> f)) {
                throw ConsoleException.badRequest("filter must be an object of filter fields");
            }
            if (!bool(body.get("confirm"), "confirm")) {
                throw ConsoleException.badRequest(
                        "an action by filter needs \"confirm\": true (count it first with " + "GET rows/count)");
            }
            Map<String, String> params = new LinkedHashMap<>();
            f.forEach((k, v) -> {
                String name = String.valueOf(k);
                if (PAGING.contains(name)) {
                    // refused, not ignored: a client that sends limit 10 would see up to maxBulk rows change
                    throw ConsoleException.badRequest("filter." + name + " pages a listing; an action by filter "
                            + "takes every matching row (at most " + maxBulk + ")");
                }
                if (v != null && !(v instanceof String) && !(v instanceof Number)) {
                    throw ConsoleException.badRequest("filter." + Filters.abbreviate(name) + " must be a string");
                }
                params.put(name, v == null ? null : String.valueOf(v));
            });
            return new ActionRequest(null, filters.apply(params), null, reset);
        }
        if (!(body.get("workflowId") instanceof String w)) {
            throw ConsoleException.badRequest("workflowId must be a UUID string");
        }
        return new ActionRequest(null, null, Filters.workflowId(w), reset);
    }

    private static boolean bool(Object v, String name) {
        if (v == null) {
            return false;
        }
        if (v instanceof Boolean b) {
            return b;
        }
        throw ConsoleException.badRequest(name + " must be true or false");
    }
}
