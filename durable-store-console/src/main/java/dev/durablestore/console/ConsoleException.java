package dev.durablestore.console;

import org.springframework.http.HttpStatus;

/** A request the console answers with a 4xx status and a message, having changed nothing. */
final class ConsoleException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final HttpStatus status;
    private final String error;

    ConsoleException(HttpStatus status, String error, String message) {
        super(message, null, false, false);
        this.status = status;
        this.error = error;
    }

    static ConsoleException badRequest(String message) {
        return new ConsoleException(HttpStatus.BAD_REQUEST, "bad-request", message);
    }

    static ConsoleException notFound(String message) {
        return new ConsoleException(HttpStatus.NOT_FOUND, "not-found", message);
    }

    static ConsoleException forbidden(String error, String message) {
        return new ConsoleException(HttpStatus.FORBIDDEN, error, message);
    }

    HttpStatus status() {
        return status;
    }

    String error() {
        return error;
    }
}
