package io.slime4j.wire.udp;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ProtocolFamily;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnknownHostException;
import java.nio.channels.DatagramChannel;

/**
 * Binds the channels of one rail and works out the address it advertises: the control-path half
 * of {@link UdpPort}, kept apart so that the port holds only what the data path needs.
 */
final class UdpBinding {
    private static final Logger LOG = LoggerFactory.getLogger(UdpBinding.class);

    private UdpBinding() {
    }

    /**
     * Binds a rail at {@code bindText} advertising {@code advertisedText} (empty: the bound
     * address).
     *
     * @throws IllegalArgumentException if a text is not a udp address of the right form
     * @throws UncheckedIOException     naming the address if a channel cannot be opened or bound
     */
    static UdpPort bind(UdpWire wire, String bindText, String advertisedText, UdpConfig config) {
        if (bindText == null) {
            throw new IllegalArgumentException("udp bind address must not be null");
        }
        UdpAddress.Parsed bind = bindText.isEmpty() ? UdpAddress.Parsed.of(UdpAddress.PREFIX)
                : UdpAddress.Parsed.of(bindText);
        UdpAddress.Parsed advertised = advertisedText == null || advertisedText.isBlank() ? null
                : UdpAddress.Parsed.of(advertisedText.strip());
        if (advertised != null && (!advertised.hasHost() || advertised.priorityPort() >= 0 && advertised.port() < 0)) {
            throw new IllegalArgumentException("advertised address must be udp:HOST, udp:HOST:PORT or "
                    + "udp:HOST:PORT/PRIORITY_PORT, was '" + advertisedText + "'");
        }
        InetAddress host = bind.hasHost() ? bind.resolveHost() : InetAddress.getLoopbackAddress();
        boolean singleSocket = advertised != null && advertised.port() >= 0 && advertised.priorityPort() < 0;
        String shown = bindText.isEmpty() ? UdpAddress.PREFIX + UdpAddress.hostText(host) + ":0" : bindText;

        boolean nativeBackend = config.backend().resolve() == UdpConfig.Backend.NATIVE;
        if (nativeBackend && UdpConfig.Backend.nativeUnavailability() != null) {
            throw new IllegalStateException("the native udp backend cannot run here: "
                    + UdpConfig.Backend.nativeUnavailability().getMessage() + "; choose backend nio or auto");
        }
        UdpSocket data = null;
        UdpSocket priority = null;
        try {
            data = open(host, Math.max(0, bind.port()), config, "data", shown, nativeBackend);
            if (!singleSocket) {
                priority = open(host, Math.max(0, bind.priorityPort()), config, "priority", shown, nativeBackend);
            }
            int dataPort = data.localPort();
            int priorityPort = priority == null ? 0 : priority.localPort();
            UdpAddress bound = new UdpAddress(new InetSocketAddress(host, dataPort), priorityPort);
            UdpAddress local = advertise(bound, advertised);
            int rcv = data.receiveBufferSize();
            int snd = data.sendBufferSize();
            logBuffers(local, config, rcv, snd, priority, nativeBackend);
            return new UdpPort(wire, data, priority, bound, local, config.maxDatagramSize(), rcv, snd);
        } catch (IOException e) {
            closeQuietly(priority);
            closeQuietly(data);
            throw new UncheckedIOException("cannot set up udp rail at " + shown + ": " + e.getMessage(), e);
        } catch (RuntimeException | Error e) {
            closeQuietly(priority);
            closeQuietly(data);
            throw e;
        }
    }

    private static UdpSocket open(InetAddress host, int port, UdpConfig config, String what, String shown,
                                  boolean nativeBackend) {
        if (nativeBackend) {
            try {
                return NativeUdpSocket.open(host, port, config.receiveBufferSize(), config.sendBufferSize());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot bind the udp " + what + " channel of " + shown + " at "
                        + UdpAddress.PREFIX + UdpAddress.hostText(host) + ':' + port + ": " + e.getMessage(), e);
            }
        }
        return new NioUdpSocket(openChannel(host, port, config, what, shown), config.maxDatagramSize());
    }

    private static DatagramChannel openChannel(InetAddress host, int port, UdpConfig config, String what,
                                               String shown) {
        ProtocolFamily family = host instanceof Inet6Address ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET;
        DatagramChannel channel;
        try {
            channel = DatagramChannel.open(family);
        } catch (IOException | UnsupportedOperationException e) {
            throw new UncheckedIOException("cannot open a udp " + what + " channel for " + shown + ": " + e.getMessage(),
                    e instanceof IOException io ? io : new IOException(e));
        }
        InetSocketAddress at = new InetSocketAddress(host, port);
        try {
            channel.configureBlocking(false);
            channel.setOption(StandardSocketOptions.SO_RCVBUF, config.receiveBufferSize());
            channel.setOption(StandardSocketOptions.SO_SNDBUF, config.sendBufferSize());
            channel.bind(at);
            return channel;
        } catch (IOException e) {
            closeQuietly(channel);
            throw new UncheckedIOException("cannot bind the udp " + what + " channel of " + shown + " at "
                    + UdpAddress.PREFIX + UdpAddress.hostText(host) + ':' + port + ": " + e.getMessage(), e);
        }
    }

    /** The advertised address: the override's host and non-zero ports, the bound rest. */
    private static UdpAddress advertise(UdpAddress bound, UdpAddress.Parsed advertised) {
        InetSocketAddress b = bound.socketAddress();
        if (advertised == null) {
            if (!b.getAddress().isAnyLocalAddress()) {
                return bound;
            }
            InetAddress host = defaultHostForWildcard();
            LOG.info("udp rail bound at {} advertises {}; set an advertised address (slime4j.udp.advertisedAddress)"
                    + " if peers must use another", bound.text(), UdpAddress.hostText(host));
            return new UdpAddress(new InetSocketAddress(host, b.getPort()), bound.priorityPort());
        }
        InetAddress host = advertised.resolveHost();
        int port = advertised.port() > 0 ? advertised.port() : b.getPort();
        int priority = advertised.port() < 0 || advertised.priorityPort() == 0 ? bound.priorityPort()
                : Math.max(0, advertised.priorityPort());
        return new UdpAddress(new InetSocketAddress(host, port), priority);
    }

    private static InetAddress defaultHostForWildcard() {
        try {
            InetAddress local = InetAddress.getLocalHost();
            if (!local.isAnyLocalAddress()) {
                return local;
            }
        } catch (UnknownHostException | SecurityException e) {
            LOG.debug("no local host address for a wildcard bind; advertising loopback", e);
        }
        return InetAddress.getLoopbackAddress();
    }

    private static void logBuffers(UdpAddress local, UdpConfig config, int rcv, int snd, UdpSocket priority,
                                   boolean nativeBackend) throws IOException {
        if (!LOG.isDebugEnabled()) {
            return;
        }
        LOG.debug("udp rail {} ({} backend): SO_RCVBUF requested {} granted {}, SO_SNDBUF requested {} granted {} "
                        + "(data channel{}); Linux reports twice the usable size and clamps to net.core.rmem_max / "
                        + "wmem_max", local.text(), nativeBackend ? "native" : "nio", config.receiveBufferSize(), rcv,
                config.sendBufferSize(), snd, priority == null ? ", single-socket rail"
                        : "; priority channel " + priority.receiveBufferSize() + " / " + priority.sendBufferSize());
    }

    private static void closeQuietly(UdpSocket channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // nothing left to release
            }
        }
    }

    private static void closeQuietly(DatagramChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // nothing left to release
            }
        }
    }
}
