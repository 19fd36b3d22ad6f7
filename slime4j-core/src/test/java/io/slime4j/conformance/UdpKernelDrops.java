package io.slime4j.conformance;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The kernel's count of UDP datagrams it dropped on receive ({@code InErrors} of the
 * {@code Udp:} lines of {@code /proc/net/snmp}, full receive buffers included), so that a test can tell a
 * retransmission the engine owed to a real loss on the wire from one it made by mistake.
 */
final class UdpKernelDrops {
    private UdpKernelDrops() {
    }

    /** The counter now; 0 where the file cannot be read (not Linux). */
    static long now() {
        try {
            List<String> udp = Files.readAllLines(Path.of("/proc/net/snmp")).stream()
                    .filter(l -> l.startsWith("Udp: ")).toList();
            if (udp.size() < 2) {
                return 0;
            }
            List<String> names = List.of(udp.get(0).split("\\s+"));
            String[] values = udp.get(1).split("\\s+");
            return value(names, values, "InErrors");
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    private static long value(List<String> names, String[] values, String name) {
        int i = names.indexOf(name);
        return i < 0 || i >= values.length ? 0 : Long.parseLong(values[i]);
    }
}
