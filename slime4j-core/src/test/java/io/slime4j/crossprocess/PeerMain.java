package io.slime4j.crossprocess;

import io.slime4j.shm.SharedMemory;
import io.slime4j.shm.ShmConfig;
import io.slime4j.shm.ShmDevice;
import io.slime4j.soft.SoftConfig;
import io.slime4j.soft.SoftDevice;
import io.slime4j.verbs.VerbsDevice;
import io.slime4j.verbs.AccessFlags;
import io.slime4j.verbs.CompletionQueue;
import io.slime4j.verbs.MemoryRegion;
import io.slime4j.verbs.ProtectionDomain;
import io.slime4j.verbs.QpConfig;
import io.slime4j.verbs.QpInfo;
import io.slime4j.verbs.QueuePair;
import io.slime4j.verbs.WorkCompletion;
import io.slime4j.verbs.WorkRequest;
import io.slime4j.wire.udp.UdpConfig;
import io.slime4j.wire.udp.UdpWire;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The passive side of the cross-process tests, run in a child JVM: a soft device on a UDP rail of
 * 127.0.0.1 that registers memory, posts receives, verifies data and reports, as told line by line
 * on stdin. Every command gets one reply line on stdout ({@code ERR message} on failure); logging
 * goes to stderr. The child exits when stdin closes (its parent is gone), on {@code EXIT}, or when
 * its watchdog ({@code --max-seconds}) fires, so that it can never outlive a test for long.
 *
 * <pre>
 * (start)                                   → QP address qpn psn token
 * CONNECT address qpn psn token             → OK
 * REGION name size                          → REGION name address length rkey   (zeroed memory)
 * FILL name seed                            → OK         (the {@link Pattern} of seed)
 * EXPECT seed size                          → OK         (the pattern CHECK compares with)
 * RECV wrId name offset length              → OK         (length 0: no scatter entry)
 * AWAIT_RECV n timeoutMillis                → RECVD k wrId/status/opcode/length/immediate,...
 * CHECK name offset length patternOffset    → MATCH | MISMATCH index
 * COUNTERS                                  → COUNTERS {...}
 * EXIT                                      → BYE
 * </pre>
 */
public final class PeerMain {
    private final PrintStream out;
    private final UdpWire wire = new UdpWire(UdpConfig.defaults());
    private final Arena arena = Arena.ofShared();
    private final VerbsDevice device;
    private final boolean sharedMemory;
    private final ProtectionDomain pd;
    private final CompletionQueue cq;
    private final QueuePair qp;
    private final Map<String, MemoryRegion> regions = new HashMap<>();
    private final WorkRequest wr = new WorkRequest();
    private MemorySegment expected;

    private PeerMain(PrintStream out, QpConfig qpConfig, boolean shm, boolean sharedMemory, String bind) {
        this.out = out;
        this.sharedMemory = sharedMemory;
        device = shm ? ShmDevice.open(ShmConfig.builder().name("peer").build())
                : SoftDevice.open(wire, bind, SoftConfig.builder().name("peer").build());
        pd = device.allocateProtectionDomain();
        cq = device.createCompletionQueue(4096);
        qp = device.createQueuePair(pd, qpConfig, cq, cq);
        qp.modifyToInit();
    }

    /**
     * Runs the peer. Options: {@code --ack-timeout-ms N}, {@code --retry-count N}, {@code --mtu N},
     * {@code --max-seconds N} (watchdog, default 300), {@code --device shm} (the shared-memory device
     * instead of soft over UDP), {@code --memory shared} (regions from {@link SharedMemory}),
     * {@code --bind ADDRESS} (default {@code udp:127.0.0.1:0}).
     */
    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        System.setOut(System.err); // nothing but replies on the protocol stream
        QpConfig.Builder qp = QpConfig.builder();
        long maxSeconds = 300;
        boolean shm = false;
        boolean shared = false;
        String bind = "udp:127.0.0.1:0";
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--ack-timeout-ms" -> qp.ackTimeout(Duration.ofMillis(Long.parseLong(args[i + 1])));
                case "--retry-count" -> qp.retryCount(Integer.parseInt(args[i + 1]));
                case "--mtu" -> qp.mtu(Integer.parseInt(args[i + 1]));
                case "--max-seconds" -> maxSeconds = Long.parseLong(args[i + 1]);
                case "--device" -> shm = args[i + 1].equals("shm");
                case "--memory" -> shared = args[i + 1].equals("shared");
                case "--bind" -> bind = args[i + 1];
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        long lifetime = maxSeconds;
        Thread.ofPlatform().daemon().name("peer-watchdog").start(() -> {
            try {
                Thread.sleep(TimeUnit.SECONDS.toMillis(lifetime));
                System.err.println("peer: watchdog fired after " + lifetime + " s; exiting");
                Runtime.getRuntime().halt(3);
            } catch (InterruptedException ignored) {
                // exiting anyway
            }
        });
        PeerMain peer = new PeerMain(out, qp.build(), shm, shared, bind);
        try {
            peer.run(new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)));
        } finally {
            peer.close();
        }
        System.exit(0);
    }

    private void run(BufferedReader in) throws Exception {
        QpInfo info = qp.localInfo();
        out.println("QP " + info.address() + " " + info.qpn() + " " + info.psn() + " " + info.token());
        String line;
        while ((line = in.readLine()) != null) {
            String[] c = line.strip().split(" ");
            try {
                if (c[0].equals("EXIT")) {
                    out.println("BYE");
                    return;
                }
                out.println(execute(c));
            } catch (Exception | AssertionError e) {
                out.println("ERR " + e.toString().replace('\n', ' '));
            }
        }
    }

    private String execute(String[] c) throws InterruptedException {
        switch (c[0]) {
            case "CONNECT" -> {
                qp.connect(new QpInfo(c[1], Integer.parseInt(c[2]), Integer.parseInt(c[3]), Long.parseLong(c[4])));
                return "OK";
            }
            case "REGION" -> {
                long size = Long.parseLong(c[2]);
                MemoryRegion r = pd.register(sharedMemory ? SharedMemory.allocate(size, arena)
                        : arena.allocate(size, 4096), AccessFlags.ALL);
                regions.put(c[1], r);
                return "REGION " + c[1] + " " + r.address() + " " + r.length() + " " + r.remoteKey();
            }
            case "FILL" -> {
                Pattern.fill(region(c[1]).segment(), Long.parseLong(c[2]));
                return "OK";
            }
            case "EXPECT" -> {
                long size = Long.parseLong(c[2]);
                if (expected == null || expected.byteSize() != size) {
                    expected = arena.allocate(size, 4096);
                }
                Pattern.fill(expected, Long.parseLong(c[1]));
                return "OK";
            }
            case "RECV" -> {
                long length = Long.parseLong(c[4]);
                wr.clear().wrId(Long.parseLong(c[1]));
                if (length > 0) {
                    wr.sge(region(c[2]), Long.parseLong(c[3]), length);
                }
                qp.postRecv(wr);
                return "OK";
            }
            case "AWAIT_RECV" -> {
                return awaitReceives(Integer.parseInt(c[1]), Long.parseLong(c[2]));
            }
            case "CHECK" -> {
                long index = Pattern.mismatch(region(c[1]).segment(), Long.parseLong(c[2]), Long.parseLong(c[3]),
                        expected, Long.parseLong(c[4]));
                return index < 0 ? "MATCH" : "MISMATCH " + index;
            }
            case "COUNTERS" -> {
                return "COUNTERS " + device.counters();
            }
            default -> throw new IllegalArgumentException("unknown command " + c[0]);
        }
    }

    private String awaitReceives(int n, long timeoutMillis) throws InterruptedException {
        StringBuilder sb = new StringBuilder();
        int got = 0;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (got < n) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                break;
            }
            WorkCompletion[] wcs = WorkCompletion.array(Math.min(256, n - got)); // never take more than asked
            int k = cq.await(wcs, Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)), TimeUnit.NANOSECONDS);
            for (int i = 0; i < k; i++) {
                WorkCompletion wc = wcs[i];
                sb.append(got + i == 0 ? "" : ",").append(wc.wrId()).append('/').append(wc.status()).append('/')
                        .append(wc.opcode()).append('/').append(wc.byteLength()).append('/').append(wc.immediate());
            }
            got += k;
        }
        return "RECVD " + got + (got == 0 ? "" : " " + sb);
    }

    private MemoryRegion region(String name) {
        MemoryRegion r = regions.get(name);
        if (r == null) {
            throw new IllegalArgumentException("no region " + name);
        }
        return r;
    }

    private void close() {
        device.close();
        wire.close();
        arena.close();
    }
}
