package io.slime4j.wire.udp;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The IP MTU a rail's datagrams must fit, and the largest UDP datagram that does: from
 * {@link UdpConfig#pathMtu()} when set, else from the interface the rail is bound on (a wildcard
 * bind takes the smallest MTU of the interfaces that are up, loopback aside, because any of them
 * may carry a peer's traffic). The engine sizes its packets from {@link #datagramSize}, so that
 * nothing is IP-fragmented by default (docs/WIRE.md, "Datagram size").
 */
public final class PathMtu {
    /** IPv4 (20) and UDP (8) headers. */
    static final int IPV4_OVERHEAD = 28;
    /** IPv6 (40) and UDP (8) headers. */
    static final int IPV6_OVERHEAD = 48;
    /** Used when no interface can be asked: the Ethernet MTU. */
    static final int FALLBACK_MTU = 1500;

    private PathMtu() {
    }

    /**
     * The IP MTU for a rail bound at {@code host}: {@code configured} if not 0, else the MTU of
     * {@code host}'s interface, else (wildcard or unknown address) the smallest MTU of the
     * interfaces that are up and not loopback, or loopback's when there are none.
     */
    static int mtu(InetAddress host, int configured) {
        if (configured != 0) {
            return configured;
        }
        try {
            if (!host.isAnyLocalAddress()) {
                NetworkInterface nif = host.isLoopbackAddress() ? loopback() : NetworkInterface.getByInetAddress(host);
                if (nif != null && nif.getMTU() > 0) {
                    return nif.getMTU();
                }
            }
            int smallest = Integer.MAX_VALUE;
            int loopback = 0;
            for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (!nif.isUp() || nif.getMTU() <= 0) {
                    continue;
                }
                if (nif.isLoopback()) {
                    loopback = nif.getMTU();
                } else if (!nif.inetAddresses().findAny().isEmpty()) {
                    smallest = Math.min(smallest, nif.getMTU());
                }
            }
            return smallest != Integer.MAX_VALUE ? smallest : loopback > 0 ? loopback : FALLBACK_MTU;
        } catch (SocketException | RuntimeException e) {
            return FALLBACK_MTU;
        }
    }

    private static NetworkInterface loopback() throws SocketException {
        for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (nif.isLoopback() && nif.isUp()) {
                return nif;
            }
        }
        return null;
    }

    /**
     * The largest UDP payload in one IP packet of {@code mtu} bytes for {@code host}'s family (an
     * IPv6 socket, even dual-stack, counts IPv6 headers), at most {@code maxDatagramSize}.
     */
    static int datagramSize(InetAddress host, int mtu, int maxDatagramSize) {
        int overhead = host instanceof Inet6Address ? IPV6_OVERHEAD : IPV4_OVERHEAD;
        return Math.max(UdpConfig.MIN_DATAGRAM_SIZE, Math.min(maxDatagramSize, mtu - overhead));
    }

    /**
     * One line per interface that is up: its name, MTU, the largest IPv4 UDP datagram that fits
     * and the payload per packet an engine with {@code headerLength}-byte headers takes from it
     * (at most {@code maxPayload}), e.g. {@code "eth0 mtu 1500: datagrams up to 1472 bytes, payload
     * 1408"}; for {@code slime4j info}.
     */
    public static List<String> describeInterfaces(int headerLength, int maxPayload) {
        List<String> lines = new ArrayList<>();
        try {
            for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (nif.isUp() && nif.getMTU() > 0) {
                    int d = Math.min(UdpConfig.MAX_DATAGRAM_SIZE, nif.getMTU() - IPV4_OVERHEAD);
                    lines.add(nif.getName() + " mtu " + nif.getMTU() + ": datagrams up to " + d + " bytes, payload "
                            + Math.min(maxPayload, d - headerLength));
                }
            }
        } catch (SocketException e) {
            lines.add("(interfaces unknown: " + e.getMessage() + ")");
        }
        return lines;
    }
}
