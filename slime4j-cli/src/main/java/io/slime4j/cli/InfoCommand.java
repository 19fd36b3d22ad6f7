package io.slime4j.cli;

import io.slime4j.endpoint.EndpointConfig;
import io.slime4j.shm.HostIdentity;
import io.slime4j.shm.ShmDevice;
import io.slime4j.shm.TransportChoice;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.VerbsDevice;
import io.slime4j.wire.udp.PathMtu;
import io.slime4j.wire.udp.UdpConfig;
import io.slime4j.wire.udp.UdpPort;
import io.slime4j.wire.udp.UdpWire;
import java.io.PrintStream;
import java.lang.reflect.RecordComponent;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code slime4j info}: the JDK and OS, the wires that can run here, and every setting read from
 * the environment with its value in effect and where that value came from.
 */
@Command(name = "info", usageHelpAutoWidth = true,
        description = {"Show the JDK, the wires and every setting with its value and source.", "",
            "Every setting is listed with its system property (-Dslime4j...), its environment variable (SLIME4J_...), "
                    + "the value in effect and where it came from (default, system property, environment).", ""})
final class InfoCommand implements Callable<Integer> {
    private static final String LOG_LEVEL = "org.slf4j.simpleLogger.defaultLogLevel";

    @Spec
    CommandSpec spec;

    @Mixin
    DebugOption debug;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help.")
    boolean help;

    @Override
    public Integer call() {
        PrintStream out = Main.out(spec);
        Runtime.Version v = Runtime.version();
        out.printf("slime4j %s%n", version());
        out.printf("JDK      %s (%s) at %s%n", v, System.getProperty("java.vendor"), System.getProperty("java.home"));
        out.printf("OS       %s %s %s, %d processors, max heap %s%n", System.getProperty("os.name"),
                System.getProperty("os.version"), System.getProperty("os.arch"),
                Runtime.getRuntime().availableProcessors(), Sizes.format(Runtime.getRuntime().maxMemory()));
        out.println();
        out.println("wires");
        out.printf("  %-8s %s%n", "udp", udp());
        out.printf("  %-8s %s%n", "inproc", "available (both sides in one process; perf --wire inproc)");
        out.printf("  %-8s %s%n", "shm", shm());
        out.println();
        udpPaths(out);
        out.println();
        out.println("settings");
        out.printf("  %-34s %-34s %-14s %s%n", "system property", "environment variable", "value", "from");
        int bad = settings(out, UdpConfig.environmentSettings(), UdpConfig.class, UdpConfig::defaults,
                UdpConfig::fromEnvironment);
        bad += settings(out, EndpointConfig.environmentSettings(), EndpointConfig.class, EndpointConfig::defaults,
                EndpointConfig::fromEnvironment);
        String level = System.getProperty(LOG_LEVEL);
        out.printf("  %-34s %-34s %-14s %s%n", LOG_LEVEL, "-", level != null ? level : "warn",
                level != null ? "system property" : "default (the command's simplelogger.properties)");
        return bad == 0 ? 0 : 1;
    }

    private static String version() {
        String v = InfoCommand.class.getPackage().getImplementationVersion();
        return v == null ? "(development build)" : v;
    }

    /** Whether the shared-memory device runs here, this process's host identity and the engines' transport setting. */
    private static String shm() {
        String why = ShmDevice.unavailability();
        if (why != null) {
            return "NOT available: " + why;
        }
        String setting;
        try {
            setting = TransportChoice.fromEnvironment().name().toLowerCase(java.util.Locale.ROOT);
        } catch (IllegalArgumentException e) {
            setting = "INVALID (" + e.getMessage() + ")";
        }
        String host;
        try {
            host = HostIdentity.current().toText();
        } catch (RuntimeException e) {
            host = "unknown (" + e.getMessage() + ")";
        }
        return "available (two processes on this host; perf --wire shm; engines reach same-host peers through it:"
                + " slime4j.transport=" + setting + "), host identity " + host;
    }

    private static String udp() {
        try (UdpWire wire = new UdpWire(UdpConfig.defaults())) {
            UdpConfig.Backend backend = UdpConfig.fromEnvironment().backend().resolve();
            String why = backend == UdpConfig.Backend.NIO && UdpConfig.Backend.nativeUnavailability() != null
                    ? "; native not available: " + UdpConfig.Backend.nativeUnavailability().getMessage() : "";
            return wire.isAvailable() ? "available (perf's default; two processes or two hosts), backend "
                    + backend.name().toLowerCase(Locale.ROOT) + why
                    : "NOT available: " + wire.unavailabilityCause();
        } catch (RuntimeException e) {
            return "NOT available: " + e.getMessage();
        }
    }

    /**
     * What the UDP wire chooses here: the datagram size per interface (the default payload per
     * packet follows from it, never IP-fragmented) and the kernel offloads a rail gets.
     */
    private static void udpPaths(PrintStream out) {
        out.println("udp datagram size (the default payload per packet: the largest datagram the path MTU allows, "
                + "less the 64-byte header, at most " + Sizes.format(QpConfig.DEFAULT_MAX_MTU) + ")");
        UdpConfig config;
        try {
            config = UdpConfig.fromEnvironment();
        } catch (IllegalArgumentException e) {
            out.println("  (settings invalid, see below)");
            return;
        }
        if (config.pathMtu() != 0) {
            out.printf("  every rail: path MTU %d (configured): datagrams up to %d bytes, payload %d%n", config.pathMtu(),
                    Math.min(config.maxDatagramSize(), config.pathMtu() - 28),
                    Math.min(QpConfig.DEFAULT_MAX_MTU, Math.min(config.maxDatagramSize(), config.pathMtu() - 28) - 64));
        } else {
            for (String line : PathMtu.describeInterfaces(64, QpConfig.DEFAULT_MAX_MTU)) {
                out.println("  " + line);
            }
            out.println("  a rail takes its bound interface's; a wildcard bind the smallest MTU of those up");
        }
        out.println("  fragmentation " + (config.fragmentation() ? "allowed (slime4j.udp.fragmentation)"
                : "never (don't-fragment set; too large a datagram fails to send)"));
        try (UdpWire wire = new UdpWire(config); UdpPort port = wire.bind("udp:127.0.0.1:0")) {
            out.printf("udp offloads  %s (%s backend)%n", port.offloads(), port.backend().name().toLowerCase(Locale.ROOT));
        } catch (RuntimeException e) {
            out.println("udp offloads  unknown: " + e.getMessage());
        }
    }

    /** Prints one line per setting; returns 1 if the environment holds an invalid value. */
    private static int settings(PrintStream out, Map<String, String> settings, Class<? extends Record> type,
                                Supplier<? extends Record> defaults, Supplier<? extends Record> current) {
        Record effective;
        String error = null;
        try {
            effective = current.get();
        } catch (IllegalArgumentException e) {
            effective = null;
            error = e.getMessage();
        }
        for (Map.Entry<String, String> s : settings.entrySet()) {
            String property = System.getProperty(s.getKey());
            String variable = System.getenv(s.getValue());
            String from = property != null && !property.isBlank() ? "system property"
                    : variable != null && !variable.isBlank() ? "environment" : "default";
            String value;
            if (effective != null) {
                value = text(component(type, s.getKey(), effective));
            } else if (from.equals("default")) {
                value = text(component(type, s.getKey(), defaults.get()));
            } else {
                value = (from.equals("system property") ? property : variable) + " (invalid)";
            }
            if (s.getKey().endsWith(".maxRequestBytes") && value.equals("0")) {
                value = "0 (the device's: " + Sizes.format(VerbsDevice.DEFAULT_REQUEST_BYTES) + " on udp and inproc, "
                        + Sizes.format(ShmDevice.PREFERRED_REQUEST_BYTES) + " on shm)";
            }
            out.printf("  %-34s %-34s %-14s %s%n", s.getKey(), s.getValue(), value, from);
        }
        if (error != null) {
            out.println("  INVALID: " + error);
            return 1;
        }
        return 0;
    }

    private static Object component(Class<? extends Record> type, String property, Record value) {
        String name = property.substring(property.lastIndexOf('.') + 1);
        for (RecordComponent c : type.getRecordComponents()) {
            if (c.getName().equals(name)) {
                try {
                    return c.getAccessor().invoke(value);
                } catch (ReflectiveOperationException e) {
                    return "?";
                }
            }
        }
        return "?";
    }

    private static String text(Object v) {
        if (v == null) {
            return "(by qps)"; // the selector: single for one QP, striped for more
        }
        String s = String.valueOf(v);
        return s.isEmpty() ? "(none)" : s;
    }
}
