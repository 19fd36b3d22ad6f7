package io.slime4j.cli;

import io.slime4j.verbs.Counter;
import io.slime4j.endpoint.EndpointConfig;
import io.slime4j.shm.SharedMemory;
import io.slime4j.shm.ShmConfig;
import io.slime4j.shm.ShmDevice;
import io.slime4j.soft.SoftConfig;
import io.slime4j.soft.SoftDevice;
import io.slime4j.soft.SoftCounter;
import io.slime4j.soft.SoftCounters;
import io.slime4j.verbs.VerbsDevice;
import io.slime4j.wire.Wire;
import io.slime4j.wire.udp.UdpConfig;
import io.slime4j.wire.udp.UdpWire;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet6Address;
import java.net.InetAddress;

/**
 * What both sides of {@code perf} open: a wire and a soft device on it (or, for {@code --wire shm},
 * an shm device and {@link SharedMemory} buffers), and the endpoint settings.
 */
final class PerfEndpoints {
    /** The transport counters every result row reports, summed over both sides. */
    static final Counter[] REPORTED = {Counter.RETRANSMITS, Counter.DUPLICATES, Counter.TIMEOUTS};

    private PerfEndpoints() {}

    /** A UDP wire with the {@code slime4j.udp.*} settings of the environment. */
    static UdpWire udpWire() {
        return new UdpWire(UdpConfig.fromEnvironment());
    }

    /**
     * A device on {@code wire}: for UDP bound to {@code local} (the address the peer reaches us by),
     * any port; its progress thread spins when idle if {@code busyPoll}, else backs off to blocking.
     */
    static SoftDevice device(Wire wire, InetAddress local, String name, boolean busyPoll) {
        String address;
        if (wire instanceof UdpWire) {
            String host = local.getHostAddress();
            address = "udp:" + (local instanceof Inet6Address ? "[" + host + "]" : host) + ":0";
        } else {
            address = "inproc:" + name;
        }
        return SoftDevice.open(wire, address, SoftConfig.builder().name(name).busySpin(busyPoll).build());
    }

    /**
     * The device of one side: an shm device when {@code shm}, else a soft device on {@code wire};
     * busy-polling when {@code busyPoll} (for shm also when {@code slime4j.shm.busyPoll} is true).
     */
    static VerbsDevice device(boolean shm, Wire wire, InetAddress local, String name, boolean busyPoll) {
        if (shm) {
            ShmConfig.Builder b = ShmConfig.fromEnvironment().name(name);
            if (busyPoll) {
                b.busyPoll(true);
            }
            return ShmDevice.open(b.build());
        }
        return device(wire, local, name, busyPoll);
    }

    /** The buffer of one side: shared memory for shm (peers map it: one memcpy), else plain off-heap memory. */
    static MemorySegment allocate(boolean shm, Arena arena, long bytes) {
        return shm ? SharedMemory.allocate(bytes, arena) : arena.allocate(bytes, 4096);
    }

    /**
     * The endpoint settings of one side: the environment's {@code slime4j.endpoint.*}, then the
     * run's queue pairs, selector, signaling and MTU (0 keeps the default).
     *
     * @throws IllegalArgumentException if a setting is out of range or not available in this build
     */
    static EndpointConfig config(String name, int qps, String selector, int signalEvery, int mtu) {
        EndpointConfig.Builder b = EndpointConfig.fromEnvironment().toBuilder().name(name).qps(qps);
        if (mtu != 0) {
            b.qpTemplate(io.slime4j.verbs.QpConfig.defaults().toBuilder().mtu(mtu).build());
        }
        applySelectorAndSignaling(b, selector, signalEvery);
        return b.build();
    }

    /**
     * Applies {@code --selector} (a built-in selector's name; null keeps the endpoint's default) and
     * {@code --signal-every} (0 keeps the endpoint's default). An unknown selector name is an
     * {@link IllegalArgumentException} naming the known ones.
     */
    private static void applySelectorAndSignaling(EndpointConfig.Builder b, String selector, int signalEvery) {
        if (selector != null) {
            b.selector(selector);
        }
        if (signalEvery != 0) {
            b.signalEvery(signalEvery);
        }
    }

    /** The reported counters of {@code device} (zeros where it has no retransmitting wire, e.g. shm). */
    static long[] snapshot(VerbsDevice device) {
        long[] v = new long[REPORTED.length];
        for (int i = 0; i < v.length; i++) {
            v[i] = device.counters().get(REPORTED[i]);
        }
        return v;
    }
}
