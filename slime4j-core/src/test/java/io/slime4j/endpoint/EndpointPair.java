package io.slime4j.endpoint;

import io.slime4j.verbs.Counter;
import io.slime4j.soft.SoftCounters;
import io.slime4j.soft.SoftCounter;
import static org.assertj.core.api.Assertions.assertThat;

import io.slime4j.shm.ShmConfig;
import io.slime4j.shm.ShmDevice;
import io.slime4j.soft.SoftConfig;
import io.slime4j.soft.SoftDevice;
import io.slime4j.verbs.VerbsDevice;
import io.slime4j.verbs.QpConfig;
import io.slime4j.wire.inproc.FaultConfig;
import io.slime4j.wire.inproc.InprocWire;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

/**
 * Two connected endpoints {@link #a} and {@link #b} on two soft devices of one in-process wire (or,
 * inside {@link #onShm} or {@link #onBusyPollingShm}, on two shm devices),
 * each with a region "kv" of {@code regionBytes} (and "src"/"dst" halves are up to the test).
 * Closing checks that the endpoints are clean (no detector fired) and, unless told otherwise, that
 * neither device ever sent or received an RNR NAK.
 */
final class EndpointPair implements AutoCloseable {
    private static final AtomicInteger N = new AtomicInteger();

    final InprocWire wire;
    final VerbsDevice deviceA;
    final VerbsDevice deviceB;
    final RdmaEndpoint a;
    final RdmaEndpoint b;
    final MemorySegment kvA;
    final MemorySegment kvB;
    /** Whether a caller waiting for an op spins (drives a busy-polling device) instead of blocking. */
    final boolean waitersSpin;
    private final Arena arena = Arena.ofShared();
    boolean expectNoRnr = true;

    private EndpointPair(EndpointConfig config, FaultConfig faults, long regionBytes, EndpointHooks hooks,
                         UnaryOperator<SoftConfig.Builder> device) {
        int n = N.incrementAndGet();
        wire = new InprocWire(faults);
        Boolean shmBusyPoll = ON_SHM.get();
        waitersSpin = shmBusyPoll != null && shmBusyPoll;
        if (shmBusyPoll != null) {
            if (faults.dropRate() > 0 || faults.duplicateRate() > 0 || faults.reorderRate() > 0) {
                throw new IllegalArgumentException("shm devices have no wire to inject faults into");
            }
            deviceA = ShmDevice.open(ShmConfig.builder().name("ep-a" + n).busyPoll(shmBusyPoll).build());
            deviceB = ShmDevice.open(ShmConfig.builder().name("ep-b" + n).busyPoll(shmBusyPoll).build());
        } else {
            deviceA = SoftDevice.open(wire, "ep-a" + n, device.apply(SoftConfig.builder()).name("ep-a" + n).build());
            deviceB = SoftDevice.open(wire, "ep-b" + n, device.apply(SoftConfig.builder()).name("ep-b" + n).build());
        }
        a = RdmaEndpoint.open(deviceA, config.toBuilder().name("a" + n).build(), hooks);
        b = RdmaEndpoint.open(deviceB, config.toBuilder().name("b" + n).build(), hooks);
        kvA = arena.allocate(regionBytes, 4096);
        kvB = arena.allocate(regionBytes, 4096);
        registerAndConnect(a, kvA, b, kvB);
    }

    /** Registers region "kv" on both endpoints and connects them, the descriptions exchanged as JSON as two processes would. */
    static void registerAndConnect(RdmaEndpoint a, MemorySegment kvA, RdmaEndpoint b, MemorySegment kvB) {
        a.register("kv", kvA);
        b.register("kv", kvB);
        EndpointInfo infoA = EndpointInfo.fromJson(a.info().toJson());
        EndpointInfo infoB = EndpointInfo.fromJson(b.info().toJson());
        a.connect(infoB);
        b.connect(infoA);
    }

    /** Null: soft devices; otherwise shm devices, busy-polling when true. */
    private static final ThreadLocal<Boolean> ON_SHM = new ThreadLocal<>();

    /** Something a test runs, which may throw. */
    interface Body {
        void run() throws Exception;
    }

    /** Runs {@code body} with every pair this thread opens meanwhile on two shm devices instead. */
    static void onShm(Body body) throws Exception {
        onShm(false, body);
    }

    /** As {@link #onShm}, with busy-polling shm devices (their waiters drive them). */
    static void onBusyPollingShm(Body body) throws Exception {
        onShm(true, body);
    }

    private static void onShm(boolean busyPoll, Body body) throws Exception {
        ON_SHM.set(busyPoll);
        try {
            body.run();
        } finally {
            ON_SHM.remove();
        }
    }

    static EndpointPair open(EndpointConfig config, FaultConfig faults, long regionBytes) {
        return new EndpointPair(config, faults, regionBytes, WatchedHooks.KEEPING_ALL, UnaryOperator.identity());
    }

    static EndpointPair open(EndpointConfig config, FaultConfig faults, long regionBytes, EndpointHooks hooks) {
        return new EndpointPair(config, faults, regionBytes, hooks, UnaryOperator.identity());
    }

    /** With devices whose settings {@code device} adjusts (the name is the fixture's). */
    static EndpointPair open(EndpointConfig config, FaultConfig faults, long regionBytes, EndpointHooks hooks,
                             UnaryOperator<SoftConfig.Builder> device) {
        return new EndpointPair(config, faults, regionBytes, hooks, device);
    }

    static EndpointPair open(EndpointConfig config, long regionBytes) {
        return open(config, FaultConfig.NONE, regionBytes);
    }

    /** 10% drop, duplicate and reorder, seeded. */
    static FaultConfig faults(long seed) {
        return FaultConfig.builder().seed(seed).dropRate(0.10).duplicateRate(0.10).reorderRate(0.10).build();
    }

    /**
     * Queue pair timers for a lossy wire: the defaults (100 ms ACK timeout). Shorter timeouts recover
     * faster but let a starved machine (steal time, GC) exhaust the 7 retries within a second or two
     * and fail the queue pair with RETRY_EXC_ERR.
     */
    static QpConfig lossyQp() {
        return QpConfig.defaults();
    }

    MemorySegment allocate(long bytes) {
        return arena.allocate(bytes, 4096);
    }

    long rnrNaks() {
        return deviceA.counters().get(Counter.RNR_NAKS_SENT) + deviceA.counters().get(Counter.RNR_NAKS_RECEIVED)
                + deviceB.counters().get(Counter.RNR_NAKS_SENT) + deviceB.counters().get(Counter.RNR_NAKS_RECEIVED);
    }

    /** Asserts that no detector of either endpoint fired. */
    void assertClean() {
        for (RdmaEndpoint ep : new RdmaEndpoint[] {a, b}) {
            Stats s = ep.stats();
            assertThat(s.aliasedCompletions.sum()).as("aliased completions on %s", ep).isZero();
            assertThat(s.lostCompletions.sum()).as("lost completions on %s", ep).isZero();
            assertThat(s.protocolErrors.sum()).as("protocol errors on %s", ep).isZero();
            assertThat(s.dispatchErrors.sum()).as("dispatch errors on %s", ep).isZero();
            assertThat(s.windowShortAtRelease.sum()).as("slot releases with a short window on %s", ep).isZero();
        }
        io.slime4j.wire.inproc.FaultStats faults = wire.faultStats();
        if (wire.faults().dropRate() > 0 && faults.packetsSent() > 1000) {
            assertThat(faults.dropped()).as("packets dropped by the faulty wire: %s", faults).isPositive();
            assertThat(faults.duplicated()).as("packets duplicated by the faulty wire").isPositive();
            assertThat(faults.reordered()).as("packets reordered by the faulty wire").isPositive();
        }
        if (expectNoRnr) {
            assertThat(rnrNaks()).as("RNR NAKs sent or received by either device").isZero();
        }
    }

    /** Waits until every slot of both endpoints is back in its pool. */
    void awaitIdle(Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (!idle(a) || !idle(b)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("endpoints not idle within " + within + ": a io " + a.ioPool().free() + "/"
                        + a.ioPool().capacity() + " send " + a.sendPool().free() + " recv " + a.recvPool().free()
                        + "; b io " + b.ioPool().free() + " send " + b.sendPool().free() + " recv " + b.recvPool().free());
            }
            Thread.sleep(1);
        }
    }

    static boolean idle(RdmaEndpoint ep) {
        return ep.ioPool().free() == ep.ioPool().capacity() && ep.sendPool().free() == ep.sendPool().capacity()
                && ep.recvPool().free() == ep.recvPool().capacity();
    }

    @Override
    public void close() {
        try {
            a.close();
            b.close();
        } finally {
            deviceA.close();
            deviceB.close();
            wire.close();
            arena.close();
        }
    }
}
