package io.slime4j.engine;

import io.slime4j.endpoint.BootstrapChannel;
import io.slime4j.endpoint.BootstrapException;
import io.slime4j.endpoint.BootstrapListener;
import io.slime4j.endpoint.BootstrapMessage;
import io.slime4j.endpoint.RdmaEndpoint;
import io.slime4j.engine.directory.PeerRecord;
import java.time.Duration;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The accept side of a {@link TransferEngine}: takes peers' dials on the bootstrap listener and
 * handshakes with each, refusing a dial meant for another incarnation (a stale record), a crossing
 * dial the peer's name loses, a second connection from a peer already connected, and an endpoint
 * whose settings do not fit this engine's (another number of queue pairs or rails; the refusal says
 * which).
 */
final class Acceptor implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(TransferEngine.class); // the engine's log

    private final Connections conns;
    private final BootstrapListener listener;

    Acceptor(Connections conns, BootstrapListener listener) {
        this.conns = conns;
        this.listener = listener;
    }

    /** Accepts until the engine is closed, each handshake on a virtual thread of its own. */
    @Override
    public void run() {
        while (!conns.closed()) {
            BootstrapChannel ch;
            try {
                ch = listener.accept(Duration.ofMillis(500));
            } catch (BootstrapException e) {
                if (conns.closed()) {
                    return;
                }
                if (e.reason() != BootstrapException.Reason.TIMEOUT) {
                    LOG.warn("engine {}: accepting failed: {}", conns.name, e.getMessage());
                }
                continue;
            }
            Thread.ofVirtual().name("slime4j-engine-" + conns.name + "-handshake").start(() -> accept(ch));
        }
    }

    private void accept(BootstrapChannel ch) {
        RdmaEndpoint endpoint = null;
        PeerLinks.Link link = null;
        String from = null;
        try {
            Duration t = conns.settings.connectTimeout();
            BootstrapMessage hello = ch.receive(t);
            if (!"connect".equals(hello.get("type", "")) || hello.info() == null) {
                throw new IllegalArgumentException("not a connect message: " + hello.options());
            }
            from = PeerRecord.checkName(hello.require("from"));
            long fromInc = Long.parseLong(hello.require("fromIncarnation"));
            if (!conns.name.equals(hello.require("to"))
                    || conns.incarnation != Long.parseLong(hello.require("toIncarnation"))) {
                ch.send(BootstrapMessage.of(Map.of("type", "refuse", "reason", "this is engine " + conns.name
                        + " incarnation " + conns.incarnation + ", not " + hello.require("to") + " incarnation "
                        + hello.require("toIncarnation") + " (a stale record)")), t);
                ch.close();
                return;
            }
            PeerTransport transport = PeerTransport.parse(hello.get("transport", null));
            String refusal = conns.transports.checkInbound(from, transport, hello.get("host", null));
            if (refusal != null) {
                ch.send(BootstrapMessage.of(Map.of("type", "refuse", "reason", "engine " + conns.name + ": " + refusal)),
                        t);
                ch.close();
                return;
            }
            Map.Entry<PeerLinks.Inbound, PeerLinks.Link> d = conns.links.inbound(from);
            if (d.getKey() != PeerLinks.Inbound.ACCEPT) {
                ch.send(BootstrapMessage.of(Map.of("type", d.getKey() == PeerLinks.Inbound.REFUSE_CROSSING
                        ? "crossing" : "connected")), t);
                ch.close();
                return;
            }
            link = d.getValue();
            long version = conns.regionsVersion();
            endpoint = conns.openEndpoint(from, fromInc, transport);
            try {
                endpoint.connect(hello.info());
            } catch (IllegalArgumentException e) { // settings that do not fit ours: say why, do not just hang up
                ch.send(BootstrapMessage.of(Map.of("type", "refuse", "reason", "engine " + conns.name
                        + " cannot connect to it: " + e.getMessage())), t);
                throw e;
            }
            ch.send(BootstrapMessage.of(endpoint.info(), Map.of("type", "accept", "from", conns.name,
                    "fromIncarnation", Long.toString(conns.incarnation))), t);
            BootstrapMessage ready = ch.receive(t);
            if (!"ready".equals(ready.get("type", ""))) {
                throw new IllegalArgumentException("expected ready, got " + ready.options());
            }
            Connection c = new Connection(from, fromInc, endpoint, transport, ch);
            endpoint = null;
            conns.install(link, c, version);
        } catch (RuntimeException e) {
            LOG.debug("engine {}: inbound handshake{} failed: {}", conns.name, from == null ? "" : " from " + from,
                    e.toString());
            if (endpoint != null) {
                endpoint.close();
            }
            ch.close();
            if (link != null) {
                conns.fail(from, link, new PeerUnavailableException("handshake with peer " + from + " failed: " + e, e,
                        true));
            }
        }
    }
}
