package io.slime4j.wire.udp;

import io.slime4j.wire.Wire;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The UDP wire: each port is a rail of two non-blocking {@link DatagramChannel}s, data and
 * priority. Address texts are {@code udp:HOST:PORT} and {@code udp:HOST:PORT/PRIORITY_PORT}
 * (IPv6 hosts in brackets); see {@link io.slime4j.wire.udp} for the design.
 *
 * <pre>{@code
 * try (UdpWire wire = new UdpWire();
 *      SoftDevice device = SoftDevice.open(wire, "udp:10.0.0.1:4791", SoftConfig.defaults())) {
 *     String address = device.address(); // e.g. udp:10.0.0.1:4791/40123, for the peer's QpInfo
 * }
 * }</pre>
 */
public final class UdpWire implements Wire {

    /** The wire's name and address scheme, {@code "udp"}. */
    public static final String NAME = "udp";

    private static volatile Throwable unavailability;
    private static volatile boolean probed;

    private final UdpConfig config;
    private final Set<UdpPort> ports = ConcurrentHashMap.newKeySet();
    private boolean closed; // guarded by this

    /** A wire with the settings of {@link UdpConfig#fromEnvironment()}. */
    public UdpWire() {
        this(UdpConfig.fromEnvironment());
    }

    /** A wire with {@code config}. */
    public UdpWire(UdpConfig config) {
        this.config = Objects.requireNonNull(config, "config");
    }

    /** {@value #NAME}. */
    @Override
    public String name() {
        return NAME;
    }

    /** The settings of this wire's ports. */
    public UdpConfig config() {
        return config;
    }

    /**
     * Binds a rail at {@code address}, advertising {@link UdpConfig#advertisedAddress()} if set.
     * Forms: {@code udp:HOST:PORT} (port 0: ephemeral; the priority channel takes an ephemeral
     * port), {@code udp:HOST:PORT/PRIORITY_PORT}, {@code udp:HOST} (both ephemeral), and {@code ""}
     * or {@code udp:} for ephemeral ports on the loopback address.
     *
     * @throws UncheckedIOException     whose message names the address if a port is in use or the
     *                                  host is not local
     * @throws IllegalArgumentException if the text is not a udp address
     * @throws IllegalStateException    if the wire is closed
     */
    @Override
    public UdpPort bind(String address) {
        return bind(address, config.advertisedAddress());
    }

    /**
     * Binds a rail at {@code address} that advertises {@code advertisedAddress} instead of its
     * bound address (see {@link UdpConfig#advertisedAddress()} for the forms; null or empty: the
     * bound address).
     *
     * @throws UncheckedIOException     whose message names the address if a port is in use or the
     *                                  host is not local
     * @throws IllegalArgumentException if a text is not a udp address of the right form
     * @throws IllegalStateException    if the wire is closed
     */
    public UdpPort bind(String address, String advertisedAddress) {
        checkOpen(address);
        UdpPort port = UdpBinding.bind(this, address, advertisedAddress, config);
        synchronized (this) {
            if (!closed) {
                ports.add(port);
                return port;
            }
        }
        port.close();
        throw new IllegalStateException("udp wire is closed; cannot bind " + address);
    }

    private synchronized void checkOpen(String address) {
        if (closed) {
            throw new IllegalStateException("udp wire is closed; cannot bind " + address);
        }
    }

    /** Whether a datagram channel can be opened here (probed once per JVM). */
    @Override
    public boolean isAvailable() {
        return unavailabilityCause() == null;
    }

    /** Why no datagram channel can be opened here, or null. */
    @Override
    public Throwable unavailabilityCause() {
        if (!probed) {
            try {
                DatagramChannel.open().close();
                unavailability = null;
            } catch (IOException | UnsupportedOperationException | SecurityException e) {
                unavailability = e;
            }
            probed = true;
        }
        return unavailability;
    }

    /** The ports bound through this wire and still open. */
    public List<UdpPort> ports() {
        return List.copyOf(ports);
    }

    /** Closes every port; later binds throw {@link IllegalStateException}. Idempotent. */
    @Override
    public void close() {
        List<UdpPort> open;
        synchronized (this) {
            closed = true;
            open = new ArrayList<>(ports);
        }
        for (UdpPort port : open) {
            port.close();
        }
    }

    /** Called once by a closing port. */
    void unbind(UdpPort port) {
        ports.remove(port);
    }

    @Override
    public String toString() {
        return "UdpWire[ports=" + ports.size() + ", " + config + "]";
    }
}
