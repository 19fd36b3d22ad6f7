package io.slime4j.wire.udp;

import java.util.Locale;
import java.util.function.UnaryOperator;

/**
 * Settings of a {@link UdpWire}, applied to every port it binds. Built with {@link #builder()}
 * (the defaults below) or {@link #fromEnvironment()} (system properties, then environment
 * variables, then the defaults); validated at build time.
 *
 * <table>
 * <caption>Settings</caption>
 * <tr><th>setting</th><th>system property</th><th>environment variable</th><th>default</th></tr>
 * <tr><td>{@link #receiveBufferSize()}</td><td>{@code slime4j.udp.receiveBufferSize}</td>
 *     <td>{@code SLIME4J_UDP_RECEIVE_BUFFER_SIZE}</td><td>4 MiB</td></tr>
 * <tr><td>{@link #sendBufferSize()}</td><td>{@code slime4j.udp.sendBufferSize}</td>
 *     <td>{@code SLIME4J_UDP_SEND_BUFFER_SIZE}</td><td>4 MiB</td></tr>
 * <tr><td>{@link #maxDatagramSize()}</td><td>{@code slime4j.udp.maxDatagramSize}</td>
 *     <td>{@code SLIME4J_UDP_MAX_DATAGRAM_SIZE}</td><td>65,507 bytes</td></tr>
 * <tr><td>{@link #advertisedAddress()}</td><td>{@code slime4j.udp.advertisedAddress}</td>
 *     <td>{@code SLIME4J_UDP_ADVERTISED_ADDRESS}</td><td>none (the bound address)</td></tr>
 * <tr><td>{@link #backend()}</td><td>{@code slime4j.udp.backend}</td>
 *     <td>{@code SLIME4J_UDP_BACKEND}</td><td>{@code auto}</td></tr>
 * <tr><td>{@link #pathMtu()}</td><td>{@code slime4j.udp.pathMtu}</td>
 *     <td>{@code SLIME4J_UDP_PATH_MTU}</td><td>0: the bound interface's MTU</td></tr>
 * <tr><td>{@link #fragmentation()}</td><td>{@code slime4j.udp.fragmentation}</td>
 *     <td>{@code SLIME4J_UDP_FRAGMENTATION}</td><td>{@code false}</td></tr>
 * <tr><td>{@link #gso()}</td><td>{@code slime4j.udp.gso}</td>
 *     <td>{@code SLIME4J_UDP_GSO}</td><td>{@code true}</td></tr>
 * <tr><td>{@link #gro()}</td><td>{@code slime4j.udp.gro}</td>
 *     <td>{@code SLIME4J_UDP_GRO}</td><td>{@code true}</td></tr>
 * </table>
 *
 * <p>Sizes are bytes, optionally with a binary suffix: {@code 4194304}, {@code 4096k},
 * {@code 4m} (also {@code KiB}, {@code MiB}).
 *
 * @param receiveBufferSize SO_RCVBUF requested for each channel, 4 KiB..1 GiB. The kernel may grant
 *                          less (Linux clamps to {@code net.core.rmem_max} and reports twice the
 *                          usable size); the port logs what it got at debug and reports it in
 *                          {@link UdpPort#receiveBufferSize()}. A small buffer drops bursts, which
 *                          the engine recovers from by retransmission, slowly.
 * @param sendBufferSize    SO_SNDBUF requested for each channel, 4 KiB..1 GiB (Linux clamps to
 *                          {@code net.core.wmem_max}); when it is full, {@code send} returns false
 * @param maxDatagramSize   largest datagram sent or received, 512..65,507 bytes. The default is the
 *                          largest UDP payload over IPv4 (65,535 minus the 8-byte UDP and 20-byte IP
 *                          headers), so that every engine MTU (at most 65,000 bytes plus its
 *                          64-byte header) fits. Larger received datagrams are dropped and counted.
 *                          Off loopback, datagrams above the path MTU are fragmented by IP and one lost
 *                          fragment loses the datagram: choose the engine's MTU for the network, not
 *                          this limit.
 * @param advertisedAddress the address ports advertise to peers instead of their bound one (NAT,
 *                          relays; or a host for a wildcard bind), or empty for none: {@code udp:HOST}
 *                          keeps the bound ports; {@code udp:HOST:PORT/PRIORITY_PORT} replaces both
 *                          (0 keeps the bound one); {@code udp:HOST:PORT} advertises a single-socket
 *                          rail (peers send priority datagrams to the data port too). It applies to
 *                          every port bound with {@link UdpWire#bind(String)}; give each rail its own
 *                          with {@link UdpWire#bind(String, String)}.
 * @param backend           what drives the sockets: {@link Backend#NIO}, {@link Backend#NATIVE} or
 *                          {@link Backend#AUTO} (native where it can run, else NIO)
 * @param pathMtu           the IP MTU of the path to the peers, 576..65,536, or 0 (the default) for
 *                          the MTU of the interface the rail is bound on (for a wildcard bind, the
 *                          smallest MTU of the interfaces that are up, loopback aside).
 *                          {@link UdpPort#pathPacketSize()} is the largest datagram that fits it, and
 *                          the engine's default payload per packet follows from that (60 KiB on
 *                          loopback, 1,408 bytes at an MTU of 1,500)
 * @param fragmentation     whether datagrams larger than the path MTU may be IP-fragmented. False
 *                          (the default) sets the don't-fragment bit ({@code IP_MTU_DISCOVER =
 *                          IP_PMTUDISC_DO}): a datagram that does not fit fails to send, counted and
 *                          logged once, instead of travelling as fragments that die together
 * @param gso               whether the native backend sends runs of same-size datagrams to one peer
 *                          in one {@code sendmsg} with {@code UDP_SEGMENT} (Linux 4.18+; the port
 *                          falls back to one datagram per call, logged once, where the kernel refuses)
 * @param gro               whether the native backend asks the kernel to coalesce received datagrams
 *                          ({@code UDP_GRO}, Linux 5.0+) and splits them again itself
 */
public record UdpConfig(int receiveBufferSize, int sendBufferSize, int maxDatagramSize, String advertisedAddress,
                        Backend backend, int pathMtu, boolean fragmentation, boolean gso, boolean gro) {

    /**
     * What drives a port's sockets. Both behave the same towards the engine and peers; the native
     * one is faster (see docs/PERFORMANCE.md).
     */
    public enum Backend {
        /** Java NIO {@link java.nio.channels.DatagramChannel}s: runs everywhere, needs no flag. */
        NIO,
        /**
         * Sockets driven by libc calls through the FFM API: the engine's payloads are sent straight
         * from registered memory ({@code sendmsg} with two parts) and nothing is allocated per
         * datagram. Linux on x86_64 or aarch64, and the JVM must grant native access to this module
         * ({@code --enable-native-access=io.slime4j.core}, or {@code =ALL-UNNAMED} on the class
         * path); binding fails with a message saying which is missing otherwise.
         */
        NATIVE,
        /** {@link #NATIVE} where it can run, else {@link #NIO}: the default. */
        AUTO;

        /** Whether the native backend can run in this JVM. */
        public static boolean nativeAvailable() {
            return Libc.unavailability() == null;
        }

        /** Why the native backend cannot run in this JVM, or null when it can. */
        public static Throwable nativeUnavailability() {
            return Libc.unavailability();
        }

        /** NIO or NATIVE: what this choice means in this JVM. */
        public Backend resolve() {
            return this == AUTO ? (nativeAvailable() ? NATIVE : NIO) : this;
        }
    }

    /** System property of {@link #backend()}: {@code auto}, {@code nio} or {@code native}. */
    public static final String BACKEND_PROPERTY = "slime4j.udp.backend";

    /** Settings with the {@link Backend#AUTO} backend and the path's defaults. */
    public UdpConfig(int receiveBufferSize, int sendBufferSize, int maxDatagramSize, String advertisedAddress) {
        this(receiveBufferSize, sendBufferSize, maxDatagramSize, advertisedAddress, Backend.AUTO, 0, false, true, true);
    }

    /** Smallest {@link #pathMtu()} accepted (besides 0): 576 bytes, the IPv4 minimum datagram. */
    public static final int MIN_PATH_MTU = 576;
    /** Largest {@link #pathMtu()} accepted: 65,536 bytes (Linux loopback). */
    public static final int MAX_PATH_MTU = 65_536;
    /** System property of {@link #pathMtu()}. */
    public static final String PATH_MTU_PROPERTY = "slime4j.udp.pathMtu";
    /** System property of {@link #fragmentation()}. */
    public static final String FRAGMENTATION_PROPERTY = "slime4j.udp.fragmentation";
    /** System property of {@link #gso()}. */
    public static final String GSO_PROPERTY = "slime4j.udp.gso";
    /** System property of {@link #gro()}. */
    public static final String GRO_PROPERTY = "slime4j.udp.gro";

    /** Default of {@link #receiveBufferSize()} and {@link #sendBufferSize()}: 4 MiB. */
    public static final int DEFAULT_BUFFER_SIZE = 4 << 20;
    /** Smallest socket buffer size accepted: 4 KiB. */
    public static final int MIN_BUFFER_SIZE = 4 << 10;
    /** Largest socket buffer size accepted: 1 GiB. */
    public static final int MAX_BUFFER_SIZE = 1 << 30;
    /** Largest UDP payload over IPv4, and the default {@link #maxDatagramSize()}: 65,507 bytes. */
    public static final int MAX_DATAGRAM_SIZE = 65_507;
    /** Smallest {@link #maxDatagramSize()} accepted: 512 bytes. */
    public static final int MIN_DATAGRAM_SIZE = 512;

    /** System property of {@link #receiveBufferSize()}. */
    public static final String RECEIVE_BUFFER_SIZE_PROPERTY = "slime4j.udp.receiveBufferSize";
    /** System property of {@link #sendBufferSize()}. */
    public static final String SEND_BUFFER_SIZE_PROPERTY = "slime4j.udp.sendBufferSize";
    /** System property of {@link #maxDatagramSize()}. */
    public static final String MAX_DATAGRAM_SIZE_PROPERTY = "slime4j.udp.maxDatagramSize";
    /** System property of {@link #advertisedAddress()}. */
    public static final String ADVERTISED_ADDRESS_PROPERTY = "slime4j.udp.advertisedAddress";

    /**
     * Validates the settings.
     *
     * @throws IllegalArgumentException naming the setting if one is out of range or the advertised
     *                                  address is not a udp address text
     */
    public UdpConfig {
        requireRange("receiveBufferSize", receiveBufferSize, MIN_BUFFER_SIZE, MAX_BUFFER_SIZE);
        requireRange("sendBufferSize", sendBufferSize, MIN_BUFFER_SIZE, MAX_BUFFER_SIZE);
        requireRange("maxDatagramSize", maxDatagramSize, MIN_DATAGRAM_SIZE, MAX_DATAGRAM_SIZE);
        if (pathMtu != 0) {
            requireRange("pathMtu (0 for the interface's)", pathMtu, MIN_PATH_MTU, MAX_PATH_MTU);
        }
        if (backend == null) {
            throw new IllegalArgumentException("backend must not be null (auto, nio or native)");
        }
        advertisedAddress = advertisedAddress == null ? "" : advertisedAddress.strip();
        if (!advertisedAddress.isEmpty()) {
            UdpAddress.Parsed p;
            try {
                p = UdpAddress.Parsed.of(advertisedAddress);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("advertisedAddress: " + e.getMessage(), e);
            }
            if (!p.hasHost()) {
                throw new IllegalArgumentException("advertisedAddress must name a host, was '" + advertisedAddress + "'");
            }
        }
    }

    private static void requireRange(String name, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + " must be in " + min + ".." + max + ", was " + value);
        }
    }

    /** The defaults, ignoring system properties and environment variables. */
    public static UdpConfig defaults() {
        return builder().build();
    }

    /**
     * The settings given by system properties, else environment variables, else the defaults.
     *
     * @throws IllegalArgumentException naming the property or variable if a value is malformed or
     *                                  out of range
     */
    public static UdpConfig fromEnvironment() {
        return builder().applyEnvironment(System::getProperty, System::getenv).build();
    }

    /** A builder holding the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding these settings. */
    public Builder toBuilder() {
        return new Builder().receiveBufferSize(receiveBufferSize).sendBufferSize(sendBufferSize)
                .maxDatagramSize(maxDatagramSize).advertisedAddress(advertisedAddress).backend(backend).pathMtu(pathMtu)
                .fragmentation(fragmentation).gso(gso).gro(gro);
    }

    /** The environment variable name of a {@code slime4j.udp.*} property, e.g. {@code SLIME4J_UDP_SEND_BUFFER_SIZE}. */
    static String environmentName(String property) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < property.length(); i++) {
            char c = property.charAt(i);
            if (c == '.') {
                sb.append('_');
            } else if (Character.isUpperCase(c)) {
                sb.append('_').append(c);
            } else {
                sb.append(Character.toUpperCase(c));
            }
        }
        return sb.toString();
    }

    /**
     * Parses a byte size: digits with an optional suffix {@code k}, {@code m}, {@code g},
     * {@code KiB}, {@code MiB}, {@code GiB} (binary multiples, any case).
     *
     * @throws IllegalArgumentException naming {@code source} if malformed or above 2^31-1
     */
    static int parseSize(String source, String value) {
        String v = value.strip().toLowerCase(Locale.ROOT);
        int shift = 0;
        for (String[] suffix : new String[][] {{"kib", "10"}, {"mib", "20"}, {"gib", "30"}, {"k", "10"}, {"m", "20"},
                {"g", "30"}}) {
            if (v.endsWith(suffix[0])) {
                v = v.substring(0, v.length() - suffix[0].length()).strip();
                shift = Integer.parseInt(suffix[1]);
                break;
            }
        }
        try {
            long n = Long.parseLong(v);
            if (n < 0 || (n << shift) >>> shift != n || (n << shift) > Integer.MAX_VALUE) {
                throw new NumberFormatException();
            }
            return (int) (n << shift);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(source + " must be a byte size such as 4194304, 4096k or 4m, was '"
                    + value + "'");
        }
    }

    /** Builds a {@link UdpConfig}; defaults in the field initialisers. */
    public static final class Builder {
        private int receiveBufferSize = DEFAULT_BUFFER_SIZE;
        private int sendBufferSize = DEFAULT_BUFFER_SIZE;
        private int maxDatagramSize = MAX_DATAGRAM_SIZE;
        private String advertisedAddress = "";
        private Backend backend = Backend.AUTO;
        private int pathMtu;
        private boolean fragmentation;
        private boolean gso = true;
        private boolean gro = true;

        private Builder() {
        }

        /** Sets {@link UdpConfig#receiveBufferSize()}. */
        public Builder receiveBufferSize(int v) { receiveBufferSize = v; return this; }

        /** Sets {@link UdpConfig#sendBufferSize()}. */
        public Builder sendBufferSize(int v) { sendBufferSize = v; return this; }

        /** Sets {@link UdpConfig#maxDatagramSize()}. */
        public Builder maxDatagramSize(int v) { maxDatagramSize = v; return this; }

        /** Sets {@link UdpConfig#advertisedAddress()}; null or empty for none. */
        public Builder advertisedAddress(String v) { advertisedAddress = v; return this; }

        /** Sets {@link UdpConfig#backend()}. */
        public Builder backend(Backend v) { backend = v; return this; }

        /** Sets {@link UdpConfig#pathMtu()}; 0 for the interface's. */
        public Builder pathMtu(int v) { pathMtu = v; return this; }

        /** Sets {@link UdpConfig#fragmentation()}. */
        public Builder fragmentation(boolean v) { fragmentation = v; return this; }

        /** Sets {@link UdpConfig#gso()}. */
        public Builder gso(boolean v) { gso = v; return this; }

        /** Sets {@link UdpConfig#gro()}. */
        public Builder gro(boolean v) { gro = v; return this; }

        /**
         * Overrides each setting that {@code properties} (by property name) or else
         * {@code environment} (by variable name) defines; blank values count as undefined.
         *
         * @throws IllegalArgumentException naming the property or variable if a size is malformed or
         *                                  out of range
         */
        Builder applyEnvironment(UnaryOperator<String> properties, UnaryOperator<String> environment) {
            String v;
            if ((v = lookup(RECEIVE_BUFFER_SIZE_PROPERTY, properties, environment)) != null) {
                receiveBufferSize = size(RECEIVE_BUFFER_SIZE_PROPERTY, properties, v, MIN_BUFFER_SIZE, MAX_BUFFER_SIZE);
            }
            if ((v = lookup(SEND_BUFFER_SIZE_PROPERTY, properties, environment)) != null) {
                sendBufferSize = size(SEND_BUFFER_SIZE_PROPERTY, properties, v, MIN_BUFFER_SIZE, MAX_BUFFER_SIZE);
            }
            if ((v = lookup(MAX_DATAGRAM_SIZE_PROPERTY, properties, environment)) != null) {
                maxDatagramSize = size(MAX_DATAGRAM_SIZE_PROPERTY, properties, v, MIN_DATAGRAM_SIZE, MAX_DATAGRAM_SIZE);
            }
            if ((v = lookup(ADVERTISED_ADDRESS_PROPERTY, properties, environment)) != null) {
                advertisedAddress = v;
            }
            if ((v = lookup(BACKEND_PROPERTY, properties, environment)) != null) {
                backend = switch (v.strip().toLowerCase(Locale.ROOT)) {
                    case "auto" -> Backend.AUTO;
                    case "nio" -> Backend.NIO;
                    case "native" -> Backend.NATIVE;
                    default -> throw new IllegalArgumentException(source(BACKEND_PROPERTY, properties)
                            + " must be auto, nio or native, was '" + v + "'");
                };
            }
            if ((v = lookup(PATH_MTU_PROPERTY, properties, environment)) != null) {
                pathMtu = parseSize(source(PATH_MTU_PROPERTY, properties), v);
                if (pathMtu != 0 && (pathMtu < MIN_PATH_MTU || pathMtu > MAX_PATH_MTU)) {
                    throw new IllegalArgumentException(source(PATH_MTU_PROPERTY, properties) + " must be 0 (the "
                            + "interface's) or in " + MIN_PATH_MTU + ".." + MAX_PATH_MTU + ", was '" + v + "'");
                }
            }
            if ((v = lookup(FRAGMENTATION_PROPERTY, properties, environment)) != null) {
                fragmentation = bool(FRAGMENTATION_PROPERTY, properties, v);
            }
            if ((v = lookup(GSO_PROPERTY, properties, environment)) != null) {
                gso = bool(GSO_PROPERTY, properties, v);
            }
            if ((v = lookup(GRO_PROPERTY, properties, environment)) != null) {
                gro = bool(GRO_PROPERTY, properties, v);
            }
            return this;
        }

        private static boolean bool(String property, UnaryOperator<String> properties, String value) {
            return switch (value.strip().toLowerCase(Locale.ROOT)) {
                case "true", "on", "yes", "1" -> true;
                case "false", "off", "no", "0" -> false;
                default -> throw new IllegalArgumentException(source(property, properties)
                        + " must be true or false, was '" + value + "'");
            };
        }

        private static int size(String property, UnaryOperator<String> properties, String value, int min, int max) {
            String source = source(property, properties);
            int n = parseSize(source, value);
            if (n < min || n > max) {
                throw new IllegalArgumentException(source + " must be in " + min + ".." + max + ", was '" + value + "'");
            }
            return n;
        }

        private static String lookup(String property, UnaryOperator<String> properties,
                                     UnaryOperator<String> environment) {
            String v = properties.apply(property);
            if (v == null || v.isBlank()) {
                v = environment.apply(environmentName(property));
            }
            return v == null || v.isBlank() ? null : v;
        }

        private static String source(String property, UnaryOperator<String> properties) {
            String v = properties.apply(property);
            return v == null || v.isBlank() ? "environment variable " + environmentName(property)
                    : "system property " + property;
        }

        /**
         * The config.
         *
         * @throws IllegalArgumentException if a setting is out of range
         */
        public UdpConfig build() {
            return new UdpConfig(receiveBufferSize, sendBufferSize, maxDatagramSize, advertisedAddress, backend,
                    pathMtu, fragmentation, gso, gro);
        }
    }

    /**
     * The settings {@link #fromEnvironment()} reads, in declaration order: each system property
     * (key) with its environment variable (value). The property's last part names the record
     * component, so tools such as {@code slime4j info} can show the value in effect.
     */
    public static java.util.Map<String, String> environmentSettings() {
        java.util.Map<String, String> m = new java.util.LinkedHashMap<>();
        for (String p : new String[] {RECEIVE_BUFFER_SIZE_PROPERTY, SEND_BUFFER_SIZE_PROPERTY, MAX_DATAGRAM_SIZE_PROPERTY,
                ADVERTISED_ADDRESS_PROPERTY, BACKEND_PROPERTY, PATH_MTU_PROPERTY, FRAGMENTATION_PROPERTY, GSO_PROPERTY,
                GRO_PROPERTY}) {
            m.put(p, environmentName(p));
        }
        return java.util.Collections.unmodifiableMap(m);
    }
}
