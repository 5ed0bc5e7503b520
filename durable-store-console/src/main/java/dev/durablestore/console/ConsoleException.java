package dev.durablestore.console;

import dev.durablestore.api.InvalidArgumentException;
import java.util.Locale;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.core.codec.DecodingException;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.http.HttpStatus;
import org.springframework.web.server.ServerWebInputException;

/**
 * A request the console answers with a 4xx status and a message naming what is wrong, having
 * changed nothing. {@link #refusal(Throwable)} is the one place that decides which failures are the
 * request's fault.
 */
final class ConsoleException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final HttpStatus status;
    private final String error;

    ConsoleException(HttpStatus status, String error, String message) {
        super(message, null, false, false);
        this.status = status;
        this.error = error;
    }

    /**
     * @param status a 4xx status
     * @param message what is wrong, naming the parameter, field or header
     * @return the refusal; its {@code error} is the status in lower case, e.g. {@code bad-request}
     */
    static ConsoleException of(HttpStatus status, String message) {
        return new ConsoleException(
                status, status.name().toLowerCase(Locale.ROOT).replace('_', '-'), message);
    }

    static ConsoleException badRequest(String message) {
        return of(HttpStatus.BAD_REQUEST, message);
    }

    static ConsoleException notFound(String message) {
        return of(HttpStatus.NOT_FOUND, message);
    }

    static ConsoleException forbidden(String error, String message) {
        return new ConsoleException(HttpStatus.FORBIDDEN, error, message);
    }

    /**
     * What the request is answered with when a handler fails with {@code failure}.
     *
     * @param failure what a handler, the store or the host's codecs failed with
     * @return the refusal when the request is at fault (its input, a body over the host's codec
     *     limit, a body that is no JSON object); null when the console, the store or the host failed
     *     (a 500: a host without a JSON codec too)
     */
    static ConsoleException refusal(Throwable failure) {
        if (failure instanceof ConsoleException c) {
            return c;
        }
        if (failure instanceof InvalidArgumentException i) {
            return badRequest(i.getMessage());
        }
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof DataBufferLimitException) {
                return of(
                        HttpStatus.PAYLOAD_TOO_LARGE,
                        "the body is larger than the server reads (" + t.getMessage()
                                + "): act on fewer keys, or by filter");
            }
        }
        if (failure instanceof DecodingException || failure instanceof ServerWebInputException) {
            return badRequest(
                    "the body must be a JSON object: " + firstLine(NestedExceptionUtils.getMostSpecificCause(failure)));
        }
        return null;
    }

    private static String firstLine(Throwable t) {
        String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
        int end = m.indexOf('\n');
        return Filters.abbreviate(end < 0 ? m : m.substring(0, end), 200);
    }

    HttpStatus status() {
        return status;
    }

    String error() {
        return error;
    }
}
