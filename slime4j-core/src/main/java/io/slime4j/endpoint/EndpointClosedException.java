package io.slime4j.endpoint;

/** A call on an endpoint that is closed or closing. */
public final class EndpointClosedException extends EndpointException {
    /** An exception with a message. */
    public EndpointClosedException(String message) {
        super(message);
    }
}
