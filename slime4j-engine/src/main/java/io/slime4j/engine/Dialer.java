package io.slime4j.engine;

import io.slime4j.endpoint.Bootstrap;
import io.slime4j.endpoint.BootstrapChannel;
import io.slime4j.endpoint.BootstrapException;
import io.slime4j.endpoint.BootstrapMessage;
import io.slime4j.endpoint.RdmaEndpoint;
import io.slime4j.engine.directory.Directory;
import io.slime4j.engine.directory.DirectoryException;
import io.slime4j.engine.directory.PeerRecord;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dial side of a {@link TransferEngine}: the first op towards a peer looks its record up in
 * the directory, dials its bootstrap listener and handshakes (naming both incarnations, so nothing
 * reaches a stale process); every thread wanting that peer meanwhile waits on the same link. A
 * handshake that broke off under load or lost a crossing race is dialled again within the connect
 * timeout.
 */
final class Dialer {
    private static final Logger LOG = LoggerFactory.getLogger(TransferEngine.class); // the engine's log

    private final Connections conns;
    private final Directory directory;
    private final Consumer<RuntimeException> directoryErrors;
    private final Runnable checkOpen;

    /** Dials through {@code conns}; {@code checkOpen} throws once the engine is closed. */
    Dialer(Connections conns, Directory directory, Consumer<RuntimeException> directoryErrors, Runnable checkOpen) {
        this.conns = conns;
        this.directory = directory;
        this.directoryErrors = directoryErrors;
        this.checkOpen = checkOpen;
    }

    /** The peer's live connection: the current one, or a new one (bounded by the connect timeout). */
    Connection connection(String peer) {
        PeerRecord.checkName(peer);
        if (peer.equals(conns.name)) {
            throw new IllegalArgumentException("engine " + conns.name + " cannot address itself");
        }
        long deadline = System.nanoTime() + conns.settings.connectTimeout().toNanos();
        while (true) {
            checkOpen.run();
            Map.Entry<PeerLinks.Link, Boolean> e = conns.links.outbound(peer);
            PeerLinks.Link link = e.getKey();
            if (e.getValue()) {
                dial(peer, link, deadline);
            }
            Connection conn;
            try {
                conn = link.ready.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (ExecutionException ex) {
                conns.links.remove(peer, link);
                Throwable cause = ex.getCause();
                if (cause instanceof PeerUnavailableException p && p.isTransient()
                        && deadline - System.nanoTime() > TimeUnit.MILLISECONDS.toNanos(50)) {
                    sleepQuietly(20); // a handshake that broke off under load, or lost a race: dial again
                    continue;
                }
                if (cause instanceof PeerUnavailableException p) {
                    throw new PeerUnavailableException(p.getMessage(), p);
                }
                throw new PeerUnavailableException("cannot connect to peer " + peer + ": " + cause, cause);
            } catch (TimeoutException ex) {
                conns.links.remove(peer, link);
                link.ready.completeExceptionally(new PeerUnavailableException("timed out", null));
                throw new PeerUnavailableException("no connection to peer " + peer + " within "
                        + conns.settings.connectTimeout().toMillis() + " ms", ex);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new PeerUnavailableException("interrupted while connecting to peer " + peer, ex);
            }
            if (!conn.isClosed()) {
                return conn;
            }
            conns.links.remove(peer, link);
            if (System.nanoTime() - deadline > 0) {
                throw new PeerUnavailableException("connection to peer " + peer + " closed: " + conn.closedReason(),
                        null);
            }
        }
    }

    /** Looks the peer up, dials its listener and handshakes; completes {@code link} or fails it. */
    private void dial(String peer, PeerLinks.Link link, long deadline) {
        RdmaEndpoint endpoint = null;
        BootstrapChannel channel = null;
        try {
            PeerRecord rec;
            try {
                rec = directory.lookup(peer).orElseThrow(() -> new PeerUnavailableException("no engine '" + peer
                        + "' in directory " + directory.url(), null));
            } catch (DirectoryException ex) {
                directoryErrors.accept(ex);
                throw new PeerUnavailableException("cannot look up peer " + peer + ": " + ex.getMessage(), ex);
            }
            PeerTransport transport;
            try {
                transport = conns.transports.dial(rec);
            } catch (IllegalArgumentException ex) {
                throw new PeerUnavailableException("engine " + conns.name + ": " + ex.getMessage(), ex);
            }
            while (true) {
                long t0 = System.nanoTime();
                channel = Bootstrap.connect(rec.bootstrapHost(), rec.bootstrapPort(), remaining(deadline));
                long t1 = System.nanoTime();
                Connection[] built = new Connection[1];
                long version = conns.regionsVersion();
                endpoint = conns.openEndpoint(peer, rec.incarnation(), transport);
                long t2 = System.nanoTime();
                BootstrapMessage reply = channel.exchange(BootstrapMessage.of(endpoint.info(), Map.of("type", "connect",
                        "from", conns.name, "fromIncarnation", Long.toString(conns.incarnation), "to", peer,
                        "toIncarnation", Long.toString(rec.incarnation()), "transport", transport.text(),
                        "host", conns.transports.hostText())), remaining(deadline));
                long t3 = System.nanoTime();
                if (t3 - t0 > 1_000_000_000L) {
                    LOG.warn("engine {}: slow dial to {}: tcp {} ms, endpoint {} ms, exchange {} ms ({})", conns.name,
                            peer,
                            (t1 - t0) / 1_000_000, (t2 - t1) / 1_000_000, (t3 - t2) / 1_000_000, reply.get("type", ""));
                }
                switch (reply.get("type", "")) {
                    case "accept" -> {
                        endpoint.connect(reply.info());
                        channel.send(BootstrapMessage.of(Map.of("type", "ready")), remaining(deadline));
                        built[0] = new Connection(peer, rec.incarnation(), endpoint, transport, channel);
                        endpoint = null;
                        channel = null;
                        conns.install(link, built[0], version);
                        return;
                    }
                    case "crossing" -> {
                        return; // the peer's own dial wins and completes our link through the acceptor
                    }
                    case "connected" -> {
                        // the peer still holds a connection to us: ours was completed by its dial meanwhile
                        // (a late crossing), or it has not yet seen the old one end; look again shortly
                        endpoint.close();
                        endpoint = null;
                        channel.close();
                        channel = null;
                        if (!link.pending()) {
                            return;
                        }
                        if (System.nanoTime() - deadline > 0) {
                            throw new PeerUnavailableException("peer " + peer + " kept an old connection to engine "
                                    + conns.name + " for the whole connect timeout", null);
                        }
                        Thread.sleep(20);
                    }
                    default -> throw new PeerUnavailableException("peer " + peer + " refused the connection: "
                            + reply.get("reason", reply.options().toString()), null);
                }
            }
        } catch (PeerUnavailableException ex) {
            conns.fail(peer, link, ex);
        } catch (BootstrapException ex) {
            // refused or silent until the deadline is final; a channel that broke off mid-handshake is not
            conns.fail(peer, link, new PeerUnavailableException("cannot reach peer " + peer + ": " + ex.getMessage(),
                    ex,
                    ex.reason() == BootstrapException.Reason.CLOSED || ex.reason() == BootstrapException.Reason.IO));
        } catch (RuntimeException ex) {
            conns.fail(peer, link, new PeerUnavailableException("connecting to peer " + peer + " failed: " + ex, ex));
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            conns.fail(peer, link, new PeerUnavailableException("interrupted while connecting to peer " + peer, ex));
        } finally {
            if (endpoint != null) {
                endpoint.close();
            }
            if (channel != null) {
                channel.close();
            }
        }
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PeerUnavailableException("interrupted while connecting", e);
        }
    }


    private static Duration remaining(long deadline) {
        return Duration.ofNanos(Math.max(1_000_000, deadline - System.nanoTime()));
    }
}
