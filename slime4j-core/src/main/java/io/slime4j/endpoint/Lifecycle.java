package io.slime4j.endpoint;

import io.slime4j.verbs.WcStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where an endpoint is in its life — created, connected, failed, closing — and the check every
 * operation makes at its call: it throws the reason the endpoint cannot be used now (closed,
 * failed and why, not yet connected). The first failure is kept; later ones are only logged.
 * Thread-safe.
 */
final class Lifecycle {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaEndpoint.class);

    private final String name;
    private volatile boolean connected;
    private volatile boolean closing;
    private volatile String failure;
    private volatile WcStatus failureStatus;

    Lifecycle(String name) {
        this.name = name;
    }

    String name() {
        return name;
    }

    /** Throws unless operations may be started now. */
    void checkUsable() {
        checkOpen();
        String f = failure;
        if (f != null) {
            throw new EndpointException("endpoint " + name + " failed: " + f + "; close it and create a new one");
        }
        if (!connected) {
            throw new EndpointException("endpoint " + name + " is not connected: call connect(peerInfo) first");
        }
    }

    /** Throws if the endpoint is closing or closed. */
    void checkOpen() {
        if (closing) {
            throw new EndpointClosedException("endpoint " + name + " is closed");
        }
    }

    boolean isClosing() {
        return closing;
    }

    boolean isConnected() {
        return connected;
    }

    /** The first failure, or null. */
    String failure() {
        return failure;
    }

    /** The verbs status of the first failure (e.g. RETRY_EXC_ERR: the peer stopped answering), or null. */
    WcStatus failureStatus() {
        return failureStatus;
    }

    /** Whether the endpoint is closing or failed: nothing new goes on the wire. */
    boolean isEnding() {
        return closing || failure != null;
    }

    void markConnected() {
        connected = true;
    }

    void markClosing() {
        closing = true;
    }

    /** Records a failure; whether it was the first (a later one is ignored). */
    synchronized boolean markFailed(WcStatus status, String why) {
        if (failure != null) {
            return false;
        }
        failureStatus = status;
        failure = why;
        LOG.error("endpoint {} failed: {}", name, why);
        return true;
    }

    /** The logger of the endpoint's classes (named after {@link RdmaEndpoint}). */
    static Logger log() {
        return LOG;
    }
}
