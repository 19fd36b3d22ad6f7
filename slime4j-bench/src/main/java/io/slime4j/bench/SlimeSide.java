package io.slime4j.bench;

import io.slime4j.endpoint.Assignment;
import io.slime4j.endpoint.EndpointConfig;
import io.slime4j.endpoint.EndpointInfo;
import io.slime4j.endpoint.RdmaEndpoint;
import io.slime4j.endpoint.TransferFuture;
import io.slime4j.endpoint.TransferStatus;
import io.slime4j.shm.SharedMemory;
import io.slime4j.shm.ShmConfig;
import io.slime4j.shm.ShmDevice;
import io.slime4j.soft.SoftConfig;
import io.slime4j.soft.SoftCounter;
import io.slime4j.soft.SoftCounters;
import io.slime4j.soft.SoftDevice;
import io.slime4j.verbs.Counter;
import io.slime4j.verbs.Counters;
import io.slime4j.verbs.VerbsDevice;
import io.slime4j.wire.udp.UdpWire;

import java.time.Duration;
import java.lang.foreign.Arena;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * slime4j as a user runs it: an {@link RdmaEndpoint} over a {@link SoftDevice} on the UDP wire,
 * default endpoint settings; or (system "shm") over an {@link ShmDevice} with
 * {@link SharedMemory} buffers, the two processes on one host. Messages are two-sided
 * {@code send}/{@code recv} (variant "") or {@code writeWithImm}/{@code immRecv} (variant "imm");
 * bandwidth is one-sided {@code write}, and for shm also one-sided {@code read}. The "-busy"
 * systems are the same with busy-polling devices (their progress threads spin when idle; the
 * others spin briefly, then block until work arrives), offering only the send/recv rate variant.
 */
final class SlimeSide extends Side {
    /** Messages outstanding at once: half the default 64 message slots. */
    private static final int MESSAGE_WINDOW = 32;
    private UdpWire wire;
    private final boolean shm;
    private final boolean busyPoll;
    private VerbsDevice device;
    private Arena arena;
    private RdmaEndpoint ep;
    /** Counter values at the last {@link #printCounters}. */
    private final Map<String, Long> lastCounters = new HashMap<>();

    SlimeSide(CompareOptions options, Link link, boolean isA, boolean shm, boolean busyPoll) {
        super(options, link, isA);
        this.shm = shm;
        this.busyPoll = busyPoll;
    }

    @Override
    void open() throws Exception {
        long region = 1L << 20;
        for (int s : options.bandwidthSizes) {
            region = Math.max(region, (long) CompareOptions.window(s) * s);
        }
        String name = "compare-" + (isA ? "a" : "b");
        if (shm) {
            ShmConfig.Builder b = ShmConfig.fromEnvironment().name(name);
            if (busyPoll) {
                b.busyPoll(true);
            }
            device = ShmDevice.open(b.build());
        } else {
            wire = new UdpWire();
            device = SoftDevice.open(wire, "udp:127.0.0.1:0", SoftConfig.builder().name(name).busySpin(busyPoll).build());
        }
        arena = Arena.ofShared();
        // loopback never fragments a datagram: a 60 KiB MTU, as `slime4j perf` picks there (the IB-like
        // default of 4 KiB is for paths with 1500-byte links)
        ep = RdmaEndpoint.open(device, EndpointConfig.fromEnvironment().toBuilder() // e.g. SLIME4J_ENDPOINT_EAGER_THRESHOLD=0
                .qpTemplate(io.slime4j.verbs.QpConfig.defaults().toBuilder().mtu(60 << 10).build()).build());
        ep.register("src", shm ? SharedMemory.allocate(region, arena) : arena.allocate(region, 4096));
        ep.register("dst", shm ? SharedMemory.allocate(region, arena) : arena.allocate(region, 4096));
        link.toPeer("INFO " + ep.info().toJson());
        ep.connect(EndpointInfo.fromJson(link.fromPeer("INFO")));
        link.barrier("connected");
    }

    @Override
    String[] rateVariants() {
        return busyPoll ? new String[] {""} : new String[] {"", "imm"};
    }

    @Override
    void rate(String variant, int size) throws Exception {
        int count = rateCount();
        TransferFuture[] ring = new TransferFuture[MESSAGE_WINDOW];
        boolean imm = variant.equals("imm");
        if (isA) {
            for (int i = 0; i < Math.min(MESSAGE_WINDOW, count); i++) {
                ring[i] = imm ? ep.immRecv() : ep.recv("dst", (long) i * size, size);
            }
            long first = 0;
            for (int i = 0; i < count; i++) {
                int k = i % MESSAGE_WINDOW;
                join(ring[k]);
                if (i == warm()) {
                    first = System.nanoTime();
                }
                if (i + MESSAGE_WINDOW < count) {
                    ring[k] = imm ? ep.immRecv() : ep.recv("dst", (long) k * size, size);
                }
            }
            link.result("rate." + size, perSecond(count - 1 - warm(), System.nanoTime() - first));
        } else {
            for (int i = 0; i < count; i++) {
                int k = i % MESSAGE_WINDOW;
                if (ring[k] != null) {
                    join(ring[k]);
                }
                long offset = (long) k * size;
                ring[k] = imm ? ep.writeWithImm(List.of(Assignment.local("src", offset).remote("dst", offset).length(size)), i)
                        : ep.send("src", offset, size);
            }
            for (TransferFuture f : ring) {
                if (f != null) {
                    join(f);
                }
            }
        }
        printCounters("rate " + size + (imm ? " imm" : "") + (isA ? " receiver" : " sender"));
    }


    /**
     * The engine's counters since the last call (packets against datagrams, ACKs, recovery, the
     * waiter's spins), one line on stderr, which the harness shows: what a profile of the rate, round
     * trip and bandwidth rows counts per message.
     */
    private void printCounters(String label) {
        if (shm || device == null) {
            return;
        }
        Counters hw = device.counters();
        SoftCounters soft = SoftCounters.of(device);
        StringBuilder b = new StringBuilder("engine counters, " + label + ":");
        delta(b, "packets_sent", hw.get(Counter.PACKETS_SENT));
        delta(b, "packets_received", hw.get(Counter.PACKETS_RECEIVED));
        delta(b, "datagrams_sent", soft.get(SoftCounter.DATAGRAMS_SENT));
        delta(b, "coalesced_packets_sent", soft.get(SoftCounter.COALESCED_PACKETS_SENT));
        delta(b, "bundles_received", soft.get(SoftCounter.BUNDLES_RECEIVED));
        delta(b, "acks_sent", soft.get(SoftCounter.ACKS_SENT));
        delta(b, "rnr_naks_sent", hw.get(Counter.RNR_NAKS_SENT));
        delta(b, "retransmits", hw.get(Counter.RETRANSMITS));
        delta(b, "fast_retransmits", soft.get(SoftCounter.FAST_RETRANSMITS));
        delta(b, "tail_loss_probes", soft.get(SoftCounter.TAIL_LOSS_PROBES));
        delta(b, "posts_held", soft.get(SoftCounter.POSTS_HELD));
        delta(b, "waiter_spin_hits", soft.get(SoftCounter.WAITER_SPIN_HITS));
        delta(b, "waiter_blocks", soft.get(SoftCounter.WAITER_BLOCKS));
        delta(b, "waiter_spin_misses", soft.get(SoftCounter.WAITER_SPIN_MISSES));
        delta(b, "timeouts", hw.get(Counter.TIMEOUTS));
        delta(b, "out_of_order", soft.get(SoftCounter.OUT_OF_ORDER));
        delta(b, "duplicates", hw.get(Counter.DUPLICATES));
        if (!link.muted) { // a warm-up's counts are taken (the next line starts after them), not shown
            System.err.println(b);
        }
    }

    private void delta(StringBuilder b, String name, long value) {
        b.append(' ').append(name).append('=').append(value - lastCounters.getOrDefault(name, 0L));
        lastCounters.put(name, value);
    }

    @Override
    void rtt(int size) throws Exception {
        int n = options.roundTrips;
        int total = n + options.rttWarmup + 1;
        if (isA) {
            TransferFuture r = ep.recv("dst", 0, size);
            for (int i = 0; i < total; i++) {
                join(r);
                r = i + 1 < total ? ep.recv("dst", 0, size) : null;
                join(ep.send("src", 0, size));
            }
        } else {
            long[] samples = new long[n];
            for (int i = 0; i < total; i++) {
                TransferFuture r = ep.recv("dst", 0, size);
                long start = System.nanoTime();
                TransferFuture s = ep.send("src", 0, size);
                join(r);
                long t = System.nanoTime() - start;
                join(s);
                if (i >= total - n) {
                    samples[i - (total - n)] = t;
                }
            }
            reportRtt(samples);
        }
        printCounters("rtt " + size + (isA ? " echo" : " pinger"));
    }

    @Override
    boolean bandwidth(int size) throws Exception {
        if (!isA) {
            int window = CompareOptions.window(size);
            int n = options.transfers(size);
            warmBandwidth(() -> writes(size, window, Math.max(1, n / 10), false));
            long start = System.nanoTime();
            writes(size, window, n, false);
            link.result("bw." + size, (double) size * n / ((System.nanoTime() - start) / 1e3));
            printCounters("bw " + size + " writer");
            if (shm) {
                warmBandwidth(() -> writes(size, window, Math.max(1, n / 10), true));
                start = System.nanoTime();
                writes(size, window, n, true);
                link.result("bwread." + size, (double) size * n / ((System.nanoTime() - start) / 1e3));
            }
        }
        return true;
    }

    /** {@code n} one-sided writes of {@code size} bytes (reads when {@code read}), {@code window} outstanding. */
    private void writes(int size, int window, int n, boolean read) throws Exception {
        TransferFuture[] ring = new TransferFuture[window];
        int places = options.buffers(size);
        for (int i = 0; i < n; i++) {
            int k = i % window;
            if (ring[k] != null) {
                join(ring[k]);
            }
            long at = (long) (k % places) * size;
            ring[k] = read ? ep.read(Assignment.local("src", at).remote("dst", at).length(size))
                    : ep.write(Assignment.local("src", at).remote("dst", at).length(size));
        }
        for (TransferFuture f : ring) {
            if (f != null) {
                join(f);
            }
        }
    }

    private void join(TransferFuture f) throws Exception {
        TransferStatus s = f.await(Duration.ofSeconds(options.timeoutSeconds));
        if (s != TransferStatus.SUCCESS) {
            throw new IllegalStateException("slime4j " + f.kind() + " " + s + ": " + f.failureMessage());
        }
    }

    @Override
    void close() throws Exception {
        if (ep != null) {
            ep.close();
        }
        if (device != null) {
            device.close();
        }
        if (wire != null) {
            wire.close();
        }
        if (arena != null) {
            arena.close();
        }
    }
}
