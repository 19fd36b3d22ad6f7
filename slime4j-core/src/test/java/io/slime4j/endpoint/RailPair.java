package io.slime4j.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.soft.ProgressGroup;
import io.slime4j.soft.SoftConfig;
import io.slime4j.soft.SoftDevice;
import io.slime4j.verbs.Counter;
import io.slime4j.verbs.VerbsDevice;
import io.slime4j.wire.Wire;
import io.slime4j.wire.inproc.InprocWire;
import io.slime4j.wire.udp.UdpWire;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Two connected endpoints {@link #a} and {@link #b} with {@code rails} devices each: on the
 * in-process wire one wire per rail (so each rail's faults can be set alone: {@link #inproc}), or
 * on one UDP wire of loopback sockets, one socket per rail and side ({@link #udp}). The rails of
 * {@link #a} share one progress thread (a {@link ProgressGroup}); those of {@link #b} have one
 * each, so every multi-rail test runs both. Each endpoint has a region "kv". Closing checks that
 * no detector fired.
 */
final class RailPair implements AutoCloseable {
    private static final AtomicInteger N = new AtomicInteger();

    final List<InprocWire> inprocWires = new ArrayList<>();
    private final List<Wire> wires = new ArrayList<>();
    final List<SoftDevice> devicesA = new ArrayList<>();
    final List<SoftDevice> devicesB = new ArrayList<>();
    final RdmaEndpoint a;
    final RdmaEndpoint b;
    final MemorySegment kvA;
    final MemorySegment kvB;
    private final Arena arena = Arena.ofShared();

    private RailPair(boolean udp, int rails, EndpointConfig config, long regionBytes) {
        int n = N.incrementAndGet();
        UdpWire udpWire = udp ? new UdpWire() : null;
        ProgressGroup groupA = ProgressGroup.create("rails-a" + n);
        if (udpWire != null) {
            wires.add(udpWire);
        }
        for (int r = 0; r < rails; r++) {
            Wire w = udpWire;
            String addrA = "udp:127.0.0.1:0";
            String addrB = "udp:127.0.0.1:0";
            if (!udp) {
                InprocWire iw = new InprocWire();
                inprocWires.add(iw);
                wires.add(iw);
                w = iw;
                addrA = "rail-a" + n + "-" + r;
                addrB = "rail-b" + n + "-" + r;
            }
            devicesA.add(SoftDevice.open(w, addrA, SoftConfig.builder().name("rail-a" + n + "-" + r).build(), groupA));
            devicesB.add(SoftDevice.open(w, addrB, SoftConfig.builder().name("rail-b" + n + "-" + r).build()));
        }
        a = RdmaEndpoint.open(List.<VerbsDevice>copyOf(devicesA), config.toBuilder().name("ra" + n).build(),
                WatchedHooks.KEEPING_ALL);
        b = RdmaEndpoint.open(List.<VerbsDevice>copyOf(devicesB), config.toBuilder().name("rb" + n).build(),
                WatchedHooks.KEEPING_ALL);
        kvA = arena.allocate(regionBytes, 4096);
        kvB = arena.allocate(regionBytes, 4096);
        EndpointPair.registerAndConnect(a, kvA, b, kvB);
    }

    static RailPair inproc(int rails, EndpointConfig config, long regionBytes) {
        return new RailPair(false, rails, config, regionBytes);
    }

    static RailPair udp(int rails, EndpointConfig config, long regionBytes) {
        return new RailPair(true, rails, config, regionBytes);
    }

    /** Work requests posted on each io queue pair (lane) of {@code ep}. */
    static long[] postedPerLane(RdmaEndpoint ep) {
        Transport t = ep.transport();
        long[] out = new long[t.io.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = t.io[i].counters().get(Counter.WR_POSTED);
        }
        return out;
    }

    /** Asserts that no detector of either endpoint fired (failover may leave failed lanes). */
    void assertClean() {
        for (RdmaEndpoint ep : new RdmaEndpoint[] {a, b}) {
            Stats s = ep.stats();
            assertThat(s.aliasedCompletions.sum()).as("aliased completions on %s", ep).isZero();
            assertThat(s.lostCompletions.sum()).as("lost completions on %s", ep).isZero();
            assertThat(s.protocolErrors.sum()).as("protocol errors on %s", ep).isZero();
            assertThat(s.dispatchErrors.sum()).as("dispatch errors on %s", ep).isZero();
            assertThat(s.windowShortAtRelease.sum()).as("slot releases with a short window on %s", ep).isZero();
            assertThat(ep.router().misroutes.sum()).as("misrouted message traffic on %s", ep).isZero();
        }
    }

    @Override
    public void close() {
        try {
            a.close();
            b.close();
        } finally {
            devicesA.forEach(SoftDevice::close);
            devicesB.forEach(SoftDevice::close);
            for (Wire w : wires) {
                try {
                    w.close();
                } catch (Exception ignored) {
                    // best effort
                }
            }
            arena.close();
        }
    }
}
