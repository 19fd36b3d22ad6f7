package io.slime4j.endpoint;

/**
 * A {@link Bootstrap} side channel failed: the peer could not be reached, the port is taken, the
 * peer sent a malformed frame, closed the connection or did not answer in time. {@link #reason()}
 * says which, the message says where and what to do.
 */
public class BootstrapException extends EndpointException {
    /** What went wrong. */
    public enum Reason {
        /** No connection within the deadline (refused, no route, unknown host). */
        UNREACHABLE,
        /** The listening port is in use (or the bind address is not local). */
        PORT_IN_USE,
        /** A frame that is too long, empty, not UTF-8 JSON, or not a bootstrap message. */
        BAD_FRAME,
        /** The peer closed the connection (its process ended or it gave up). */
        CLOSED,
        /** A bounded wait (accept, send, receive) ran out. */
        TIMEOUT,
        /** Any other I/O failure. */
        IO,
        /** The peer could not apply what was sent (its endpoint refused to connect or to update); the message says why. */
        REFUSED
    }

    private final Reason reason;

    /** An exception with a reason and a message. */
    public BootstrapException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    /** An exception with a reason, a message and a cause. */
    public BootstrapException(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = reason;
    }

    /** What went wrong. */
    public Reason reason() {
        return reason;
    }
}
