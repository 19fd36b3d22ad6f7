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
import java.util.concurrent.atomic.AtomicBoolean;
import jdk.net.ExtendedSocketOptions;

/**
 * Binds the channels of one rail and works out the address it advertises: the control-path half
 * of {@link UdpPort}, kept apart so that the port holds only what the data path needs.
 */
final class UdpBinding {
    private static final Logger LOG = LoggerFactory.getLogger(UdpBinding.class);
    private static final AtomicBoolean FALLBACK_WARNED = new AtomicBoolean();
    private static final AtomicBoolean OFFLOADS_LOGGED = new AtomicBoolean();

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
        if (!nativeBackend && config.backend() == UdpConfig.Backend.AUTO && !FALLBACK_WARNED.getAndSet(true)) {
            LOG.warn("udp wire: the native backend cannot run here ({}); using NIO, which copies every payload "
                    + "and has no GSO/GRO. Set slime4j.udp.backend=nio to choose NIO knowingly.",
                    UdpConfig.Backend.nativeUnavailability().getMessage());
        }
        int pathMtu = PathMtu.mtu(host, config.pathMtu());
        int pathPacketSize = PathMtu.datagramSize(host, pathMtu, config.maxDatagramSize());
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
            UdpPort port = new UdpPort(wire, data, priority, bound, local, config.maxDatagramSize(), rcv, snd, pathMtu,
                    pathPacketSize);
            LOG.debug("udp rail {}: path MTU {}{}, datagrams up to {} bytes unfragmented, {}", local.text(), pathMtu,
                    config.pathMtu() != 0 ? " (configured)" : "", port.pathPacketSize(), port.offloads());
            logOffloadsOnce(port, config);
            return port;
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
                // GSO and GRO on the data channel only: the priority channel carries single tiny datagrams
                boolean data = what.equals("data");
                return NativeUdpSocket.open(host, port, config.receiveBufferSize(), config.sendBufferSize(),
                        !config.fragmentation(), data && config.gso(), data && config.gro());
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
            if (!config.fragmentation() && channel.supportedOptions().contains(ExtendedSocketOptions.IP_DONTFRAGMENT)) {
                channel.setOption(ExtendedSocketOptions.IP_DONTFRAGMENT, true);
            }
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

    /**
     * Says once per JVM, at info, what the offloads of the first native rail are, and once at warn
     * if the kernel refused one that was asked for (an old kernel).
     */
    private static void logOffloadsOnce(UdpPort port, UdpConfig config) {
        if (port.backend() != UdpConfig.Backend.NATIVE || OFFLOADS_LOGGED.getAndSet(true)) {
            return;
        }
        String offloads = port.offloads();
        if (config.gso() && offloads.contains("gso off") || config.gro() && offloads.contains("gro off")) {
            LOG.warn("udp wire: kernel offloads {}; the wire sends and receives one datagram per call instead",
                    offloads);
        } else {
            LOG.info("udp wire: {}", offloads);
        }
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
