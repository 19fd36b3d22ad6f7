package io.slime4j.wire.udp;

import io.slime4j.wire.WireAddress;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Objects;

/**
 * The address of a UDP rail: the host and data port peers send to, and optionally the port of its
 * priority channel. Text form {@code udp:HOST:PORT} or {@code udp:HOST:PORT/PRIORITY_PORT}, with
 * an IPv6 host in brackets: {@code udp:[::1]:4791/40123}. Host names are resolved when parsed; the
 * text always shows the numeric address.
 *
 * <p>An address without a priority port belongs to a single-socket rail: every datagram, priority
 * or not, goes to its data port. Addresses are values: equal socket address and priority port are
 * equal addresses, which is how a device recognises its connected peer as a datagram's source.
 */
public final class UdpAddress implements WireAddress {

    /** The scheme prefix of address texts, {@code "udp:"}. */
    public static final String PREFIX = UdpWire.NAME + ':';

    private final InetSocketAddress socketAddress;
    private final int priorityPort;
    private final InetSocketAddress prioritySocketAddress;
    private final String text;

    /** Unchecked: {@code socketAddress} is resolved with a port, {@code priorityPort} in 0..65535. */
    UdpAddress(InetSocketAddress socketAddress, int priorityPort) {
        this.socketAddress = socketAddress;
        this.priorityPort = priorityPort;
        this.prioritySocketAddress = priorityPort == 0 ? socketAddress
                : new InetSocketAddress(socketAddress.getAddress(), priorityPort);
        this.text = PREFIX + hostText(socketAddress.getAddress()) + ':' + socketAddress.getPort()
                + (priorityPort == 0 ? "" : "/" + priorityPort);
    }

    /**
     * The address of a single-socket rail at {@code socketAddress}.
     *
     * @throws IllegalArgumentException if the socket address is unresolved or its port is 0
     */
    public static UdpAddress of(InetSocketAddress socketAddress) {
        return of(socketAddress, 0);
    }

    /**
     * The address of a rail whose data channel is at {@code socketAddress} and whose priority
     * channel is at the same host, port {@code priorityPort} (0: none, a single-socket rail).
     *
     * @throws IllegalArgumentException if the socket address is unresolved, its port is 0, or the
     *                                  priority port is outside 0..65535
     */
    public static UdpAddress of(InetSocketAddress socketAddress, int priorityPort) {
        Objects.requireNonNull(socketAddress, "socketAddress");
        if (socketAddress.isUnresolved()) {
            throw new IllegalArgumentException("udp address must be resolved, was " + socketAddress);
        }
        if (socketAddress.getPort() == 0) {
            throw new IllegalArgumentException("udp address needs a port, was " + socketAddress);
        }
        if (priorityPort < 0 || priorityPort > 65535) {
            throw new IllegalArgumentException("priority port must be in 0..65535, was " + priorityPort);
        }
        return new UdpAddress(socketAddress, priorityPort);
    }

    /**
     * Parses {@code udp:HOST:PORT} or {@code udp:HOST:PORT/PRIORITY_PORT}, resolving a host name.
     *
     * @throws IllegalArgumentException naming the text if it has another scheme, a port outside
     *                                  1..65535, a malformed or unknown host
     */
    public static UdpAddress parse(String text) {
        Parsed p = Parsed.of(text);
        if (p.port() <= 0 || p.priorityPort() == 0 || !p.hasHost()) {
            throw new IllegalArgumentException("not a udp peer address: '" + text
                    + "' (expected udp:HOST:PORT or udp:HOST:PORT/PRIORITY_PORT with ports in 1..65535)");
        }
        return new UdpAddress(new InetSocketAddress(p.resolveHost(), p.port()), Math.max(0, p.priorityPort()));
    }

    /** Where data datagrams go: the data channel's socket address. */
    public InetSocketAddress socketAddress() {
        return socketAddress;
    }

    /** The priority channel's port, or 0 for a single-socket rail. */
    public int priorityPort() {
        return priorityPort;
    }

    /** Whether the rail has a priority channel of its own. */
    public boolean hasPriorityPort() {
        return priorityPort != 0;
    }

    /** Where priority datagrams go: the priority channel, or the data channel if there is none. */
    public InetSocketAddress prioritySocketAddress() {
        return prioritySocketAddress;
    }

    /** {@code udp:HOST:PORT} or {@code udp:HOST:PORT/PRIORITY_PORT}, IPv6 hosts in brackets. */
    @Override
    public String text() {
        return text;
    }

    /** Equal socket addresses and priority ports. */
    @Override
    public boolean equals(Object o) {
        return o == this || o instanceof UdpAddress a && priorityPort == a.priorityPort
                && socketAddress.equals(a.socketAddress);
    }

    @Override
    public int hashCode() {
        return socketAddress.hashCode() * 31 + priorityPort;
    }

    /** Same as {@link #text()}. */
    @Override
    public String toString() {
        return text;
    }

    /** The numeric host; IPv6 in brackets and in the RFC 5952 short form ({@code [::1]}). */
    static String hostText(InetAddress address) {
        if (!(address instanceof Inet6Address)) {
            return address.getHostAddress();
        }
        byte[] b = address.getAddress();
        int[] groups = new int[8];
        for (int i = 0; i < 8; i++) {
            groups[i] = (b[2 * i] & 0xFF) << 8 | b[2 * i + 1] & 0xFF;
        }
        int bestStart = -1;
        int bestLength = 1; // a single zero group is not shortened (RFC 5952 4.2.2)
        for (int i = 0; i < 8; ) {
            if (groups[i] != 0) {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && groups[j] == 0) {
                j++;
            }
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
            i = j;
        }
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                sb.append("::");
                i += bestLength - 1;
                continue;
            }
            if (i > 0 && i != bestStart + bestLength) {
                sb.append(':');
            }
            sb.append(Integer.toHexString(groups[i]));
        }
        String full = address.getHostAddress();
        int scope = full.indexOf('%');
        if (scope >= 0) {
            sb.append(full, scope, full.length());
        }
        return sb.append(']').toString();
    }

    /**
     * A parsed address text before resolution: a host text (empty when absent), the data port and
     * the priority port (each -1 when absent, else 0..65535). Used for peer addresses, bind
     * addresses and advertised addresses, which differ in what may be left out and what 0 means.
     */
    record Parsed(String text, String host, int port, int priorityPort) {

        /**
         * Parses {@code udp:}, {@code udp:HOST}, {@code udp:HOST:PORT} or
         * {@code udp:HOST:PORT/PRIORITY_PORT}; ports 0..65535.
         *
         * @throws IllegalArgumentException naming the text if it is not of that form
         */
        static Parsed of(String text) {
            if (text == null) {
                throw new IllegalArgumentException("udp address text must not be null");
            }
            if (!text.startsWith(PREFIX)) {
                throw new IllegalArgumentException("not a udp address: '" + text + "' (expected udp:HOST:PORT)");
            }
            String rest = text.substring(PREFIX.length());
            String host;
            String ports;
            if (rest.startsWith("[")) {
                int close = rest.indexOf(']');
                if (close < 0) {
                    throw bad(text, "unclosed '[' around the IPv6 host");
                }
                host = rest.substring(1, close);
                if (host.isEmpty() || host.indexOf(':') < 0) {
                    throw bad(text, "brackets must hold an IPv6 address");
                }
                ports = rest.substring(close + 1);
                if (!ports.isEmpty() && !ports.startsWith(":")) {
                    throw bad(text, "expected ':' after the IPv6 host");
                }
                ports = ports.isEmpty() ? "" : ports.substring(1);
            } else {
                int colon = rest.indexOf(':');
                host = colon < 0 ? rest : rest.substring(0, colon);
                ports = colon < 0 ? "" : rest.substring(colon + 1);
                if (ports.indexOf(':') >= 0) {
                    throw bad(text, "an IPv6 host must be written in brackets, e.g. udp:[::1]:4791");
                }
                if (colon >= 0 && host.isEmpty()) {
                    throw bad(text, "missing host");
                }
            }
            for (int i = 0; i < host.length(); i++) {
                char c = host.charAt(i);
                if (Character.isWhitespace(c) || c == '/' || c == '[' || c == ']') {
                    throw bad(text, "malformed host");
                }
            }
            int port = -1;
            int priority = -1;
            if (!ports.isEmpty() || rest.endsWith(":")) {
                int slash = ports.indexOf('/');
                port = port(text, slash < 0 ? ports : ports.substring(0, slash));
                if (slash >= 0) {
                    priority = port(text, ports.substring(slash + 1));
                }
            }
            return new Parsed(text, host, port, priority);
        }

        private static int port(String text, String digits) {
            if (digits.isEmpty() || digits.length() > 5) {
                throw bad(text, "a port must be a number in 0..65535");
            }
            int port = 0;
            for (int i = 0; i < digits.length(); i++) {
                char c = digits.charAt(i);
                if (c < '0' || c > '9') {
                    throw bad(text, "a port must be a number in 0..65535");
                }
                port = port * 10 + (c - '0');
            }
            if (port > 65535) {
                throw bad(text, "a port must be a number in 0..65535");
            }
            return port;
        }

        private static IllegalArgumentException bad(String text, String why) {
            return new IllegalArgumentException("not a udp address: '" + text + "' (" + why + ")");
        }

        /** Whether a host was given. */
        boolean hasHost() {
            return !host.isEmpty();
        }

        /**
         * The host, resolved (a name through the system resolver).
         *
         * @throws IllegalArgumentException naming the text if the host is unknown or absent
         */
        InetAddress resolveHost() {
            if (host.isEmpty()) {
                throw new IllegalArgumentException("udp address '" + text + "' has no host");
            }
            try {
                return InetAddress.getByName(host);
            } catch (UnknownHostException | SecurityException e) {
                throw new IllegalArgumentException("unknown host in udp address '" + text + "'", e);
            }
        }
    }
}
