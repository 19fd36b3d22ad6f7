package io.slime4j.endpoint;

/**
 * The endpoint exception family: a call the endpoint refused or could not carry out. The message
 * names the endpoint, what failed and what to do. Argument errors (unknown region, offset past the
 * end, wrong access) are {@link IllegalArgumentException}s, as in the verbs API.
 */
public class EndpointException extends RuntimeException {
    /** An exception with a message. */
    public EndpointException(String message) {
        super(message);
    }

    /** An exception with a message and a cause. */
    public EndpointException(String message, Throwable cause) {
        super(message, cause);
    }
}
