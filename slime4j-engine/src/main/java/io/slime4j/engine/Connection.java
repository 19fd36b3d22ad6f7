package io.slime4j.engine;

import io.slime4j.endpoint.BootstrapMessage;
import io.slime4j.endpoint.BootstrapChannel;
import io.slime4j.endpoint.Bootstrap;
import io.slime4j.endpoint.BootstrapException;
import io.slime4j.endpoint.EndpointInfo;
import io.slime4j.endpoint.RdmaEndpoint;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connected peer: the {@link RdmaEndpoint} paired with the peer's, and the bootstrap TCP
 * channel the handshake used, kept open as the control channel. A virtual thread reads it: region
 * updates from the peer (applied, then acknowledged), acknowledgements of ours, and the channel's
 * end — which means the peer's process ended or it dropped the connection, and tears this one down
 * at once. {@link #close} cancels every outstanding op of the endpoint.
 */
final class Connection {
    private static final Logger LOG = LoggerFactory.getLogger(Connection.class);
    private static final Duration READ_SLICE = Duration.ofSeconds(30);

    final String peer;
    final long peerIncarnation;
    final RdmaEndpoint endpoint;
    final PeerTransport transport;
    private final BootstrapChannel channel;
    private final Object sendLock = new Object();
    private final AtomicLong seq = new AtomicLong();
    private final Map<Long, CompletableFuture<Void>> acks = new ConcurrentHashMap<>();
    private volatile String closedReason;

    Connection(String peer, long peerIncarnation, RdmaEndpoint endpoint, PeerTransport transport,
               BootstrapChannel channel) {
        this.peer = peer;
        this.peerIncarnation = peerIncarnation;
        this.endpoint = endpoint;
        this.transport = transport;
        this.channel = channel;
    }

    /** Starts the reader; {@code onLost} is told (once) when the channel ends. */
    void start(BiConsumer<Connection, String> onLost) {
        Thread.ofVirtual().name("slime4j-engine-control-" + peer).start(() -> read(onLost));
    }

    private void read(BiConsumer<Connection, String> onLost) {
        while (closedReason == null) {
            BootstrapMessage m;
            try {
                m = channel.receive(READ_SLICE);
            } catch (BootstrapException e) {
                if (e.reason() == BootstrapException.Reason.TIMEOUT && closedReason == null) {
                    continue;
                }
                if (closedReason == null) {
                    onLost.accept(this, "peer " + peer + " closed its control connection (its process ended or it"
                            + " dropped the connection): " + e.getMessage());
                }
                return;
            }
            try {
                switch (m.get("type", "")) {
                    case "regions" -> {
                        endpoint.updatePeer(m.info());
                        send(BootstrapMessage.of(Map.of("type", "ack", "seq", m.require("seq"))));
                    }
                    case "ack" -> {
                        CompletableFuture<Void> f = acks.remove(Long.parseLong(m.require("seq")));
                        if (f != null) {
                            f.complete(null);
                        }
                    }
                    default -> LOG.warn("connection to {}: control message of unknown type dropped: {}", peer,
                            m.options());
                }
            } catch (RuntimeException e) {
                LOG.warn("connection to {}: bad control message dropped: {}", peer, e.toString());
            }
        }
    }

    private void send(BootstrapMessage m) {
        synchronized (sendLock) {
            channel.send(m, Duration.ofSeconds(5));
        }
    }

    /** Sends this side's fresh info (new regions) and waits (bounded) for the peer to apply it. */
    void pushRegions(EndpointInfo info, Duration timeout) {
        long s = seq.incrementAndGet();
        CompletableFuture<Void> ack = new CompletableFuture<>();
        acks.put(s, ack);
        try {
            send(BootstrapMessage.of(info, Map.of("type", "regions", "seq", Long.toString(s))));
            ack.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            acks.remove(s);
            throw new PeerUnavailableException("peer " + peer + " did not take the new regions within "
                    + timeout.toMillis() + " ms: " + e, e);
        }
    }

    boolean isClosed() {
        return closedReason != null;
    }

    String closedReason() {
        return closedReason;
    }

    /** Tears down: closes the channel (the peer sees it), then the endpoint (cancelling its ops). Idempotent. */
    void close(String reason) {
        synchronized (this) {
            if (closedReason != null) {
                return;
            }
            closedReason = reason;
        }
        LOG.debug("connection to {} (incarnation {}) closed: {}", peer, peerIncarnation, reason);
        channel.close();
        acks.values().forEach(f -> f.completeExceptionally(new PeerUnavailableException(reason, null)));
        endpoint.close();
    }

    @Override
    public String toString() {
        return "Connection{" + peer + "#" + peerIncarnation + " " + transport.text() + (closedReason != null ? ", closed" : "") + "}";
    }
}
