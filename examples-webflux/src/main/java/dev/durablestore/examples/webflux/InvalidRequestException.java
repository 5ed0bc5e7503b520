package dev.durablestore.examples.webflux;

/** A request body the service rejects; answered with 400 and the message as the problem's detail. */
public final class InvalidRequestException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** @param message what is wrong, naming the offending member */
    public InvalidRequestException(String message) {
        super(message);
    }
}
