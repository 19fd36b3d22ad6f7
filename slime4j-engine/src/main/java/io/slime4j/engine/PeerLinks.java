package io.slime4j.engine;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The engine's table of peers: at most one link per peer name, pending (a handshake under way) or
 * done (a {@link Connection}). It settles the one race of lazy connections — two engines dialling
 * each other at once — by one rule: the dial of the engine whose name sorts first wins, so both
 * sides end with the same single connection (send/recv pairing needs exactly one).
 */
final class PeerLinks {
    /** One peer's slot: completed with its connection, or exceptionally when the handshake failed. */
    static final class Link {
        final CompletableFuture<Connection> ready = new CompletableFuture<>();
        final boolean outbound;

        Link(boolean outbound) {
            this.outbound = outbound;
        }

        boolean pending() {
            return !ready.isDone();
        }

        Connection connectionOrNull() {
            return ready.isDone() && !ready.isCompletedExceptionally() ? ready.join() : null;
        }
    }

    /** What to do with an inbound handshake. */
    enum Inbound { REFUSE_CROSSING, REFUSE_CONNECTED, ACCEPT }

    private final String self;
    private final Map<String, Link> links = new HashMap<>();

    PeerLinks(String self) {
        this.self = self;
    }

    /** The peer's link and whether this call created it (an outbound one the caller must dial). */
    synchronized Map.Entry<Link, Boolean> outbound(String peer) {
        Link l = links.get(peer);
        if (l != null) {
            return Map.entry(l, false);
        }
        l = new Link(true);
        links.put(peer, l);
        return Map.entry(l, true);
    }

    /**
     * An inbound handshake from {@code peer}: refuse it when our own dial to it is pending and our
     * name sorts first (ours wins); otherwise the link it is to complete — our pending dial's (it
     * loses: the peer refuses it) or a fresh one. A live connection already there refuses it too
     * (a crossing dial that arrived late: the dialler finds its link completed); one already torn
     * down is replaced.
     */
    synchronized Map.Entry<Inbound, Link> inbound(String peer) {
        Link cur = links.get(peer);
        if (cur != null && cur.pending()) {
            if (cur.outbound && self.compareTo(peer) < 0) {
                return Map.entry(Inbound.REFUSE_CROSSING, cur);
            }
            return Map.entry(Inbound.ACCEPT, cur);
        }
        if (cur != null && cur.connectionOrNull() != null && !cur.connectionOrNull().isClosed()) {
            return Map.entry(Inbound.REFUSE_CONNECTED, cur);
        }
        Link l = new Link(false);
        links.put(peer, l);
        return Map.entry(Inbound.ACCEPT, l);
    }

    /** Whether {@code link} is still the peer's current one. */
    synchronized boolean isCurrent(String peer, Link link) {
        return links.get(peer) == link;
    }

    /** Removes {@code link} if it is still the peer's. */
    synchronized void remove(String peer, Link link) {
        links.remove(peer, link);
    }

    /** Removes the peer's link if it holds {@code c} (a torn-down connection); creates nothing. */
    synchronized void removeConnection(String peer, Connection c) {
        Link l = links.get(peer);
        if (l != null && l.connectionOrNull() == c) {
            links.remove(peer);
        }
    }

    /** The established connections. */
    synchronized List<Connection> connections() {
        return links.values().stream().map(Link::connectionOrNull).filter(c -> c != null && !c.isClosed()).toList();
    }

    /** Removes every link; returns the connections to close. */
    synchronized List<Connection> clear() {
        List<Connection> cs = connections();
        links.values().forEach(l -> l.ready.completeExceptionally(new PeerUnavailableException("engine " + self
                + " closed", null)));
        links.clear();
        return cs;
    }
}
