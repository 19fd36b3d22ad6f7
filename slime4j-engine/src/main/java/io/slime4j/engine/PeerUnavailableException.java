package io.slime4j.engine;

import io.slime4j.endpoint.EndpointException;

/**
 * An operation towards a peer could not start: the peer is not in the directory, its bootstrap
 * listener did not answer in time, it refused the handshake (e.g. it is another incarnation now),
 * or the directory could not be reached. Nothing of the operation was posted.
 */
public class PeerUnavailableException extends EndpointException {
    private static final long serialVersionUID = 1L;
    private final boolean transientFailure;

    /** With a message naming the peer (and the directory, when it is the cause). */
    public PeerUnavailableException(String message, Throwable cause) {
        this(message, cause, false);
    }

    PeerUnavailableException(String message, Throwable cause, boolean transientFailure) {
        super(message, cause);
        this.transientFailure = transientFailure;
    }

    /** Whether a handshake broke off (not "no such peer"): the engine tries again while its connect timeout lasts. */
    boolean isTransient() {
        return transientFailure;
    }
}
